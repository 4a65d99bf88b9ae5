// The op library's error reporting and the entry step every call takes
// (nv_internal.cuh says why).
#include "nv_internal.cuh"

namespace nvops {
namespace {
thread_local std::string last_error_detail;
}  // namespace

nvopsStatus_t fail(nvopsStatus_t status, std::string detail) {
  last_error_detail = std::move(detail);
  return status;
}

nvopsStatus_t enter(cudaStream_t stream, const char* op) {
  cudaGetLastError();
  int stream_device = 0, current = 0;
  cudaError_t error = cudaStreamGetDevice(stream, &stream_device);
  if (error == cudaSuccess) error = cudaGetDevice(&current);
  if (error == cudaSuccess && current != stream_device) error = cudaSetDevice(stream_device);
  if (error != cudaSuccess) {
    cudaGetLastError();
    return fail(NVOPS_ERROR_CUDA, std::string(op) + ": selecting the stream's device: " + cudaGetErrorString(error));
  }
  return NVOPS_SUCCESS;
}

nvopsStatus_t check_launch(const char* op) {
  const cudaError_t error = cudaGetLastError();
  if (error != cudaSuccess) return fail(NVOPS_ERROR_CUDA, std::string(op) + ": " + cudaGetErrorString(error));
  return NVOPS_SUCCESS;
}

}  // namespace nvops

extern "C" {

const char* nvopsGetErrorString(nvopsStatus_t status) {
  switch (status) {
    case NVOPS_SUCCESS: return "NVOPS_SUCCESS";
    case NVOPS_ERROR_INVALID_ARGUMENT: return "NVOPS_ERROR_INVALID_ARGUMENT: invalid argument";
    case NVOPS_ERROR_NOT_SUPPORTED: return "NVOPS_ERROR_NOT_SUPPORTED: not supported by the op library";
    case NVOPS_ERROR_CUDA: return "NVOPS_ERROR_CUDA: a CUDA runtime call failed";
    case NVOPS_ERROR_CUBLAS: return "NVOPS_ERROR_CUBLAS: a cuBLAS call failed";
  }
  return "NVOPS_ERROR_UNKNOWN";
}

const char* nvopsGetLastErrorDetail(void) { return nvops::last_error_detail.c_str(); }

}  // extern "C"
