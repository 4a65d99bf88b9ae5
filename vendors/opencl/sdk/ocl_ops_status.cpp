// The op library's statuses, its per-thread detail, and the descriptor helpers
// every op uses.
#include "ocl_ops_internal.h"

#include "ocl_status.h"

namespace torch_fl::ocl::ops {
namespace {
thread_local std::string tls_detail;

oclopsStatus_t failed(oclopsStatus_t status, std::string detail) {
  tls_detail = std::move(detail);
  return status;
}
}  // namespace

oclopsStatus_t invalid(std::string detail) { return failed(OCLOPS_ERROR_INVALID_ARGUMENT, std::move(detail)); }
oclopsStatus_t not_supported(std::string detail) { return failed(OCLOPS_ERROR_NOT_SUPPORTED, std::move(detail)); }
oclopsStatus_t clblast_failed(std::string detail) { return failed(OCLOPS_ERROR_CLBLAST, std::move(detail)); }

oclopsStatus_t from_driver(int32_t status) {
  if (status == kSuccess) return OCLOPS_SUCCESS;
  return failed(OCLOPS_ERROR_OPENCL, std::string(status_name(status)) + ": " + last_detail());
}

int64_t numel(const oclopsTensor_t& tensor) {
  int64_t count = 1;
  for (int32_t d = 0; d < tensor.dim; ++d) count *= tensor.shape[d];
  return count;
}

bool broadcast_into(Geometry* geometry, int k, const oclopsTensor_t& tensor) {
  const int64_t ndim = geometry->ndim;
  if (tensor.dim > ndim) return false;
  int64_t strides[kMaxDims] = {0};
  for (int32_t d = 0; d < tensor.dim; ++d) {  // aligned at the trailing dims, as broadcasting is
    const int64_t target = ndim - tensor.dim + d;
    if (tensor.shape[d] == geometry->sizes[target]) {
      strides[target] = tensor.shape[d] == 1 ? 0 : tensor.stride[d];
    } else if (tensor.shape[d] != 1) {
      return false;
    }
  }
  set_operand(geometry, k, strides, tensor.offset);
  return true;
}

const Device& device_of(oclopsStream_t stream) {
  Platform* platform = nullptr;
  Device* device = nullptr;
  Platform::get(&platform);  // a stream exists: the platform is up
  platform->device(stream->device(), &device);
  return *device;
}

}  // namespace torch_fl::ocl::ops

const char* oclopsGetErrorString(oclopsStatus_t status) {
  switch (status) {
    case OCLOPS_SUCCESS: return "OCLOPS_SUCCESS";
    case OCLOPS_ERROR_INVALID_ARGUMENT: return "OCLOPS_ERROR_INVALID_ARGUMENT";
    case OCLOPS_ERROR_NOT_SUPPORTED: return "OCLOPS_ERROR_NOT_SUPPORTED";
    case OCLOPS_ERROR_OPENCL: return "OCLOPS_ERROR_OPENCL";
    case OCLOPS_ERROR_CLBLAST: return "OCLOPS_ERROR_CLBLAST";
  }
  return "unknown oclops status";
}

const char* oclopsGetLastErrorDetail(void) { return torch_fl::ocl::ops::tls_detail.c_str(); }
