#include "mlu_glue.h"

#include <algorithm>

#include <c10/util/Exception.h>

namespace mlu_glue {

mluDataType_t mlu_dtype(c10::ScalarType type) {
  switch (type) {
    case at::kBool: return MLU_DTYPE_BOOL;
    case at::kByte: return MLU_DTYPE_UINT8;
    case at::kChar: return MLU_DTYPE_INT8;
    case at::kShort: return MLU_DTYPE_INT16;
    case at::kInt: return MLU_DTYPE_INT32;
    case at::kLong: return MLU_DTYPE_INT64;
    case at::kHalf: return MLU_DTYPE_HALF;
    case at::kBFloat16: return MLU_DTYPE_BFLOAT16;
    case at::kFloat: return MLU_DTYPE_FLOAT;
    case at::kDouble: return MLU_DTYPE_DOUBLE;
    case at::kComplexFloat: return MLU_DTYPE_COMPLEX_FLOAT;
    case at::kComplexDouble: return MLU_DTYPE_COMPLEX_DOUBLE;
    default: return MLU_DTYPE_INVALID;
  }
}

mluTensor_t describe(const at::Tensor& tensor) {
  if (!tensor.defined()) return describe_optional(std::nullopt);
  TORCH_CHECK(tensor.dim() <= MLU_MAX_DIMS, "[mlu] tensors of more than ", MLU_MAX_DIMS,
              " dims are not supported by the MLU op library, got ", tensor.dim());
  mluTensor_t desc{};
  desc.data = tensor.numel() == 0 ? nullptr : tensor.data_ptr();
  desc.dtype = mlu_dtype(tensor.scalar_type());
  desc.dim = static_cast<int32_t>(tensor.dim());
  // Whole arrays at once: size(i) and stride(i) wrap and check each index.
  const at::IntArrayRef sizes = tensor.sizes(), strides = tensor.strides();
  std::copy(sizes.begin(), sizes.end(), desc.shape);
  std::copy(strides.begin(), strides.end(), desc.stride);
  return desc;
}

mluTensor_t describe_optional(const std::optional<at::Tensor>& tensor) {
  if (tensor.has_value() && tensor->defined()) return describe(*tensor);
  mluTensor_t absent{};
  absent.data = nullptr;
  absent.dtype = MLU_DTYPE_INVALID;
  return absent;
}

TensorListDescriptor describe_list(const at::ITensorListRef& tensors) { return TensorListDescriptor(tensors); }

mluScalar_t scalar(const at::Scalar& value) {
  mluScalar_t s{};
  if (value.isBoolean()) {
    s.kind = MLU_SCALAR_BOOL;
    s.i = value.toBool() ? 1 : 0;
  } else if (value.isIntegral(/*includeBool=*/false)) {
    s.kind = MLU_SCALAR_INT;
    s.i = value.toLong();
  } else {
    TORCH_CHECK(!value.isComplex(), "[mlu] complex scalars are not supported by the MLU op library");
    s.kind = MLU_SCALAR_FLOAT;
    s.f = value.toDouble();
  }
  return s;
}

mluScalar_t optional_scalar(const std::optional<at::Scalar>& value) {
  if (value.has_value()) return scalar(*value);
  mluScalar_t none{};
  none.kind = MLU_SCALAR_NONE;
  return none;
}

mluScalar_t optional_float(std::optional<double> value) {
  mluScalar_t s{};
  s.kind = value.has_value() ? MLU_SCALAR_FLOAT : MLU_SCALAR_NONE;
  s.f = value.value_or(0.0);
  return s;
}

mluIntList_t optional_int(std::optional<int64_t> value) {
  mluIntList_t list{};
  list.count = value.has_value() ? 1 : -1;
  if (value.has_value()) list.values[0] = *value;
  return list;
}

bool optional_bool_true(std::optional<bool> value) { return value.value_or(true); }

mluGeluApproximation_t gelu_approximation(c10::string_view approximate) {
  if (approximate == "tanh") return MLU_GELU_TANH;
  TORCH_CHECK(approximate == "none", "[mlu] gelu: unknown approximation '", approximate, "'");
  return MLU_GELU_NONE;
}

mluIntList_t int_list(at::IntArrayRef values) {
  TORCH_CHECK(values.size() <= MLU_MAX_DIMS, "[mlu] at most ", MLU_MAX_DIMS, " dims, got ", values.size());
  mluIntList_t list{};
  list.count = static_cast<int32_t>(values.size());
  for (size_t i = 0; i < values.size(); ++i) list.values[i] = values[i];
  return list;
}

mluIntList_t int_list(at::OptionalIntArrayRef values) {
  if (!values.has_value()) {
    mluIntList_t all{};
    all.count = -1;
    return all;
  }
  return int_list(*values);
}

mluRandState_t default_rand_state() { return rand_state(std::nullopt); }

mluRandState_t rand_state(const std::optional<at::Generator>& generator) {
  const torch_fl::RngState state = torch_fl::next_rng_state(generator);
  return mluRandState_t{state.seed, state.offset};
}

}  // namespace mlu_glue
