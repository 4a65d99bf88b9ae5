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
  if (!chip().configuration_error().empty()) return fail(MLU_RET_ERR_INVALID_VALUE, chip().configuration_error());
  *count = chip().device_count();
  return MLU_RET_SUCCESS;
}

mluRet_t mluGetDeviceProperties(int device, mluDeviceProp_t* prop) {
  const torch_fl::sim::DeviceArena* arena = chip().arena(device);
  if (!arena) return fail(MLU_RET_ERR_INVALID_DEVICE, "mluGetDeviceProperties: device " + std::to_string(device));
  *prop = mluDeviceProp_t{"MLU (Torch-FL simulator)", 3, 7, arena->capacity(), 8};
  return MLU_RET_SUCCESS;
}

mluRet_t mluMalloc(int device, void** ptr, size_t bytes) {
  torch_fl::sim::DeviceArena* arena = chip().arena(device);
  if (!arena) return fail(MLU_RET_ERR_INVALID_DEVICE, "mluMalloc: device " + std::to_string(device));
  *ptr = arena->allocate(bytes);
  if (!*ptr) {
    return fail(MLU_RET_ERR_NO_MEMORY, "mluMalloc: " + chip().out_of_memory_detail(device, bytes));
  }
  return MLU_RET_SUCCESS;
}

mluRet_t mluFree(void* ptr) {
  if (!ptr) return MLU_RET_SUCCESS;
  torch_fl::sim::DeviceArena* arena = chip().arena(chip().device_owning(ptr));
  if (!arena || !arena->release(ptr)) {
    return fail(MLU_RET_ERR_INVALID_ADDRESS, "mluFree: pointer is not a live device allocation");
  }
  return MLU_RET_SUCCESS;
}

mluRet_t mluMemGetInfo(int device, size_t* free_bytes, size_t* total_bytes) {
  torch_fl::sim::DeviceArena* arena = chip().arena(device);
  if (!arena) return fail(MLU_RET_ERR_INVALID_DEVICE, "mluMemGetInfo: device " + std::to_string(device));
  *total_bytes = arena->capacity();
  *free_bytes = arena->capacity() - arena->used();
  return MLU_RET_SUCCESS;
}

mluRet_t mluDeviceGetBusyTime(int device, uint64_t* busy_us, uint64_t* uptime_us) {
  torch_fl::sim::BusyClock* clock = chip().busy_clock(device);
  if (!clock) return fail(MLU_RET_ERR_INVALID_DEVICE, "mluDeviceGetBusyTime: device " + std::to_string(device));
  uint64_t busy_ns = 0, uptime_ns = 0;
  clock->read(&busy_ns, &uptime_ns);
  *busy_us = busy_ns / 1000;
  *uptime_us = uptime_ns / 1000;
  return MLU_RET_SUCCESS;
}

int mluPointerDevice(const void* ptr) { return chip().device_owning(ptr); }

mluRet_t mluQueueCreate(int device, int priority, mluQueue_t* queue) {
  if (!chip().arena(device)) return fail(MLU_RET_ERR_INVALID_DEVICE, "mluQueueCreate: device " + std::to_string(device));
  *queue = new mluQueue_{{chip().new_queue(device, priority)}};
  return MLU_RET_SUCCESS;
}

mluRet_t mluQueueDestroy(mluQueue_t queue) {
  delete queue;  // the worker drains its queue before joining
  return MLU_RET_SUCCESS;
}

mluRet_t mluQueueSync(mluQueue_t queue) {
  std::string error = queue->work->synchronize();
  if (!error.empty()) return fail(MLU_RET_ERR_EXECUTION, std::move(error));
  return MLU_RET_SUCCESS;
}

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
  queue->work->submit([marker = notifier->marker]() -> std::string {
    marker->wait();
    return "";
  });
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
  if (dir != MLU_MEMCPY_DEV_TO_HOST && !chip().resident(dst, bytes)) {
    return fail(MLU_RET_ERR_INVALID_ADDRESS, "mluMemcpyAsync: destination is not device memory");
  }
  const bool from_host = dir == MLU_MEMCPY_HOST_TO_DEV || dir == MLU_MEMCPY_PINNED_HOST_TO_DEV;
  if (!from_host && !chip().resident(src, bytes)) {
    return fail(MLU_RET_ERR_INVALID_ADDRESS, "mluMemcpyAsync: source is not device memory");
  }
  chip().copy_async(*queue->work, dst, src, bytes, /*stage_host_source=*/dir == MLU_MEMCPY_HOST_TO_DEV);
  return MLU_RET_SUCCESS;
}

mluRet_t mluMemcpy(void* dst, const void* src, size_t bytes, mluQueue_t queue, mluMemcpyDirection_t dir) {
  if (bytes == 0) return MLU_RET_SUCCESS;
  if (dir != MLU_MEMCPY_HOST_TO_DEV) {
    const mluRet_t ret = mluMemcpyAsync(dst, src, bytes, queue, dir);
    return ret == MLU_RET_SUCCESS ? mluQueueSync(queue) : ret;
  }
  if (!chip().resident(dst, bytes)) return fail(MLU_RET_ERR_INVALID_ADDRESS, "mluMemcpy: destination is not device memory");
  // The host waits below, so its buffer is read in place: no staging copy.
  chip().copy_async(*queue->work, dst, src, bytes, /*stage_host_source=*/false);
  return mluQueueSync(queue);
}

}  // extern "C"
