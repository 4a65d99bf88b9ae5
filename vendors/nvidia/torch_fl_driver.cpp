// The nvidia vendor's implementation of the Torch-FL driver ABI, directly on
// the CUDA runtime: the GPU's memory, streams and events are PyTorch's device
// under the name "nvgpu" (PrivateUse1), beside and independent of torch.cuda.
#include <torch_fl/driver_abi.h>

#include <cuda_runtime_api.h>

#include <cstring>

#include <string>

#include "nv_ops.h"

namespace {

thread_local std::string last_detail;

cudaStream_t stream_of(tflStream s) { return reinterpret_cast<cudaStream_t>(s); }
cudaEvent_t event_of(tflEvent e) { return reinterpret_cast<cudaEvent_t>(e); }

// The ABI's status is the CUDA error code; op-library failures in copies are
// reported as cudaErrorInvalidValue with their detail.
tflStatus noted(cudaError_t error, const char* what) {
  if (error != cudaSuccess) last_detail = std::string(what) + ": " + cudaGetErrorString(error);
  return static_cast<tflStatus>(error);
}

tflStatus device_count(int32_t* count) {
  int devices = 0;
  *count = cudaGetDeviceCount(&devices) == cudaSuccess ? devices : 0;
  cudaGetLastError();  // no GPU (or no driver) is zero devices, not an error: clear it
  return cudaSuccess;
}

tflStatus device_properties(int32_t device, tflDeviceProperties* properties) {
  cudaDeviceProp prop{};
  const cudaError_t error = cudaGetDeviceProperties(&prop, device);
  if (error != cudaSuccess) return noted(error, "cudaGetDeviceProperties");
  *properties = tfl_make_device_properties(prop.name, prop.major, prop.minor, prop.totalGlobalMem,
                                           prop.multiProcessorCount);
  return cudaSuccess;
}

size_t memory_alignment() { return 256; }  // cudaMalloc's guarantee

tflStatus memory_info(int32_t device, size_t* free_bytes, size_t* total_bytes) {
  cudaError_t error = cudaSetDevice(device);
  if (error == cudaSuccess) error = cudaMemGetInfo(free_bytes, total_bytes);
  return noted(error, "cudaMemGetInfo");
}

// The CUDA runtime has no busy-time query (NVML's utilisation samples do; this
// library does not link NVML), so `torch-fl info` shows the utilisation as unknown.
tflStatus busy_time(int32_t, uint64_t* busy_ns, uint64_t* elapsed_ns) {
  *busy_ns = *elapsed_ns = 0;
  last_detail = "busy_time: the CUDA runtime has no device busy-time query (NVML has; not linked)";
  return static_cast<tflStatus>(cudaErrorNotSupported);
}

tflStatus device_malloc(int32_t device, size_t bytes, void** ptr) {
  cudaError_t error = cudaSetDevice(device);
  if (error == cudaSuccess) error = cudaMalloc(ptr, bytes);
  if (error != cudaSuccess) cudaGetLastError();  // clear the sticky-free error so the retry can succeed
  return noted(error, "cudaMalloc");
}

tflStatus device_free(int32_t device, void* ptr) {
  cudaSetDevice(device);
  return noted(cudaFree(ptr), "cudaFree");
}

int32_t device_of_pointer(const void* ptr) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, ptr) != cudaSuccess) {
    cudaGetLastError();
    return -1;
  }
  return attributes.type == cudaMemoryTypeDevice ? attributes.device : -1;
}

// A query's cudaErrorNotReady is an answer (not done yet), not an error; it is cleared
// so that the next call does not report it.
tflStatus query_answer(cudaError_t error, int32_t* done, const char* call) {
  *done = error == cudaSuccess;
  if (error == cudaErrorNotReady) {
    cudaGetLastError();
    return cudaSuccess;
  }
  return noted(error, call);
}

tflStatus stream_create(int32_t device, int32_t priority, tflStream* stream) {
  cudaError_t error = cudaSetDevice(device);
  int least = 0, greatest = 0;
  if (error == cudaSuccess) error = cudaDeviceGetStreamPriorityRange(&least, &greatest);
  // The ABI's negative priorities are "high": CUDA's greatest (numerically lowest).
  cudaStream_t s = nullptr;
  if (error == cudaSuccess) error = cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, priority < 0 ? greatest : least);
  *stream = reinterpret_cast<tflStream>(s);
  return noted(error, "cudaStreamCreateWithPriority");
}
tflStatus stream_destroy(tflStream stream) { return noted(cudaStreamDestroy(stream_of(stream)), "cudaStreamDestroy"); }
tflStatus stream_synchronize(tflStream stream) {
  return noted(cudaStreamSynchronize(stream_of(stream)), "cudaStreamSynchronize");
}
tflStatus stream_query(tflStream stream, int32_t* idle) {
  return query_answer(cudaStreamQuery(stream_of(stream)), idle, "cudaStreamQuery");
}

tflStatus event_create(int32_t device, tflEvent* event) {
  cudaError_t error = cudaSetDevice(device);
  cudaEvent_t e = nullptr;
  if (error == cudaSuccess) error = cudaEventCreate(&e);
  *event = reinterpret_cast<tflEvent>(e);
  return noted(error, "cudaEventCreate");
}
tflStatus event_destroy(tflEvent event) { return noted(cudaEventDestroy(event_of(event)), "cudaEventDestroy"); }
tflStatus event_record(tflEvent event, tflStream stream) {
  return noted(cudaEventRecord(event_of(event), stream_of(stream)), "cudaEventRecord");
}
tflStatus event_query(tflEvent event, int32_t* completed) {
  return query_answer(cudaEventQuery(event_of(event)), completed, "cudaEventQuery");
}
tflStatus event_synchronize(tflEvent event) { return noted(cudaEventSynchronize(event_of(event)), "cudaEventSynchronize"); }
tflStatus stream_wait_event(tflStream stream, tflEvent event) {
  return noted(cudaStreamWaitEvent(stream_of(stream), event_of(event), 0), "cudaStreamWaitEvent");
}
tflStatus event_elapsed_ms(tflEvent start, tflEvent end, float* ms) {
  return noted(cudaEventElapsedTime(ms, event_of(start), event_of(end)), "cudaEventElapsedTime");
}

tflStatus copy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, tflStream s) {
  return noted(cudaMemcpyAsync(dst, src, bytes, kind, stream_of(s)), "cudaMemcpyAsync");
}
// From pageable memory, cudaMemcpyAsync returns once the host buffer has been
// staged, which is what the ABI asks of an asynchronous host-to-device copy.
tflStatus memcpy_h2d(void* dst, const void* src, size_t bytes, tflStream s) {
  return copy(dst, src, bytes, cudaMemcpyHostToDevice, s);
}
tflStatus memcpy_d2h(void* dst, const void* src, size_t bytes, tflStream s) {
  return copy(dst, src, bytes, cudaMemcpyDeviceToHost, s);
}
tflStatus memcpy_d2d(void* dst, const void* src, size_t bytes, tflStream s) {
  return copy(dst, src, bytes, cudaMemcpyDeviceToDevice, s);
}
// The runtime's pinned blocks are not registered with CUDA, so the CUDA runtime
// stages them as pageable memory: correct, and as fast as memcpy_h2d.
tflStatus memcpy_h2d_pinned(void* dst, const void* src, size_t bytes, tflStream s) {
  return copy(dst, src, bytes, cudaMemcpyHostToDevice, s);
}
tflStatus memcpy_h2d_sync(void* dst, const void* src, size_t bytes, tflStream s) {
  const tflStatus status = copy(dst, src, bytes, cudaMemcpyHostToDevice, s);
  return status != cudaSuccess ? status : stream_synchronize(s);
}

nvopsDtype_t nv_dtype(tflDtype dtype) {
  switch (dtype) {
    case TFL_DTYPE_FLOAT32: return NVOPS_F32;
    case TFL_DTYPE_FLOAT16: return NVOPS_F16;
    case TFL_DTYPE_BFLOAT16: return NVOPS_BF16;
    case TFL_DTYPE_INT32: return NVOPS_I32;
    case TFL_DTYPE_INT64: return NVOPS_I64;
    case TFL_DTYPE_BOOL: return NVOPS_BOOL;
    case TFL_DTYPE_FLOAT64: return NVOPS_F64;
    case TFL_DTYPE_INT8: return NVOPS_I8;
    case TFL_DTYPE_INT16: return NVOPS_I16;
    case TFL_DTYPE_UINT8: return NVOPS_U8;
    case TFL_DTYPE_COMPLEX64: return NVOPS_C64;
    case TFL_DTYPE_COMPLEX128: return NVOPS_C128;
    default: return NVOPS_INVALID;
  }
}

tflStatus copy_strided(const tflStridedView* dst, const tflStridedView* src, tflStream s) {
  static_assert(NVOPS_MAX_DIMS >= TFL_MAX_DIMS, "the op library's copy must take every view the ABI can describe");
  nvopsTensor_t to{}, from{};
  for (auto [view, desc] : {std::pair{dst, &to}, std::pair{src, &from}}) {
    desc->data = view->data;
    desc->dtype = nv_dtype(view->dtype);
    desc->dim = view->ndim;
    for (int i = 0; i < view->ndim; ++i) desc->shape[i] = view->sizes[i], desc->stride[i] = view->strides[i];
  }
  const nvopsStatus_t status = nvopsCopy(stream_of(s), &to, &from);
  if (status != NVOPS_SUCCESS) {
    last_detail = std::string(nvopsGetErrorString(status)) + ": " + nvopsGetLastErrorDetail();
    return status == NVOPS_ERROR_CUDA ? cudaErrorLaunchFailure : cudaErrorNotSupported;
  }
  return cudaSuccess;
}

const char* status_string(tflStatus status) { return cudaGetErrorString(static_cast<cudaError_t>(status)); }
const char* last_error_detail() { return last_detail.c_str(); }
int32_t status_is_out_of_memory(tflStatus status) { return status == cudaErrorMemoryAllocation; }

const char* driver_counters() { return ""; }  // nothing beyond what the runtime counts
uint32_t device_dtypes(int32_t) { return TFL_ALL_DTYPES; }  // its spec decides alone
// device_malloc is plain cudaMalloc, which CUDA IPC requires.
uint32_t device_capabilities(int32_t) { return TFL_CAP_IPC_MEMORY; }

static_assert(sizeof(cudaIpcMemHandle_t) == sizeof(tflIpcMemHandle), "a CUDA IPC handle travels as the ABI's");
tflStatus ipc_get_mem_handle(void* ptr, tflIpcMemHandle* handle) {
  cudaIpcMemHandle_t cuda{};
  const cudaError_t error = cudaIpcGetMemHandle(&cuda, ptr);
  if (error == cudaSuccess) std::memcpy(handle, &cuda, sizeof cuda);
  return noted(error, "cudaIpcGetMemHandle");
}
tflStatus ipc_open_mem_handle(int32_t device, const tflIpcMemHandle* handle, void** ptr, size_t* bytes) {
  cudaIpcMemHandle_t cuda{};
  std::memcpy(&cuda, handle, sizeof cuda);
  cudaError_t error = cudaSetDevice(device);
  if (error == cudaSuccess) error = cudaIpcOpenMemHandle(ptr, cuda, cudaIpcMemLazyEnablePeerAccess);
  // The runtime API cannot tell an allocation's size (the driver API's
  // cuMemGetAddressRange can, but this library does not link libcuda).
  *bytes = 0;
  return noted(error, "cudaIpcOpenMemHandle");
}
tflStatus ipc_close_mem_handle(void* ptr) { return noted(cudaIpcCloseMemHandle(ptr), "cudaIpcCloseMemHandle"); }

const TflDriver kDriver = TFL_DRIVER_TABLE("nvidia");

}  // namespace

extern "C" const TflDriver* torch_fl_vendor_driver(void) { return &kDriver; }
