// The NPU's implementation of the Torch-FL driver ABI. The ABI names a device
// in every call; the NPU runtime works on a per-thread current device, so each
// device-scoped call selects the device first. Strided copies run as the op
// library's two-phase InplaceCopy.
#include <torch_fl/driver_abi.h>

#include "npu_glue.h"
#include "npu_ops.h"
#include "npu_runtime.h"

namespace {

npurtStream stream_of(tflStream s) { return reinterpret_cast<npurtStream>(s); }
npurtEvent event_of(tflEvent e) { return reinterpret_cast<npurtEvent>(e); }

tflStatus device_count(int32_t* count) {
  uint32_t devices = 0;
  const npuError error = npurtGetDeviceCount(&devices);
  *count = static_cast<int32_t>(devices);
  return error;
}

tflStatus device_properties(int32_t device, tflDeviceProperties* properties) {
  npurtDeviceInfo info{};
  const npuError error = npurtGetDeviceInfo(device, &info);
  if (error != NPU_SUCCESS) return error;
  *properties = tfl_make_device_properties(info.socName, info.versionMajor, info.versionMinor, info.hbmBytes,
                                           static_cast<int32_t>(info.aiCoreCount));
  return NPU_SUCCESS;
}

size_t memory_alignment() { return NPU_MEMORY_ALIGNMENT; }

tflStatus memory_info(int32_t device, size_t* free_bytes, size_t* total_bytes) {
  const npuError error = npurtSetDevice(device);
  return error != NPU_SUCCESS ? error : npurtGetMemInfo(free_bytes, total_bytes);
}

tflStatus busy_time(int32_t device, uint64_t* busy_ns, uint64_t* elapsed_ns) {
  npurtUtilization utilization{};
  npuError error = npurtSetDevice(device);
  if (error == NPU_SUCCESS) error = npurtGetDeviceUtilization(&utilization);
  *busy_ns = utilization.busyNs;
  *elapsed_ns = utilization.uptimeNs;
  return error;
}

tflStatus device_malloc(int32_t device, size_t bytes, void** ptr) {
  const npuError error = npurtSetDevice(device);
  return error != NPU_SUCCESS ? error : npurtMalloc(ptr, bytes);
}

tflStatus device_free(int32_t, void* ptr) { return npurtFree(ptr); }

int32_t device_of_pointer(const void* ptr) {
  int32_t device = -1;
  return npurtPointerGetDevice(ptr, &device) == NPU_SUCCESS ? device : -1;
}

tflStatus stream_create(int32_t device, int32_t priority, tflStream* stream) {
  npuError error = npurtSetDevice(device);
  npurtStream s = nullptr;
  if (error == NPU_SUCCESS) error = npurtCreateStreamWithPriority(&s, priority);
  *stream = reinterpret_cast<tflStream>(s);
  return error;
}
tflStatus stream_destroy(tflStream stream) { return npurtDestroyStream(stream_of(stream)); }
tflStatus stream_synchronize(tflStream stream) { return npurtSynchronizeStream(stream_of(stream)); }
tflStatus stream_query(tflStream stream, int32_t* idle) { return npurtStreamQuery(stream_of(stream), idle); }

tflStatus event_create(int32_t device, tflEvent* event) {
  npuError error = npurtSetDevice(device);
  npurtEvent e = nullptr;
  if (error == NPU_SUCCESS) error = npurtCreateEvent(&e);
  *event = reinterpret_cast<tflEvent>(e);
  return error;
}
tflStatus event_destroy(tflEvent event) { return npurtDestroyEvent(event_of(event)); }
tflStatus event_record(tflEvent event, tflStream stream) { return npurtRecordEvent(event_of(event), stream_of(stream)); }
tflStatus event_query(tflEvent event, int32_t* completed) { return npurtQueryEvent(event_of(event), completed); }
tflStatus event_synchronize(tflEvent event) { return npurtSynchronizeEvent(event_of(event)); }
tflStatus stream_wait_event(tflStream stream, tflEvent event) {
  return npurtStreamWaitEvent(stream_of(stream), event_of(event));
}
tflStatus event_elapsed_ms(tflEvent start, tflEvent end, float* ms) {
  return npurtEventElapsedTime(ms, event_of(start), event_of(end));
}

tflStatus memcpy_h2d(void* dst, const void* src, size_t bytes, tflStream s) {
  return npurtMemcpyAsync(dst, bytes, src, bytes, NPU_MEMCPY_HOST_TO_DEVICE, stream_of(s));
}
tflStatus memcpy_d2h(void* dst, const void* src, size_t bytes, tflStream s) {
  return npurtMemcpyAsync(dst, bytes, src, bytes, NPU_MEMCPY_DEVICE_TO_HOST, stream_of(s));
}
tflStatus memcpy_d2d(void* dst, const void* src, size_t bytes, tflStream s) {
  return npurtMemcpyAsync(dst, bytes, src, bytes, NPU_MEMCPY_DEVICE_TO_DEVICE, stream_of(s));
}
tflStatus memcpy_h2d_sync(void* dst, const void* src, size_t bytes, tflStream s) {
  return npurtMemcpy(dst, bytes, src, bytes, NPU_MEMCPY_HOST_TO_DEVICE, stream_of(s));
}
tflStatus memcpy_h2d_pinned(void* dst, const void* src, size_t bytes, tflStream s) {
  return npurtMemcpyAsync(dst, bytes, src, bytes, NPU_MEMCPY_PINNED_HOST_TO_DEVICE, stream_of(s));
}

npuDataType npu_dtype(tflDtype dtype) {
  switch (dtype) {
    case TFL_DTYPE_BOOL: return NPU_BOOL;
    case TFL_DTYPE_UINT8: return NPU_UINT8;
    case TFL_DTYPE_INT8: return NPU_INT8;
    case TFL_DTYPE_INT16: return NPU_INT16;
    case TFL_DTYPE_INT32: return NPU_INT32;
    case TFL_DTYPE_INT64: return NPU_INT64;
    case TFL_DTYPE_FLOAT16: return NPU_FLOAT16;
    case TFL_DTYPE_BFLOAT16: return NPU_BF16;
    case TFL_DTYPE_FLOAT32: return NPU_FLOAT;
    case TFL_DTYPE_FLOAT64: return NPU_DOUBLE;
    case TFL_DTYPE_COMPLEX64: return NPU_COMPLEX64;
    case TFL_DTYPE_COMPLEX128: return NPU_COMPLEX128;
  }
  return NPU_DT_UNDEFINED;
}

npu_glue::TensorHandle handle_of(const tflStridedView& v) {
  return npu_glue::TensorHandle(npuCreateTensor(v.sizes, v.ndim, npu_dtype(v.dtype), v.strides, 0, NPU_FORMAT_ND, v.data));
}

tflStatus copy_strided(const tflStridedView* dst, const tflStridedView* src, tflStream s) {
  if (dst->ndim > 8 || src->ndim > 8) return NPU_ERROR_NOT_SUPPORTED;
  const npu_glue::TensorHandle to = handle_of(*dst), from = handle_of(*src);
  uint64_t workspace_bytes = 0;
  npunnExecutor* executor = nullptr;
  const npuError error = npunnInplaceCopyGetWorkspaceSize(to, from, &workspace_bytes, &executor);
  return error != NPU_SUCCESS ? error : npunnInplaceCopy(nullptr, workspace_bytes, executor, stream_of(s));
}

const char* status_string(tflStatus status) { return npurtGetErrorName(status); }
int32_t status_is_out_of_memory(tflStatus status) { return status == NPU_ERROR_BAD_ALLOC; }

const char* last_error_detail() { return npurtGetRecentErrMsg(); }

const char* driver_counters() { return ""; }  // nothing beyond what the runtime counts
uint32_t device_dtypes(int32_t) { return TFL_ALL_DTYPES; }  // its spec decides alone
uint32_t device_capabilities(int32_t) { return TFL_CAP_IPC_MEMORY; }

static_assert(sizeof(npurtIpcMemHandle) == sizeof(tflIpcMemHandle), "an NPU IPC handle travels as the ABI's");
tflStatus ipc_get_mem_handle(void* ptr, tflIpcMemHandle* handle) {
  return npurtIpcGetMemHandle(reinterpret_cast<npurtIpcMemHandle*>(handle), ptr);
}
tflStatus ipc_open_mem_handle(int32_t device, const tflIpcMemHandle* handle, void** ptr, size_t* bytes) {
  const npuError error = npurtSetDevice(device);  // the NPU opens on the current device
  return error != NPU_SUCCESS ? error
                              : npurtIpcOpenMemHandle(ptr, bytes, reinterpret_cast<const npurtIpcMemHandle*>(handle));
}
tflStatus ipc_close_mem_handle(void* ptr) { return npurtIpcCloseMemHandle(ptr); }

const TflDriver kDriver = TFL_DRIVER_TABLE("npu");

}  // namespace

extern "C" const TflDriver* torch_fl_vendor_driver(void) { return &kDriver; }
