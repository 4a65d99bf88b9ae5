// SDK glue of the opencl backend: the converters specs/opencl.yaml names.
//
// PyTorch holds an OpenCL tensor's data as an opaque address (the driver's,
// see driver/ocl_address_space.h); `describe` resolves it to what OpenCL and
// CLBlast take, a buffer and an offset in elements, with the tensor's geometry.
#pragma once

#include <ATen/ATen.h>

#include <optional>

#include <torch_fl/driver_abi.h>

#include "ocl_ops.h"

namespace ocl_glue {

oclopsDtype_t ocl_dtype(c10::ScalarType type);
oclopsTensor_t describe(const at::Tensor& tensor);
oclopsTensor_t describe_optional(const std::optional<at::Tensor>& tensor);
// Reduction dims; absent or empty: all dims.
oclopsDims_t dims(at::OptionalIntArrayRef values);
// A short int list (a convolution's strides, paddings, dilations).
inline oclopsDims_t int_list(at::IntArrayRef values) { return dims(values); }
// avg_pool's divisor_override: 0 when absent (ATen refuses 0 itself).
inline int64_t divisor(std::optional<int64_t> value) { return value.value_or(0); }
oclopsScalar_t scalar(const at::Scalar& value);

// The random numbers of one call: a seed and offset reserved from the generator
// given, or from the current device's default one.
oclopsRandState_t rand_state(const std::optional<at::Generator>& generator);
inline oclopsRandState_t default_rand_state() { return rand_state(std::nullopt); }
// native_dropout's `train` (bool?): absent means training, as in ATen.
inline bool training(std::optional<bool> train) { return train.value_or(true); }
inline oclopsRandomKind_t uniform_kind() { return OCLOPS_RANDOM_UNIFORM; }
inline oclopsRandomKind_t normal_kind() { return OCLOPS_RANDOM_NORMAL; }

// A matrix product's operand as oclopsGemm reads it: itself when row-major or
// transposed, else a contiguous copy.
at::Tensor matrix_operand(const at::Tensor& tensor);

// Values the spec's calls compute (fixed arguments of a shared SDK function).
inline oclopsBinaryOp_t add_op() { return OCLOPS_ADD; }
inline oclopsBinaryOp_t sub_op() { return OCLOPS_SUB; }
inline oclopsBinaryOp_t mul_op() { return OCLOPS_MUL; }
inline oclopsBinaryOp_t div_op() { return OCLOPS_DIV; }
inline oclopsUnaryOp_t relu_op() { return OCLOPS_RELU; }
inline oclopsUnaryOp_t neg_op() { return OCLOPS_NEG; }
inline oclopsScalar_t one() { return oclopsScalar_t{1.0, 1}; }
inline oclopsScalar_t zero() { return oclopsScalar_t{0.0, 0}; }
inline const oclopsTensor_t* no_tensor() { return nullptr; }  // an absent optional operand

// The Torch-FL driver stream is the OpenCL driver's stream (see torch_fl_driver.cpp).
inline oclopsStream_t stream_of(tflStream stream) { return reinterpret_cast<oclopsStream_t>(stream); }

}  // namespace ocl_glue
