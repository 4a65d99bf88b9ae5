// SDK glue of the nvidia backend: the converters specs/nvidia.yaml names.
#pragma once

#include <ATen/ATen.h>

#include <optional>

#include <torch_fl/driver_abi.h>

#include "nv_ops.h"

namespace nv_glue {

nvopsDtype_t nv_dtype(c10::ScalarType type);
nvopsTensor_t describe(const at::Tensor& tensor);
nvopsTensor_t describe_optional(const std::optional<at::Tensor>& tensor);
// Reduction dims; absent or empty: all dims.
nvopsDims_t dims(at::OptionalIntArrayRef values);
double scalar(const at::Scalar& value);
// layer norm's normalized_shape → how many trailing dims are normalized.
int32_t rank(at::IntArrayRef normalized_shape);

// Values the spec's calls compute (fixed arguments of a shared SDK function).
inline nvopsBinaryOp_t add_op() { return NVOPS_ADD; }
inline nvopsBinaryOp_t sub_op() { return NVOPS_SUB; }
inline nvopsBinaryOp_t mul_op() { return NVOPS_MUL; }
inline nvopsBinaryOp_t div_op() { return NVOPS_DIV; }
inline nvopsUnaryOp_t relu_op() { return NVOPS_RELU; }
inline nvopsUnaryOp_t silu_op() { return NVOPS_SILU; }
inline nvopsUnaryOp_t exp_op() { return NVOPS_EXP; }
inline nvopsUnaryOp_t tanh_op() { return NVOPS_TANH; }
inline nvopsUnaryOp_t sigmoid_op() { return NVOPS_SIGMOID; }
inline nvopsUnaryOp_t neg_op() { return NVOPS_NEG; }
nvopsUnaryOp_t gelu_op(c10::string_view approximate);
inline double one() { return 1.0; }
inline double zero() { return 0.0; }
inline bool sum_mode() { return false; }
inline bool mean_mode() { return true; }
inline bool softmax_mode() { return false; }
inline bool log_softmax_mode() { return true; }
inline const nvopsTensor_t* no_bias() { return nullptr; }

// The Torch-FL driver stream is the CUDA stream (see torch_fl_driver.cpp).
inline cudaStream_t stream_of(tflStream stream) { return reinterpret_cast<cudaStream_t>(stream); }

}  // namespace nv_glue
