#include "mlu_glue.h"

#include <c10/util/Exception.h>

#include <torch_fl/descriptor_arrays.h>
#include <torch_fl/sdk_dtypes.h>

namespace mlu_glue {
namespace {

constexpr torch_fl::SdkDtypes<mluDataType_t> kDtypes(MLU_DTYPE_BOOL, MLU_DTYPE_UINT8, MLU_DTYPE_INT8, MLU_DTYPE_INT16,
                                                     MLU_DTYPE_INT32, MLU_DTYPE_INT64, MLU_DTYPE_HALF,
                                                     MLU_DTYPE_BFLOAT16, MLU_DTYPE_FLOAT, MLU_DTYPE_DOUBLE,
                                                     MLU_DTYPE_COMPLEX_FLOAT, MLU_DTYPE_COMPLEX_DOUBLE);

}  // namespace

mluDataType_t mlu_dtype(c10::ScalarType type) { return kDtypes.sdk_dtype(type).value_or(MLU_DTYPE_INVALID); }

mluTensor_t describe(const at::Tensor& tensor) {
  return torch_fl::describe_operand<mluTensor_t>(tensor, mlu_dtype, MLU_DTYPE_INVALID, "mlu",
                                                 "the MLU op library's tensors");
}

mluTensor_t describe_optional(const std::optional<at::Tensor>& tensor) {
  return torch_fl::describe_optional<mluTensor_t, describe>(tensor);
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
  mluIntList_t list{};
  list.count = torch_fl::copy_dims(values, list.values, "mlu", "an int list");
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
