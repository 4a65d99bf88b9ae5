#include "ocl_glue.h"

#include <ATen/ExpandUtils.h>
#include <c10/util/Exception.h>

#include <cmath>
#include <limits>

#include <torch_fl/descriptor_arrays.h>
#include <torch_fl/generator.h>
#include <torch_fl/sdk_dtypes.h>

#include "ocl_memory.h"
#include "ocl_status.h"

namespace ocl_glue {

using torch_fl::ocl::ElementType;

namespace {

constexpr torch_fl::SdkDtypes<oclopsDtype_t> kDtypes(ElementType::kBool, ElementType::kU8, ElementType::kI8,
                                                     ElementType::kI16, ElementType::kI32, ElementType::kI64,
                                                     ElementType::kF16, ElementType::kBF16, ElementType::kF32,
                                                     ElementType::kF64, ElementType::kC64, ElementType::kC128);

}  // namespace

oclopsDtype_t ocl_dtype(c10::ScalarType type) {
  const std::optional<oclopsDtype_t> dtype = kDtypes.sdk_dtype(type);
  TORCH_CHECK(dtype.has_value(), "[opencl] no OpenCL element type for dtype ", type);
  return *dtype;
}

oclopsTensor_t describe(const at::Tensor& tensor) {
  if (!tensor.defined()) return oclopsTensor_t{};  // an absent operand: no buffer
  oclopsTensor_t desc{};
  desc.dim = torch_fl::copy_geometry(tensor, desc.shape, desc.stride, "opencl", "a tensor");
  desc.dtype = ocl_dtype(tensor.scalar_type());
  int64_t last = 0;  // the furthest element, which must lie in the same buffer
  for (int32_t i = 0; i < desc.dim; ++i) last += (desc.shape[i] - 1) * desc.stride[i];
  if (tensor.numel() == 0) return desc;  // no buffer: nothing is read or written
  const size_t item = tensor.element_size();
  torch_fl::ocl::Resolved resolved;
  const int32_t status = torch_fl::ocl::resolve(tensor.data_ptr(), static_cast<size_t>(last + 1) * item, &resolved);
  TORCH_CHECK(status == torch_fl::ocl::kSuccess, "[opencl] a tensor's data is not OpenCL memory: ",
              torch_fl::ocl::last_detail());
  TORCH_CHECK(resolved.offset % item == 0, "[opencl] a ", tensor.scalar_type(), " tensor at byte offset ",
              resolved.offset, " of its buffer is not on an element boundary");
  desc.buffer = resolved.buffer;
  desc.offset = static_cast<int64_t>(resolved.offset / item);
  return desc;
}

oclopsTensor_t describe_optional(const std::optional<at::Tensor>& tensor) {
  return torch_fl::describe_optional<oclopsTensor_t, describe>(tensor);
}

oclopsDims_t dims(at::OptionalIntArrayRef values) {
  return torch_fl::dims_of<oclopsDims_t>(values, "opencl", "a reduction");
}

TensorListDescriptor describe_list(const at::ITensorListRef& tensors) { return TensorListDescriptor(tensors); }

oclopsDims_t one_dim(int64_t dim) { return dims(at::IntArrayRef(dim)); }

oclopsDims_t optional_dim(std::optional<int64_t> dim) { return dim.has_value() ? one_dim(*dim) : oclopsDims_t{}; }

oclopsScalar_t correction(const std::optional<at::Scalar>& value) {
  return value.has_value() ? scalar(*value) : oclopsScalar_t{1.0, 1, false};
}

oclopsScalar_t scalar(const at::Scalar& value) {
  TORCH_CHECK(!value.isComplex(), "[opencl] complex scalars are not supported");
  if (value.isIntegral(/*includeBool=*/true)) return oclopsScalar_t{value.toDouble(), value.toLong(), false};
  const double floating = value.toDouble();
  // Within int64's range the cast is exact for whole numbers; beyond it, or not finite, no integer says it.
  const bool representable = std::isfinite(floating) && std::fabs(floating) < 9.2e18;
  const int64_t integer = representable ? static_cast<int64_t>(floating) : 0;
  return oclopsScalar_t{floating, integer, !representable || static_cast<double>(integer) != floating};
}

oclopsScalar_t logit_eps(std::optional<double> eps) {
  return oclopsScalar_t{eps.has_value() ? *eps : -1.0, 0, true};
}

oclopsScalar_t lower_bound(const std::optional<at::Scalar>& value) {
  if (value.has_value()) return scalar(*value);
  return oclopsScalar_t{-INFINITY, std::numeric_limits<int64_t>::min(), false};
}

oclopsScalar_t upper_bound(const std::optional<at::Scalar>& value) {
  if (value.has_value()) return scalar(*value);
  return oclopsScalar_t{INFINITY, std::numeric_limits<int64_t>::max(), false};
}

oclopsUnaryOp_t gelu_op(c10::string_view approximate) {
  if (approximate == "tanh") return OCLOPS_GELU_TANH;
  TORCH_CHECK(approximate == "none", "[opencl] gelu: unknown approximation '", approximate, "'");
  return OCLOPS_GELU;
}

oclopsBinaryOp_t gelu_backward_op(c10::string_view approximate) {
  if (approximate == "tanh") return OCLOPS_GELU_TANH_BACKWARD;
  TORCH_CHECK(approximate == "none", "[opencl] gelu_backward: unknown approximation '", approximate, "'");
  return OCLOPS_GELU_BACKWARD;
}

oclopsBinaryOp_t div_mode_op(std::optional<c10::string_view> rounding_mode) {
  if (!rounding_mode.has_value()) return OCLOPS_DIV;
  if (*rounding_mode == "trunc") return OCLOPS_DIV_TRUNC;
  TORCH_CHECK(*rounding_mode == "floor", "[opencl] div: unknown rounding mode '", *rounding_mode, "'");
  return OCLOPS_DIV_FLOOR;
}

namespace {
at::Tensor meta_result(const at::Tensor& like, at::IntArrayRef shape, c10::ScalarType dtype) {
  const auto options = at::TensorOptions().dtype(dtype).device(c10::kMeta);
  if (like.sizes() == shape) {
    return at::empty_strided(shape, at::infer_dense_strides(like.sizes(), like.strides()), options);
  }
  return at::empty(shape, options);
}
}  // namespace

at::Tensor bool_result(const at::Tensor& self) { return meta_result(self, self.sizes(), at::kBool); }

at::Tensor binary_result(const at::Tensor& self, const at::Tensor& other, const at::Scalar&) {
  return meta_result(self, at::infer_size(self.sizes(), other.sizes()), at::result_type(self, other));
}

at::Tensor masked_fill_result(const at::Tensor& self, const at::Tensor& mask, const at::Scalar&) {
  // ATen's masked_fill clones self, broadcast to the mask, contiguously, then fills in place.
  return at::empty(at::infer_size(self.sizes(), mask.sizes()), self.options().device(c10::kMeta));
}

at::Tensor rsub_result(const at::Tensor& self, const at::Tensor& other, const at::Scalar&) {
  // ATen computes rsub as sub(other, self): the result is laid out as that
  // TensorIterator lays it out, which sub's meta kernel reproduces.
  const auto meta = [](const at::Tensor& t) {
    return at::empty_strided(t.sizes(), t.strides(), t.options().device(c10::kMeta));
  };
  return at::sub(meta(other), meta(self));
}

oclopsRandState_t rand_state(const std::optional<at::Generator>& generator) {
  const torch_fl::RngState state = torch_fl::next_rng_state(generator);
  return oclopsRandState_t{state.seed, state.offset};
}

at::Tensor reduced_result(const at::Tensor& self, at::IntArrayRef dim, bool keepdim) {
  return moment_result(self, dim, std::nullopt, keepdim);
}

at::Tensor moment_result(const at::Tensor& self, at::OptionalIntArrayRef dim, const std::optional<at::Scalar>&,
                         bool keepdim) {
  // The shape rule of a sum over the same dims (its meta kernel), in self's dtype.
  const at::Tensor meta = at::empty(self.sizes(), self.options().device(c10::kMeta));
  return at::sum(meta, dim, keepdim, self.scalar_type());
}

at::Tensor total_result(const at::Tensor& self, std::optional<c10::ScalarType> dtype) {
  return at::sum(at::empty(self.sizes(), self.options().device(c10::kMeta)), dtype);
}

at::Tensor extreme_result(const at::Tensor& self) { return at::empty({}, self.options().device(c10::kMeta)); }

at::Tensor matrix_operand(const at::Tensor& tensor) {
  const oclopsTensor_t desc = describe(tensor);
  return oclopsGemmTakesOperand(&desc) ? tensor : tensor.contiguous();
}

}  // namespace ocl_glue
