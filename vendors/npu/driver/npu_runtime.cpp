// The simulated NPU runtime: API conventions over the shared simulator chip.
#include "npu_device.h"

namespace npu_sim {
namespace {
thread_local int32_t current_device = 0;

torch_fl::sim::DeviceArena* current_arena() { return chip().arena(current_device); }
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
  if (!chip().configuration_error().empty()) return fail(NPU_ERROR_INVALID_PARAM, chip().configuration_error());
  *count = static_cast<uint32_t>(chip().device_count());
  return NPU_SUCCESS;
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
  torch_fl::sim::DeviceArena* arena = current_arena();
  if (!arena) return fail(NPU_ERROR_INVALID_DEVICE, "npurtMalloc: no current device");
  *ptr = arena->allocate(size);
  if (!*ptr) {
    return fail(NPU_ERROR_BAD_ALLOC, "npurtMalloc: " + chip().out_of_memory_detail(current_device, size));
  }
  return NPU_SUCCESS;
}

npuError npurtFree(void* ptr) {
  if (!ptr) return NPU_SUCCESS;
  torch_fl::sim::DeviceArena* arena = chip().arena(chip().device_owning(ptr));
  if (!arena || !arena->release(ptr)) return fail(NPU_ERROR_INVALID_ADDRESS, "npurtFree: not a live device allocation");
  return NPU_SUCCESS;
}

npuError npurtGetMemInfo(size_t* free_bytes, size_t* total_bytes) {
  torch_fl::sim::DeviceArena* arena = current_arena();
  if (!arena) return fail(NPU_ERROR_INVALID_DEVICE, "npurtGetMemInfo: no current device");
  *total_bytes = arena->capacity();
  *free_bytes = arena->capacity() - arena->used();
  return NPU_SUCCESS;
}

npuError npurtGetDeviceUtilization(npurtUtilization* utilization) {
  torch_fl::sim::BusyClock* clock = chip().busy_clock(current_device);
  if (!clock) return fail(NPU_ERROR_INVALID_DEVICE, "npurtGetDeviceUtilization: no current device");
  clock->read(&utilization->busyNs, &utilization->uptimeNs);
  return NPU_SUCCESS;
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
  std::string error = stream->work->synchronize();
  return error.empty() ? NPU_SUCCESS : fail(NPU_ERROR_EXECUTION, std::move(error));
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
  stream->work->submit([marker = event->marker]() -> std::string {
    marker->wait();
    return "";
  });
  return NPU_SUCCESS;
}

npuError npurtEventElapsedTime(float* ms, npurtEvent start, npurtEvent end) {
  if (!start->marker->elapsed_ms(*end->marker, ms)) {
    return fail(NPU_ERROR_NOT_READY, "npurtEventElapsedTime: an event has not completed");
  }
  return NPU_SUCCESS;
}

namespace {

npuError check_copy(const char* api, void* dst, size_t dest_max, const void* src, size_t count, npurtMemcpyKind kind) {
  if (count > dest_max) {
    return fail(NPU_ERROR_INVALID_PARAM, std::string(api) + ": count " + std::to_string(count) +
                                             " exceeds destMax " + std::to_string(dest_max));
  }
  if (kind != NPU_MEMCPY_DEVICE_TO_HOST && !chip().resident(dst, count)) {
    return fail(NPU_ERROR_INVALID_ADDRESS, std::string(api) + ": destination is not device memory");
  }
  const bool from_host = kind == NPU_MEMCPY_HOST_TO_DEVICE || kind == NPU_MEMCPY_PINNED_HOST_TO_DEVICE;
  if (!from_host && !chip().resident(src, count)) {
    return fail(NPU_ERROR_INVALID_ADDRESS, std::string(api) + ": source is not device memory");
  }
  return NPU_SUCCESS;
}

}  // namespace

npuError npurtMemcpyAsync(void* dst, size_t dest_max, const void* src, size_t count, npurtMemcpyKind kind,
                          npurtStream stream) {
  const npuError error = check_copy("npurtMemcpyAsync", dst, dest_max, src, count, kind);
  if (error != NPU_SUCCESS) return error;
  chip().copy_async(*stream->work, dst, src, count, /*stage_host_source=*/kind == NPU_MEMCPY_HOST_TO_DEVICE);
  return NPU_SUCCESS;
}

npuError npurtMemcpy(void* dst, size_t dest_max, const void* src, size_t count, npurtMemcpyKind kind,
                     npurtStream stream) {
  const npuError error = check_copy("npurtMemcpy", dst, dest_max, src, count, kind);
  if (error != NPU_SUCCESS) return error;
  // The caller waits below, so a host source is read in place.
  chip().copy_async(*stream->work, dst, src, count, /*stage_host_source=*/false);
  return npurtSynchronizeStream(stream);
}

}  // extern "C"
