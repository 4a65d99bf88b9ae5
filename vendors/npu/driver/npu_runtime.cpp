// The simulated NPU runtime: API conventions over the shared simulator chip.
#include "npu_device.h"

namespace npu_sim {
namespace {
thread_local int32_t current_device = 0;

using torch_fl::sim::CopyKind;

// In the order of StatusCodes' fields.
constexpr torch_fl::sim::StatusCodes<npuError> kCodes{NPU_SUCCESS, NPU_ERROR_INVALID_PARAM, NPU_ERROR_INVALID_DEVICE,
                                                      NPU_ERROR_BAD_ALLOC, NPU_ERROR_INVALID_ADDRESS, NPU_ERROR_EXECUTION};

npuError report(const char* api, torch_fl::sim::Outcome outcome) {
  // Every device-scoped call works on the thread's current device.
  if (outcome.failure == torch_fl::sim::Failure::kInvalidDevice) outcome.detail = "no current device";
  return torch_fl::sim::report(kCodes, api, std::move(outcome));
}

CopyKind copy_kind(npurtMemcpyKind kind) {
  switch (kind) {
    case NPU_MEMCPY_HOST_TO_DEVICE: return CopyKind::kHostToDevice;
    case NPU_MEMCPY_PINNED_HOST_TO_DEVICE: return CopyKind::kPinnedHostToDevice;
    case NPU_MEMCPY_DEVICE_TO_HOST: return CopyKind::kDeviceToHost;
    case NPU_MEMCPY_DEVICE_TO_DEVICE: break;
  }
  return CopyKind::kDeviceToDevice;
}

// The NPU's own check before the shared ones: a copy never writes past destMax.
npuError check_dest_max(const char* api, size_t dest_max, size_t count) {
  if (count <= dest_max) return NPU_SUCCESS;
  return fail(NPU_ERROR_INVALID_PARAM,
              std::string(api) + ": count " + std::to_string(count) + " exceeds destMax " + std::to_string(dest_max));
}
}  // namespace

const torch_fl::sim::Chip& chip() {
  // Never destroyed: worker threads may still drain queues during static destruction.
  static const auto* npu = new torch_fl::sim::Chip({"TORCH_FL_NPU", 2, 4096, NPU_MEMORY_ALIGNMENT});
  return *npu;
}

}  // namespace npu_sim

using namespace npu_sim;

extern "C" {

const char* npurtGetErrorName(npuError error) {
  switch (error) {
    case NPU_SUCCESS: return "NPU_SUCCESS";
    case NPU_ERROR_INVALID_PARAM: return "NPU_ERROR_INVALID_PARAM: parameter check failed";
    case NPU_ERROR_INVALID_DEVICE: return "NPU_ERROR_INVALID_DEVICE: invalid device id";
    case NPU_ERROR_NOT_SUPPORTED: return "NPU_ERROR_NOT_SUPPORTED: feature not supported by the NPU";
    case NPU_ERROR_NOT_READY: return "NPU_ERROR_NOT_READY: task not complete";
    case NPU_ERROR_BAD_ALLOC: return "NPU_ERROR_BAD_ALLOC: device memory allocation failed";
    case NPU_ERROR_INVALID_ADDRESS: return "NPU_ERROR_INVALID_ADDRESS: address is not device memory";
    case NPU_ERROR_EXECUTION: return "NPU_ERROR_EXECUTION: a task on the NPU failed";
  }
  return "NPU_ERROR_UNKNOWN";
}

const char* npurtGetRecentErrMsg(void) { return torch_fl::sim::error_detail(); }

npuError npurtGetDeviceCount(uint32_t* count) {
  if (!count) return fail(NPU_ERROR_INVALID_PARAM, "npurtGetDeviceCount: count is null");
  int devices = 0;
  const npuError error = report("npurtGetDeviceCount", torch_fl::sim::device_count(chip(), &devices));
  if (error == NPU_SUCCESS) *count = static_cast<uint32_t>(devices);
  return error;
}

npuError npurtGetDeviceInfo(int32_t device, npurtDeviceInfo* info) {
  const torch_fl::sim::DeviceArena* arena = chip().arena(device);
  if (!arena || !info) return fail(NPU_ERROR_INVALID_DEVICE, "npurtGetDeviceInfo: no device " + std::to_string(device));
  *info = npurtDeviceInfo{"NPU (Torch-FL simulator)", 9, 1, arena->capacity(), 24};
  return NPU_SUCCESS;
}

npuError npurtSetDevice(int32_t device) {
  if (!chip().arena(device)) return fail(NPU_ERROR_INVALID_DEVICE, "npurtSetDevice: no device " + std::to_string(device));
  current_device = device;
  return NPU_SUCCESS;
}

npuError npurtGetDevice(int32_t* device) {
  *device = current_device;
  return NPU_SUCCESS;
}

npuError npurtMalloc(void** ptr, size_t size) {
  return report("npurtMalloc", torch_fl::sim::allocate(chip(), current_device, size, ptr));
}

npuError npurtFree(void* ptr) { return report("npurtFree", torch_fl::sim::release(chip(), ptr)); }

npuError npurtGetMemInfo(size_t* free_bytes, size_t* total_bytes) {
  return report("npurtGetMemInfo", torch_fl::sim::memory_info(chip(), current_device, free_bytes, total_bytes));
}

npuError npurtGetDeviceUtilization(npurtUtilization* utilization) {
  return report("npurtGetDeviceUtilization",
                torch_fl::sim::busy_time_ns(chip(), current_device, &utilization->busyNs, &utilization->uptimeNs));
}

npuError npurtIpcGetMemHandle(npurtIpcMemHandle* handle, void* ptr) {
  torch_fl::sim::SharedPagesHandle shared{};
  const npuError error = report("npurtIpcGetMemHandle", torch_fl::sim::ipc_get(chip(), ptr, &shared));
  if (error == NPU_SUCCESS) *handle = torch_fl::sim::to_api_handle<npurtIpcMemHandle>(shared);
  return error;
}

npuError npurtIpcOpenMemHandle(void** ptr, size_t* size, const npurtIpcMemHandle* handle) {
  return report("npurtIpcOpenMemHandle",
                torch_fl::sim::ipc_open(chip(), current_device, torch_fl::sim::from_api_handle(*handle), ptr, size));
}

npuError npurtIpcCloseMemHandle(void* ptr) {
  return report("npurtIpcCloseMemHandle", torch_fl::sim::ipc_close(chip(), ptr));
}

npuError npurtPointerGetDevice(const void* ptr, int32_t* device) {
  *device = chip().device_owning(ptr);
  return *device < 0 ? fail(NPU_ERROR_INVALID_ADDRESS, "npurtPointerGetDevice: not device memory") : NPU_SUCCESS;
}

npuError npurtCreateStreamWithPriority(npurtStream* stream, int32_t priority) {
  *stream = new npurtStream_{{chip().new_queue(current_device, priority)}};
  return NPU_SUCCESS;
}

npuError npurtDestroyStream(npurtStream stream) {
  delete stream;  // the worker drains its queue before joining
  return NPU_SUCCESS;
}

npuError npurtSynchronizeStream(npurtStream stream) {
  return report("npurtSynchronizeStream", torch_fl::sim::synchronize(*stream));
}

npuError npurtStreamQuery(npurtStream stream, int32_t* complete) {
  *complete = stream->work->idle() ? 1 : 0;
  return NPU_SUCCESS;
}

npuError npurtCreateEvent(npurtEvent* event) {
  *event = new npurtEvent_{{std::make_shared<torch_fl::sim::Marker>(current_device)}};
  return NPU_SUCCESS;
}

npuError npurtDestroyEvent(npurtEvent event) {
  delete event;
  return NPU_SUCCESS;
}

npuError npurtRecordEvent(npurtEvent event, npurtStream stream) {
  event->marker->record_on(*stream->work);
  return NPU_SUCCESS;
}

npuError npurtQueryEvent(npurtEvent event, int32_t* complete) {
  *complete = event->marker->completed() ? 1 : 0;
  return NPU_SUCCESS;
}

npuError npurtSynchronizeEvent(npurtEvent event) {
  event->marker->wait();
  return NPU_SUCCESS;
}

npuError npurtStreamWaitEvent(npurtStream stream, npurtEvent event) {
  torch_fl::sim::wait_for(*stream, *event);
  return NPU_SUCCESS;
}

npuError npurtEventElapsedTime(float* ms, npurtEvent start, npurtEvent end) {
  if (!start->marker->elapsed_ms(*end->marker, ms)) {
    return fail(NPU_ERROR_NOT_READY, "npurtEventElapsedTime: an event has not completed");
  }
  return NPU_SUCCESS;
}

npuError npurtMemcpyAsync(void* dst, size_t dest_max, const void* src, size_t count, npurtMemcpyKind kind,
                          npurtStream stream) {
  const npuError error = check_dest_max("npurtMemcpyAsync", dest_max, count);
  if (error != NPU_SUCCESS) return error;
  return report("npurtMemcpyAsync", torch_fl::sim::copy_async(chip(), *stream, dst, src, count, copy_kind(kind)));
}

npuError npurtMemcpy(void* dst, size_t dest_max, const void* src, size_t count, npurtMemcpyKind kind,
                     npurtStream stream) {
  const npuError error = check_dest_max("npurtMemcpy", dest_max, count);
  if (error != NPU_SUCCESS) return error;
  return report("npurtMemcpy", torch_fl::sim::copy(chip(), *stream, dst, src, count, copy_kind(kind)));
}

}  // extern "C"
