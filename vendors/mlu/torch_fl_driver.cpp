// The MLU's implementation of the Torch-FL driver ABI: a thin adapter from the
// ABI's conventions to the MLU runtime's (queues, notifiers, mluRet_t codes).
#include <torch_fl/driver_abi.h>

#include "mlu_ops.h"
#include "mlu_runtime.h"

namespace {

mluQueue_t queue(tflStream s) { return reinterpret_cast<mluQueue_t>(s); }
mluNotifier_t notifier(tflEvent e) { return reinterpret_cast<mluNotifier_t>(e); }

tflStatus device_count(int32_t* count) {
  int devices = 0;
  const mluRet_t ret = mluGetDeviceCount(&devices);
  *count = devices;
  return ret;
}

tflStatus device_properties(int32_t device, tflDeviceProperties* properties) {
  mluDeviceProp_t prop{};
  const mluRet_t ret = mluGetDeviceProperties(device, &prop);
  if (ret != MLU_RET_SUCCESS) return ret;
  *properties = tfl_make_device_properties(prop.name, prop.major, prop.minor, prop.totalMemory, prop.clusterCount);
  return MLU_RET_SUCCESS;
}

size_t memory_alignment() { return MLU_MEMORY_ALIGNMENT; }

tflStatus memory_info(int32_t device, size_t* free_bytes, size_t* total_bytes) {
  return mluMemGetInfo(device, free_bytes, total_bytes);
}

tflStatus busy_time(int32_t device, uint64_t* busy_ns, uint64_t* elapsed_ns) {
  uint64_t busy_us = 0, uptime_us = 0;
  const mluRet_t ret = mluDeviceGetBusyTime(device, &busy_us, &uptime_us);
  *busy_ns = busy_us * 1000;
  *elapsed_ns = uptime_us * 1000;
  return ret;
}

tflStatus device_malloc(int32_t device, size_t bytes, void** ptr) { return mluMalloc(device, ptr, bytes); }
tflStatus device_free(int32_t, void* ptr) { return mluFree(ptr); }
int32_t device_of_pointer(const void* ptr) { return mluPointerDevice(ptr); }

tflStatus stream_create(int32_t device, int32_t priority, tflStream* stream) {
  mluQueue_t q = nullptr;
  const mluRet_t ret = mluQueueCreate(device, priority, &q);
  *stream = reinterpret_cast<tflStream>(q);
  return ret;
}
tflStatus stream_destroy(tflStream stream) { return mluQueueDestroy(queue(stream)); }
tflStatus stream_synchronize(tflStream stream) { return mluQueueSync(queue(stream)); }
tflStatus stream_query(tflStream stream, int32_t* idle) {
  const mluRet_t ret = mluQueueQuery(queue(stream));
  *idle = ret == MLU_RET_SUCCESS;
  return ret == MLU_RET_ERR_NOT_READY ? MLU_RET_SUCCESS : ret;
}

tflStatus event_create(int32_t device, tflEvent* event) {
  mluNotifier_t n = nullptr;
  const mluRet_t ret = mluNotifierCreate(device, &n);
  *event = reinterpret_cast<tflEvent>(n);
  return ret;
}
tflStatus event_destroy(tflEvent event) { return mluNotifierDestroy(notifier(event)); }
tflStatus event_record(tflEvent event, tflStream stream) { return mluPlaceNotifier(notifier(event), queue(stream)); }
tflStatus event_query(tflEvent event, int32_t* completed) {
  const mluRet_t ret = mluNotifierQuery(notifier(event));
  *completed = ret == MLU_RET_SUCCESS;
  return ret == MLU_RET_ERR_NOT_READY ? MLU_RET_SUCCESS : ret;
}
tflStatus event_synchronize(tflEvent event) { return mluNotifierWait(notifier(event)); }
tflStatus stream_wait_event(tflStream stream, tflEvent event) {
  return mluQueueWaitNotifier(queue(stream), notifier(event));
}
tflStatus event_elapsed_ms(tflEvent start, tflEvent end, float* ms) {
  return mluNotifierElapsedTime(notifier(start), notifier(end), ms);
}

tflStatus memcpy_h2d(void* dst, const void* src, size_t bytes, tflStream s) {
  return mluMemcpyAsync(dst, src, bytes, queue(s), MLU_MEMCPY_HOST_TO_DEV);
}
tflStatus memcpy_d2h(void* dst, const void* src, size_t bytes, tflStream s) {
  return mluMemcpyAsync(dst, src, bytes, queue(s), MLU_MEMCPY_DEV_TO_HOST);
}
tflStatus memcpy_d2d(void* dst, const void* src, size_t bytes, tflStream s) {
  return mluMemcpyAsync(dst, src, bytes, queue(s), MLU_MEMCPY_DEV_TO_DEV);
}

tflStatus memcpy_h2d_sync(void* dst, const void* src, size_t bytes, tflStream s) {
  return mluMemcpy(dst, src, bytes, queue(s), MLU_MEMCPY_HOST_TO_DEV);
}
tflStatus memcpy_h2d_pinned(void* dst, const void* src, size_t bytes, tflStream s) {
  return mluMemcpyAsync(dst, src, bytes, queue(s), MLU_MEMCPY_PINNED_HOST_TO_DEV);
}

mluTensor_t as_mlu_tensor(const tflStridedView& v) {
  mluTensor_t t{};
  t.data = v.data;
  // tflDtype and mluDataType_t list the same types in the same order.
  t.dtype = static_cast<mluDataType_t>(v.dtype);
  t.dim = v.ndim;
  for (int i = 0; i < v.ndim && i < MLU_MAX_DIMS; ++i) {
    t.shape[i] = v.sizes[i];
    t.stride[i] = v.strides[i];
  }
  return t;
}

tflStatus copy_strided(const tflStridedView* dst, const tflStridedView* src, tflStream s) {
  if (dst->ndim > MLU_MAX_DIMS || src->ndim > MLU_MAX_DIMS) return MLU_RET_ERR_NOT_SUPPORTED;
  const mluTensor_t d = as_mlu_tensor(*dst), from = as_mlu_tensor(*src);
  return mluOpCopyStrided(queue(s), &d, &from);
}

const char* status_string(tflStatus status) { return mluGetErrorStr(static_cast<mluRet_t>(status)); }
int32_t status_is_out_of_memory(tflStatus status) { return status == MLU_RET_ERR_NO_MEMORY; }

const char* last_error_detail() { return mluGetLastErrorDetail(); }

const char* driver_counters() { return ""; }  // nothing beyond what the runtime counts
uint32_t device_dtypes(int32_t) { return TFL_ALL_DTYPES; }  // its spec decides alone
uint32_t device_capabilities(int32_t) { return TFL_CAP_IPC_MEMORY; }

static_assert(sizeof(mluIpcMemHandle_t) == sizeof(tflIpcMemHandle), "an MLU IPC handle travels as the ABI's");
tflStatus ipc_get_mem_handle(void* ptr, tflIpcMemHandle* handle) {
  return mluIpcGetMemHandle(reinterpret_cast<mluIpcMemHandle_t*>(handle), ptr);
}
tflStatus ipc_open_mem_handle(int32_t device, const tflIpcMemHandle* handle, void** ptr, size_t* bytes) {
  return mluIpcOpenMemHandle(device, ptr, bytes, *reinterpret_cast<const mluIpcMemHandle_t*>(handle));
}
tflStatus ipc_close_mem_handle(void* ptr) { return mluIpcCloseMemHandle(ptr); }

const TflDriver kDriver = TFL_DRIVER_TABLE("mlu");

static_assert(static_cast<int>(TFL_DTYPE_COMPLEX128) == static_cast<int>(MLU_DTYPE_COMPLEX_DOUBLE),
              "tflDtype and mluDataType_t must list the same types in the same order");

}  // namespace

extern "C" const TflDriver* torch_fl_vendor_driver(void) { return &kDriver; }
