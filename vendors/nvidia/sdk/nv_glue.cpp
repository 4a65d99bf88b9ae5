#include "nv_glue.h"

#include <c10/util/Exception.h>

#include <torch_fl/descriptor_arrays.h>
#include <torch_fl/generator.h>
#include <torch_fl/sdk_dtypes.h>

namespace nv_glue {
namespace {

constexpr torch_fl::SdkDtypes<nvopsDtype_t> kDtypes(NVOPS_BOOL, NVOPS_U8, NVOPS_I8, NVOPS_I16, NVOPS_I32, NVOPS_I64,
                                                    NVOPS_F16, NVOPS_BF16, NVOPS_F32, NVOPS_F64, NVOPS_C64, NVOPS_C128);

}  // namespace

nvopsDtype_t nv_dtype(c10::ScalarType type) { return kDtypes.sdk_dtype(type).value_or(NVOPS_INVALID); }

nvopsTensor_t describe(const at::Tensor& tensor) {
  return torch_fl::describe_operand<nvopsTensor_t>(tensor, nv_dtype, NVOPS_INVALID, "nvidia", "a tensor");
}

nvopsTensor_t describe_optional(const std::optional<at::Tensor>& tensor) {
  return torch_fl::describe_optional<nvopsTensor_t, describe>(tensor);
}

nvopsDims_t dims(at::OptionalIntArrayRef values) {
  return torch_fl::dims_of<nvopsDims_t>(values, "nvidia", "a reduction");
}

double scalar(const at::Scalar& value) {
  TORCH_CHECK(!value.isComplex(), "[nvidia] complex scalars are not supported");
  return value.toDouble();
}

int32_t rank(at::IntArrayRef normalized_shape) { return static_cast<int32_t>(normalized_shape.size()); }

nvopsDims_t one_dim(int64_t dim) { return dims(at::IntArrayRef(dim)); }

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
