// SDK glue of the MLU backend: the converters specs/mlu.yaml names, turning
// ATen values into the MLU op library's argument types.
#pragma once

#include <ATen/ATen.h>

#include <optional>

#include <torch_fl/driver_abi.h>
#include <torch_fl/generator.h>

#include "mlu_ops.h"

namespace mlu_glue {

mluDataType_t mlu_dtype(c10::ScalarType type);

// A descriptor of a device tensor (shape, strides, dtype, address).
mluTensor_t describe(const at::Tensor& tensor);
// An absent optional becomes a descriptor with data == NULL.
mluTensor_t describe_optional(const std::optional<at::Tensor>& tensor);

mluScalar_t scalar(const at::Scalar& value);
mluIntList_t int_list(at::IntArrayRef values);
mluIntList_t int_list(at::OptionalIntArrayRef values);

// One reservation of the device generator's counter for a random kernel.
mluRandState_t rand_state(const std::optional<at::Generator>& generator);

// The Torch-FL driver stream is the MLU queue (see torch_fl_driver.cpp).
inline mluQueue_t queue_of(tflStream stream) { return reinterpret_cast<mluQueue_t>(stream); }

}  // namespace mlu_glue
