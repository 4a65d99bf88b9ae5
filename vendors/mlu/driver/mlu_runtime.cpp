// The simulated MLU runtime: devices with their own memory, queues on worker
// threads, notifiers, and copies.
#include <cstdlib>
#include <cstring>
#include <optional>

#include "mlu_device.h"
#include "staging_pool.h"

namespace mlu_sim {
namespace {

thread_local std::string last_error_detail;

size_t env_size(const char* name, size_t fallback) {
  const char* text = std::getenv(name);
  if (!text || !*text) return fallback;
  return static_cast<size_t>(std::strtoull(text, nullptr, 10));
}

// Runs `work` with every device's memory accessible to the simulator.
std::string with_device_access(const torch_fl::sim::WorkQueue::Task& work) {
  std::vector<std::optional<torch_fl::sim::DeviceArena::AccessScope>> scopes(devices().size());
  for (size_t i = 0; i < scopes.size(); ++i) scopes[i].emplace(*devices()[i].arena);
  return work();
}

}  // namespace

std::vector<Device>& devices() {
  // Created once, thread-safely, and never destroyed: worker threads may still
  // be draining queues during static destruction.
  static auto* all = [] {
    auto* list = new std::vector<Device>();
    const size_t count = env_size("TORCH_FL_MLU_DEVICES", 2);
    const size_t capacity = env_size("TORCH_FL_MLU_MEMORY_MB", 4096) << 20;
    const bool protect = env_size("TORCH_FL_MLU_PROTECT", 0) != 0;
    for (size_t i = 0; i < count; ++i) {
      list->push_back(Device{static_cast<int>(i), std::make_unique<torch_fl::sim::DeviceArena>(
                                                      capacity, MLU_MEMORY_ALIGNMENT, protect)});
    }
    return list;
  }();
  return *all;
}

Device* device_at(int index) {
  auto& all = devices();
  return index >= 0 && static_cast<size_t>(index) < all.size() ? &all[index] : nullptr;
}

Device* device_owning(const void* ptr) {
  for (auto& device : devices()) {
    if (device.arena->contains(ptr)) return &device;
  }
  return nullptr;
}

mluRet_t fail(mluRet_t ret, std::string detail) {
  last_error_detail = std::move(detail);
  return ret;
}

void enqueue(mluQueue_t queue, torch_fl::sim::WorkQueue::Task work) {
  queue->work->submit([work = std::move(work)]() { return with_device_access(work); });
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

const char* mluGetLastErrorDetail(void) { return last_error_detail.c_str(); }

mluRet_t mluGetDeviceCount(int* count) {
  *count = static_cast<int>(devices().size());
  return MLU_RET_SUCCESS;
}

mluRet_t mluMalloc(int device, void** ptr, size_t bytes) {
  Device* dev = device_at(device);
  if (!dev) return fail(MLU_RET_ERR_INVALID_DEVICE, "mluMalloc: device " + std::to_string(device));
  *ptr = dev->arena->allocate(bytes);
  if (!*ptr) {
    return fail(MLU_RET_ERR_NO_MEMORY, "mluMalloc: " + std::to_string(bytes) + " bytes requested, " +
                                           std::to_string(dev->arena->capacity() - dev->arena->used()) +
                                           " free (fragmentation may leave less in one piece)");
  }
  return MLU_RET_SUCCESS;
}

mluRet_t mluFree(void* ptr) {
  if (!ptr) return MLU_RET_SUCCESS;
  Device* dev = device_owning(ptr);
  if (!dev || !dev->arena->release(ptr)) {
    return fail(MLU_RET_ERR_INVALID_ADDRESS, "mluFree: pointer is not a live device allocation");
  }
  return MLU_RET_SUCCESS;
}

mluRet_t mluMemGetInfo(int device, size_t* free_bytes, size_t* total_bytes) {
  Device* dev = device_at(device);
  if (!dev) return fail(MLU_RET_ERR_INVALID_DEVICE, "mluMemGetInfo: device " + std::to_string(device));
  *total_bytes = dev->arena->capacity();
  *free_bytes = dev->arena->capacity() - dev->arena->used();
  return MLU_RET_SUCCESS;
}

int mluPointerDevice(const void* ptr) {
  Device* dev = device_owning(ptr);
  return dev ? dev->index : -1;
}

mluRet_t mluQueueCreate(int device, int priority, mluQueue_t* queue) {
  if (!device_at(device)) return fail(MLU_RET_ERR_INVALID_DEVICE, "mluQueueCreate: device " + std::to_string(device));
  *queue = new mluQueue_{std::make_unique<torch_fl::sim::WorkQueue>(device, priority)};
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
  if (!device_at(device)) return fail(MLU_RET_ERR_INVALID_DEVICE, "mluNotifierCreate: device " + std::to_string(device));
  *notifier = new mluNotifier_{std::make_shared<torch_fl::sim::Marker>(device)};
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
  const bool dst_device = dir != MLU_MEMCPY_DEV_TO_HOST;
  const bool src_device = dir != MLU_MEMCPY_HOST_TO_DEV;
  auto covered = [&](const void* p) {
    Device* d = device_owning(p);
    return d && d->arena->covers(p, bytes);
  };
  if (dst_device && !covered(dst)) return fail(MLU_RET_ERR_INVALID_ADDRESS, "mluMemcpyAsync: destination is not device memory");
  if (src_device && !covered(src)) return fail(MLU_RET_ERR_INVALID_ADDRESS, "mluMemcpyAsync: source is not device memory");
  if (dir == MLU_MEMCPY_HOST_TO_DEV) {
    // Stage the host bytes now: the caller may reuse its buffer on return.
    // Never destroyed: queued copies may still hold staging buffers at exit.
    static auto* staging = new torch_fl::sim::StagingPool();
    std::shared_ptr<uint8_t> staged = staging->take(bytes);
    std::memcpy(staged.get(), src, bytes);
    enqueue(queue, [dst, staged, bytes]() -> std::string {
      std::memcpy(dst, staged.get(), bytes);
      return "";
    });
  } else {
    enqueue(queue, [dst, src, bytes]() -> std::string {
      std::memcpy(dst, src, bytes);
      return "";
    });
  }
  return MLU_RET_SUCCESS;
}

mluRet_t mluMemcpy(void* dst, const void* src, size_t bytes, mluQueue_t queue, mluMemcpyDirection_t dir) {
  if (bytes == 0) return MLU_RET_SUCCESS;
  if (dir != MLU_MEMCPY_HOST_TO_DEV) {
    const mluRet_t ret = mluMemcpyAsync(dst, src, bytes, queue, dir);
    return ret == MLU_RET_SUCCESS ? mluQueueSync(queue) : ret;
  }
  Device* device = device_owning(dst);
  if (!device || !device->arena->covers(dst, bytes)) {
    return fail(MLU_RET_ERR_INVALID_ADDRESS, "mluMemcpy: destination is not device memory");
  }
  enqueue(queue, [dst, src, bytes]() -> std::string {
    std::memcpy(dst, src, bytes);
    return "";
  });
  return mluQueueSync(queue);
}

}  // extern "C"
