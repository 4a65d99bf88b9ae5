#include "ocl_queue.h"

#include <algorithm>
#include <map>
#include <string>

#include "ocl_exit_drain.h"
#include "ocl_platform.h"
#include "ocl_status.h"

namespace torch_fl::ocl {
namespace {

void CL_CALLBACK on_complete(cl_event event, cl_int status, void* user_data) {
  cl_ulong start = 0, end = 0;
  if (status == CL_COMPLETE &&
      clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof(start), &start, nullptr) == CL_SUCCESS &&
      clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof(end), &end, nullptr) == CL_SUCCESS) {
    static_cast<BusyClock*>(user_data)->add(start, end);
  }
  clReleaseEvent(event);  // retained by track() for this callback
}

// An event's status: CL_COMPLETE, a state before it, or a negative error.
cl_int execution_status(cl_event event) {
  cl_int status = CL_COMPLETE;
  const cl_int error = clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, nullptr);
  return error == CL_SUCCESS ? status : error;
}

int32_t failed_work(cl_int status, const char* where) {
  return fail(status, std::string(where) + ": earlier queued work failed with " + status_name(status));
}

}  // namespace

void BusyClock::add(uint64_t start_ns, uint64_t end_ns) {
  std::lock_guard<std::mutex> lock(mutex_);
  start_ns = std::max(start_ns, covered_until_);
  if (end_ns > start_ns) busy_ns_ += end_ns - start_ns;
  covered_until_ = std::max(covered_until_, end_ns);
}

void BusyClock::read(uint64_t* busy_ns, uint64_t* elapsed_ns) const {
  std::lock_guard<std::mutex> lock(mutex_);
  *busy_ns = busy_ns_;
  *elapsed_ns = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - started_).count());
}

BusyClock& busy_clock(int32_t device) {
  static std::mutex mutex;
  static auto* clocks = new std::map<int32_t, BusyClock>();  // never destroyed: callbacks may run during exit
  std::lock_guard<std::mutex> lock(mutex);
  return (*clocks)[device];
}

int32_t Stream::create(int32_t index, Stream** stream) {
  Platform* platform = nullptr;
  Device* device = nullptr;
  if (const int32_t status = Platform::get(&platform)) return status;
  if (const int32_t status = platform->device(index, &device)) return status;
  if (!device->profiling) {
    return fail(kNotSupported, "device " + device->name + " cannot profile its queues (events need it)");
  }
  cl_int error = CL_SUCCESS;
  cl_command_queue queue = clCreateCommandQueue(device->context, device->id, CL_QUEUE_PROFILING_ENABLE, &error);
  if (const int32_t status = check_cl(error, "clCreateCommandQueue")) return status;
  drain_at_exit(queue);
  *stream = new Stream(index, device->context, queue, device->work_group);  // owned by the caller: the ABI's stream handle
  return kSuccess;
}

Stream::~Stream() {
  forget_at_exit(queue_);
  clFinish(queue_);
  if (last_) clReleaseEvent(last_);
  clReleaseCommandQueue(queue_);
}

void Stream::track(cl_event event) {
  if (!event) return;
  // Retained for the callback, which releases it.
  if (clRetainEvent(event) == CL_SUCCESS &&
      clSetEventCallback(event, CL_COMPLETE, on_complete, &busy_clock(device_)) != CL_SUCCESS) {
    clReleaseEvent(event);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (last_) clReleaseEvent(last_);
  last_ = event;
}

int32_t Stream::synchronize() {
  if (const int32_t status = check_not_forked()) return status;
  const bool armed = faults_.disarm();
  // An early failure leaves the armed launches for the next check, not lost.
  const auto keep_armed = [&](int32_t status) {
    if (armed) faults_.rearm();
    return status;
  };
  if (const int32_t status = check_cl(clFinish(queue_), "clFinish")) return keep_armed(status);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const cl_int status = last_ ? execution_status(last_) : CL_COMPLETE;
    if (status < 0) return keep_armed(failed_work(status, "stream synchronize"));
  }
  return armed ? faults_.read(queue_) : kSuccess;
}

int32_t Stream::query(bool* idle) {
  if (const int32_t status = check_not_forked()) return status;
  const bool armed = faults_.disarm();
  clFlush(queue_);  // queued work must be submitted to ever complete
  cl_int status = CL_COMPLETE;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    status = last_ ? execution_status(last_) : CL_COMPLETE;
  }
  if (status < 0) {
    if (armed) faults_.rearm();
    return failed_work(status, "stream query");
  }
  *idle = status == CL_COMPLETE;
  if (!armed) return kSuccess;
  // Idle: the armed launches have run and their record can be read. Busy: they
  // are checked at a later query or synchronisation.
  if (*idle) return faults_.read(queue_);
  faults_.rearm();
  return kSuccess;
}

Event::~Event() {
  if (marker_) clReleaseEvent(marker_);
}

int32_t Event::record(Stream& stream) {
  if (const int32_t status = check_not_forked()) return status;
  cl_event marker = nullptr;
  if (const int32_t status = check_cl(clEnqueueMarkerWithWaitList(stream.queue(), 0, nullptr, &marker),
                                      "clEnqueueMarkerWithWaitList")) {
    return status;
  }
  clFlush(stream.queue());
  std::lock_guard<std::mutex> lock(mutex_);
  if (marker_) clReleaseEvent(marker_);
  marker_ = marker;
  return kSuccess;
}

int32_t Event::query(bool* completed) const {
  if (const int32_t status = check_not_forked()) return status;
  std::lock_guard<std::mutex> lock(mutex_);
  const cl_int status = marker_ ? execution_status(marker_) : CL_COMPLETE;
  if (status < 0) return failed_work(status, "event query");
  *completed = status == CL_COMPLETE;
  return kSuccess;
}

int32_t Event::synchronize() const {
  if (const int32_t status = check_not_forked()) return status;
  std::lock_guard<std::mutex> lock(mutex_);
  if (!marker_) return kSuccess;
  const cl_int error = clWaitForEvents(1, &marker_);
  if (error == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) return failed_work(execution_status(marker_), "event synchronize");
  return check_cl(error, "clWaitForEvents");
}

int32_t Event::block(Stream& stream) const {
  if (const int32_t status = check_not_forked()) return status;
  std::lock_guard<std::mutex> lock(mutex_);
  if (!marker_) return kSuccess;
  cl_context context = nullptr;
  clGetEventInfo(marker_, CL_EVENT_CONTEXT, sizeof(context), &context, nullptr);
  if (context != stream.context()) return check_cl(clWaitForEvents(1, &marker_), "clWaitForEvents");
  cl_event barrier = nullptr;
  const int32_t status = check_cl(clEnqueueBarrierWithWaitList(stream.queue(), 1, &marker_, &barrier),
                                  "clEnqueueBarrierWithWaitList");
  stream.track(barrier);
  return status;
}

int32_t Event::elapsed_ms(const Event& start, const Event& end, float* ms) {
  if (const int32_t status = check_not_forked()) return status;
  cl_ulong times[2] = {0, 0};
  const Event* events[2] = {&start, &end};
  for (int i = 0; i < 2; ++i) {
    std::lock_guard<std::mutex> lock(events[i]->mutex_);
    if (!events[i]->marker_) return fail(CL_INVALID_EVENT, "elapsed time: an event was never recorded");
    if (execution_status(events[i]->marker_) != CL_COMPLETE) {
      return fail(CL_PROFILING_INFO_NOT_AVAILABLE, "elapsed time: an event has not completed yet (synchronize first)");
    }
    if (const int32_t status = check_cl(clGetEventProfilingInfo(events[i]->marker_, CL_PROFILING_COMMAND_END,
                                                                sizeof(cl_ulong), &times[i], nullptr),
                                        "clGetEventProfilingInfo")) {
      return status;
    }
  }
  *ms = static_cast<float>(static_cast<double>(static_cast<int64_t>(times[1] - times[0])) / 1e6);
  return kSuccess;
}

}  // namespace torch_fl::ocl
