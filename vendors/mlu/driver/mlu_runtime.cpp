// The simulated MLU runtime: devices with their own memory, queues on worker
// threads, notifiers, and copies.
#include "mlu_device.h"

namespace mlu_sim {

const torch_fl::sim::Chip& chip() {
  // Created once, thread-safely, and never destroyed: worker threads may still
  // be draining queues during static destruction.
  static const auto* mlu = new torch_fl::sim::Chip({"TORCH_FL_MLU", 2, 4096, MLU_MEMORY_ALIGNMENT});
  return *mlu;
}

namespace {

using torch_fl::sim::CopyKind;

// In the order of StatusCodes' fields.
constexpr torch_fl::sim::StatusCodes<mluRet_t> kCodes{MLU_RET_SUCCESS, MLU_RET_ERR_INVALID_VALUE, MLU_RET_ERR_INVALID_DEVICE,
                                                      MLU_RET_ERR_NO_MEMORY, MLU_RET_ERR_INVALID_ADDRESS, MLU_RET_ERR_EXECUTION};

mluRet_t report(const char* api, torch_fl::sim::Outcome outcome) {
  return torch_fl::sim::report(kCodes, api, std::move(outcome));
}

CopyKind copy_kind(mluMemcpyDirection_t dir) {
  switch (dir) {
    case MLU_MEMCPY_HOST_TO_DEV: return CopyKind::kHostToDevice;
    case MLU_MEMCPY_PINNED_HOST_TO_DEV: return CopyKind::kPinnedHostToDevice;
    case MLU_MEMCPY_DEV_TO_HOST: return CopyKind::kDeviceToHost;
    case MLU_MEMCPY_DEV_TO_DEV: break;
  }
  return CopyKind::kDeviceToDevice;
}

}  // namespace
}  // namespace mlu_sim

using namespace mlu_sim;

extern "C" {

const char* mluGetErrorStr(mluRet_t ret) {
  switch (ret) {
    case MLU_RET_SUCCESS: return "MLU_RET_SUCCESS: no error";
    case MLU_RET_ERR_INVALID_VALUE: return "MLU_RET_ERR_INVALID_VALUE: invalid argument";
    case MLU_RET_ERR_NO_MEMORY: return "MLU_RET_ERR_NO_MEMORY: out of device memory";
    case MLU_RET_ERR_INVALID_DEVICE: return "MLU_RET_ERR_INVALID_DEVICE: no such device";
    case MLU_RET_ERR_INVALID_ADDRESS: return "MLU_RET_ERR_INVALID_ADDRESS: address is not device memory";
    case MLU_RET_ERR_EXECUTION: return "MLU_RET_ERR_EXECUTION: device work failed";
    case MLU_RET_ERR_NOT_SUPPORTED: return "MLU_RET_ERR_NOT_SUPPORTED: not supported by the device";
    case MLU_RET_ERR_NOT_READY: return "MLU_RET_ERR_NOT_READY: work still pending";
  }
  return "MLU_RET_ERR_UNKNOWN: unknown status";
}

const char* mluGetLastErrorDetail(void) { return torch_fl::sim::error_detail(); }

mluRet_t mluGetDeviceCount(int* count) {
  return report("mluGetDeviceCount", torch_fl::sim::device_count(chip(), count));
}

mluRet_t mluGetDeviceProperties(int device, mluDeviceProp_t* prop) {
  const torch_fl::sim::DeviceArena* arena = chip().arena(device);
  if (!arena) return fail(MLU_RET_ERR_INVALID_DEVICE, "mluGetDeviceProperties: device " + std::to_string(device));
  *prop = mluDeviceProp_t{"MLU (Torch-FL simulator)", 3, 7, arena->capacity(), 8};
  return MLU_RET_SUCCESS;
}

mluRet_t mluMalloc(int device, void** ptr, size_t bytes) {
  return report("mluMalloc", torch_fl::sim::allocate(chip(), device, bytes, ptr));
}

mluRet_t mluFree(void* ptr) { return report("mluFree", torch_fl::sim::release(chip(), ptr)); }

mluRet_t mluMemGetInfo(int device, size_t* free_bytes, size_t* total_bytes) {
  return report("mluMemGetInfo", torch_fl::sim::memory_info(chip(), device, free_bytes, total_bytes));
}

mluRet_t mluDeviceGetBusyTime(int device, uint64_t* busy_us, uint64_t* uptime_us) {
  uint64_t busy_ns = 0, uptime_ns = 0;
  const mluRet_t ret = report("mluDeviceGetBusyTime", torch_fl::sim::busy_time_ns(chip(), device, &busy_ns, &uptime_ns));
  if (ret != MLU_RET_SUCCESS) return ret;
  *busy_us = busy_ns / 1000;
  *uptime_us = uptime_ns / 1000;
  return MLU_RET_SUCCESS;
}

int mluPointerDevice(const void* ptr) { return chip().device_owning(ptr); }

mluRet_t mluIpcGetMemHandle(mluIpcMemHandle_t* handle, void* ptr) {
  torch_fl::sim::SharedPagesHandle shared{};
  const mluRet_t ret = report("mluIpcGetMemHandle", torch_fl::sim::ipc_get(chip(), ptr, &shared));
  if (ret == MLU_RET_SUCCESS) *handle = torch_fl::sim::to_api_handle<mluIpcMemHandle_t>(shared);
  return ret;
}

mluRet_t mluIpcOpenMemHandle(int device, void** ptr, size_t* bytes, mluIpcMemHandle_t handle) {
  return report("mluIpcOpenMemHandle",
                torch_fl::sim::ipc_open(chip(), device, torch_fl::sim::from_api_handle(handle), ptr, bytes));
}

mluRet_t mluIpcCloseMemHandle(void* ptr) {
  return report("mluIpcCloseMemHandle", torch_fl::sim::ipc_close(chip(), ptr));
}

mluRet_t mluQueueCreate(int device, int priority, mluQueue_t* queue) {
  if (!chip().arena(device)) return fail(MLU_RET_ERR_INVALID_DEVICE, "mluQueueCreate: device " + std::to_string(device));
  *queue = new mluQueue_{{chip().new_queue(device, priority)}};
  return MLU_RET_SUCCESS;
}

mluRet_t mluQueueDestroy(mluQueue_t queue) {
  delete queue;  // the worker drains its queue before joining
  return MLU_RET_SUCCESS;
}

mluRet_t mluQueueSync(mluQueue_t queue) { return report("mluQueueSync", torch_fl::sim::synchronize(*queue)); }

mluRet_t mluQueueQuery(mluQueue_t queue) {
  return queue->work->idle() ? MLU_RET_SUCCESS : MLU_RET_ERR_NOT_READY;
}

int mluQueueDevice(mluQueue_t queue) { return queue->work->device(); }

mluRet_t mluNotifierCreate(int device, mluNotifier_t* notifier) {
  if (!chip().arena(device)) return fail(MLU_RET_ERR_INVALID_DEVICE, "mluNotifierCreate: device " + std::to_string(device));
  *notifier = new mluNotifier_{{std::make_shared<torch_fl::sim::Marker>(device)}};
  return MLU_RET_SUCCESS;
}

mluRet_t mluNotifierDestroy(mluNotifier_t notifier) {
  delete notifier;
  return MLU_RET_SUCCESS;
}

mluRet_t mluPlaceNotifier(mluNotifier_t notifier, mluQueue_t queue) {
  notifier->marker->record_on(*queue->work);
  return MLU_RET_SUCCESS;
}

mluRet_t mluNotifierQuery(mluNotifier_t notifier) {
  return notifier->marker->completed() ? MLU_RET_SUCCESS : MLU_RET_ERR_NOT_READY;
}

mluRet_t mluNotifierWait(mluNotifier_t notifier) {
  notifier->marker->wait();
  return MLU_RET_SUCCESS;
}

mluRet_t mluQueueWaitNotifier(mluQueue_t queue, mluNotifier_t notifier) {
  torch_fl::sim::wait_for(*queue, *notifier);
  return MLU_RET_SUCCESS;
}

mluRet_t mluNotifierElapsedTime(mluNotifier_t start, mluNotifier_t end, float* ms) {
  if (!start->marker->elapsed_ms(*end->marker, ms)) {
    return fail(MLU_RET_ERR_NOT_READY, "mluNotifierElapsedTime: a notifier has not completed");
  }
  return MLU_RET_SUCCESS;
}

mluRet_t mluMemcpyAsync(void* dst, const void* src, size_t bytes, mluQueue_t queue, mluMemcpyDirection_t dir) {
  if (bytes == 0) return MLU_RET_SUCCESS;
  return report("mluMemcpyAsync", torch_fl::sim::copy_async(chip(), *queue, dst, src, bytes, copy_kind(dir)));
}

mluRet_t mluMemcpy(void* dst, const void* src, size_t bytes, mluQueue_t queue, mluMemcpyDirection_t dir) {
  if (bytes == 0) return MLU_RET_SUCCESS;
  return report("mluMemcpy", torch_fl::sim::copy(chip(), *queue, dst, src, bytes, copy_kind(dir)));
}

}  // extern "C"
