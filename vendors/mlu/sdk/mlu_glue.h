// SDK glue of the MLU backend: the converters specs/mlu.yaml names, turning
// ATen values into the MLU op library's argument types.
#pragma once

#include <ATen/ATen.h>

#include <optional>
#include <vector>

#include <torch_fl/descriptor_list.h>
#include <torch_fl/driver_abi.h>
#include <torch_fl/generator.h>

#include "mlu_ops.h"

namespace mlu_glue {

mluDataType_t mlu_dtype(c10::ScalarType type);

// A descriptor of a device tensor (shape, strides, dtype, address).
mluTensor_t describe(const at::Tensor& tensor);
// An absent optional (or an undefined tensor) becomes a descriptor with data == NULL.
mluTensor_t describe_optional(const std::optional<at::Tensor>& tensor);

// Owns the descriptors of a tensor list for the duration of one SDK call.
using TensorListDescriptor = torch_fl::DescriptorList<mluTensor_t, mluTensorList_t, describe>;
TensorListDescriptor describe_list(const at::ITensorListRef& tensors);

mluScalar_t scalar(const at::Scalar& value);
// An absent optional scalar has kind MLU_SCALAR_NONE.
mluScalar_t optional_scalar(const std::optional<at::Scalar>& value);
// A `float?` argument (SDPA's scale): MLU_SCALAR_NONE when absent.
mluScalar_t optional_float(std::optional<double> value);
// An optional int as a list of zero (absent) or one value; count -1 when absent.
mluIntList_t optional_int(std::optional<int64_t> value);
// An absent optional bool means "true" in the ops that take one (native_dropout's train).
bool optional_bool_true(std::optional<bool> value);
mluGeluApproximation_t gelu_approximation(c10::string_view approximate);
mluIntList_t int_list(at::IntArrayRef values);
mluIntList_t int_list(at::OptionalIntArrayRef values);

// One reservation of the device generator's counter for a random kernel.
mluRandState_t rand_state(const std::optional<at::Generator>& generator);
// The same from the current device's default generator (ops without a Generator argument).
mluRandState_t default_rand_state();

// The Torch-FL driver stream is the MLU queue (see torch_fl_driver.cpp).
inline mluQueue_t queue_of(tflStream stream) { return reinterpret_cast<mluQueue_t>(stream); }

}  // namespace mlu_glue
