#include "nv_glue.h"

#include <c10/util/Exception.h>

#include <torch_fl/descriptor_arrays.h>
#include <torch_fl/generator.h>

namespace nv_glue {

nvopsDtype_t nv_dtype(c10::ScalarType type) {
  switch (type) {
    case at::kFloat: return NVOPS_F32;
    case at::kHalf: return NVOPS_F16;
    case at::kBFloat16: return NVOPS_BF16;
    case at::kInt: return NVOPS_I32;
    case at::kLong: return NVOPS_I64;
    case at::kBool: return NVOPS_BOOL;
    case at::kDouble: return NVOPS_F64;
    case at::kChar: return NVOPS_I8;
    case at::kShort: return NVOPS_I16;
    case at::kByte: return NVOPS_U8;
    case at::kComplexFloat: return NVOPS_C64;
    case at::kComplexDouble: return NVOPS_C128;
    default: return NVOPS_INVALID;
  }
}

nvopsTensor_t describe(const at::Tensor& tensor) {
  if (!tensor.defined()) return describe_optional(std::nullopt);
  return torch_fl::describe_strided<nvopsTensor_t>(tensor, nv_dtype(tensor.scalar_type()), "nvidia", "a tensor");
}

nvopsTensor_t describe_optional(const std::optional<at::Tensor>& tensor) {
  if (tensor.has_value() && tensor->defined()) return describe(*tensor);
  nvopsTensor_t absent{};
  absent.dtype = NVOPS_INVALID;
  return absent;
}

nvopsDims_t dims(at::OptionalIntArrayRef values) {
  nvopsDims_t result{};
  if (!values.has_value()) return result;
  result.count = torch_fl::copy_dims(*values, result.dims, "nvidia", "a reduction");
  return result;
}

double scalar(const at::Scalar& value) {
  TORCH_CHECK(!value.isComplex(), "[nvidia] complex scalars are not supported");
  return value.toDouble();
}

int32_t rank(at::IntArrayRef normalized_shape) { return static_cast<int32_t>(normalized_shape.size()); }

nvopsDims_t one_dim(int64_t dim) {
  nvopsDims_t result{};
  result.count = 1;
  result.dims[0] = dim;
  return result;
}

TensorListDescriptor describe_list(const at::ITensorListRef& tensors) { return TensorListDescriptor(tensors); }

at::Tensor matrix_operand(const at::Tensor& tensor) {
  const nvopsTensor_t desc = describe(tensor);
  return nvopsMatmulTakesOperand(&desc) ? tensor : tensor.contiguous();
}

nvopsUnaryOp_t gelu_op(c10::string_view approximate) {
  if (approximate == "tanh") return NVOPS_GELU_TANH;
  TORCH_CHECK(approximate == "none", "[nvidia] gelu: unknown approximation '", approximate, "'");
  return NVOPS_GELU;
}

nvopsRandState_t default_rand_state() {
  const torch_fl::RngState state = torch_fl::next_rng_state(std::nullopt);
  return nvopsRandState_t{state.seed, state.offset};
}

}  // namespace nv_glue
