// What the op library's files share: status helpers, descriptor geometry, and
// the element macros of a kernel specialised for its operands' dtypes.
#pragma once

#include <string>

#include "ocl_geometry.h"
#include "ocl_ops.h"
#include "ocl_platform.h"

namespace torch_fl::ocl::ops {

oclopsStatus_t invalid(std::string detail);
oclopsStatus_t not_supported(std::string detail);
oclopsStatus_t clblast_failed(std::string detail);
// A driver status: OCLOPS_SUCCESS, or OCLOPS_ERROR_OPENCL with the driver's detail.
oclopsStatus_t from_driver(int32_t status);

int64_t numel(const oclopsTensor_t& tensor);

// Operand `k` of `geometry` (out's shape) reading `tensor` broadcast to it;
// false when the shapes do not broadcast.
bool broadcast_into(Geometry* geometry, int k, const oclopsTensor_t& tensor);

// The device behind a stream (its fp64 decides the compute type).
const Device& device_of(oclopsStream_t stream);

// The kernel sources of kernels/ (embedded at build time), after the driver's indexing.
extern const char* const kMathSource;  // helpers of the elementwise expressions
extern const char* const kElementwiseSource;
extern const char* const kReduceSource;
extern const char* const kRandomSource;
extern const char* const kConvSource;
extern const char* const kBatchNormSource;
extern const char* const kPoolSource;
extern const char* const kDataSource;
extern const char* const kNnSource;

}  // namespace torch_fl::ocl::ops
