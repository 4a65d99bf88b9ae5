// SDK glue of the nvidia backend: the converters specs/nvidia.yaml names.
#pragma once

#include <ATen/ATen.h>

#include <optional>
#include <vector>

#include <torch_fl/descriptor_list.h>
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
// A reduction over one dim (all.dim).
nvopsDims_t one_dim(int64_t dim);

// cat's inputs: the descriptors live as long as this object, the call's argument.
using TensorListDescriptor = torch_fl::DescriptorList<nvopsTensor_t, nvopsTensorList_t, describe>;
TensorListDescriptor describe_list(const at::ITensorListRef& tensors);

// A matrix product's operand as nvopsMatmul reads it: itself when row-major or
// transposed in its last two dims (cuBLAS transposes it), else a contiguous copy.
at::Tensor matrix_operand(const at::Tensor& tensor);

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
inline nvopsUnaryOp_t sqrt_op() { return NVOPS_SQRT; }
inline nvopsTernaryOp_t lerp_op() { return NVOPS_LERP; }
inline nvopsTernaryOp_t addcmul_op() { return NVOPS_ADDCMUL; }
inline nvopsTernaryOp_t addcdiv_op() { return NVOPS_ADDCDIV; }
inline bool lower() { return false; }
inline bool upper() { return true; }
nvopsUnaryOp_t gelu_op(c10::string_view approximate);
// The random numbers of this call: a seed and offset reserved from the device's default generator.
nvopsRandState_t default_rand_state();
// native_dropout's `train` (bool?): absent means training, as in ATen.
inline bool training(std::optional<bool> train) { return train.value_or(true); }
inline double one() { return 1.0; }
inline double zero() { return 0.0; }
inline bool sum_mode() { return false; }
inline bool mean_mode() { return true; }
inline bool softmax_mode() { return false; }
inline bool log_softmax_mode() { return true; }
inline const nvopsTensor_t* no_tensor() { return nullptr; }  // an absent optional operand

// The Torch-FL driver stream is the CUDA stream (see torch_fl_driver.cpp).
inline cudaStream_t stream_of(tflStream stream) { return reinterpret_cast<cudaStream_t>(stream); }

}  // namespace nv_glue
