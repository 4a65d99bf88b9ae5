// SDK glue of the opencl backend: the converters specs/opencl.yaml names.
//
// PyTorch holds an OpenCL tensor's data as an opaque address (the driver's,
// see driver/ocl_address_space.h); `describe` resolves it to what OpenCL and
// CLBlast take, a buffer and an offset in elements, with the tensor's geometry.
#pragma once

#include <ATen/ATen.h>

#include <optional>

#include <torch_fl/descriptor_list.h>
#include <torch_fl/driver_abi.h>

#include "ocl_ops.h"

namespace ocl_glue {

oclopsDtype_t ocl_dtype(c10::ScalarType type);
oclopsTensor_t describe(const at::Tensor& tensor);
oclopsTensor_t describe_optional(const std::optional<at::Tensor>& tensor);
// Reduction dims; absent or empty: all dims.
oclopsDims_t dims(at::OptionalIntArrayRef values);
// avg_pool's divisor_override: 0 when absent (ATen refuses 0 itself).
inline int64_t divisor(std::optional<int64_t> value) { return value.value_or(0); }
oclopsScalar_t scalar(const at::Scalar& value);
using TensorListDescriptor = torch_fl::DescriptorList<oclopsTensor_t, oclopsTensorList_t, describe>;
TensorListDescriptor describe_list(const at::ITensorListRef& tensors);

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

// Values the spec's calls compute (fixed arguments of a shared SDK function): the op
// of a generic elementwise kernel, one function per op, as the call grammar names them.
inline oclopsUnaryOp_t relu_op() { return OCLOPS_RELU; }
inline oclopsUnaryOp_t neg_op() { return OCLOPS_NEG; }
inline oclopsUnaryOp_t exp_op() { return OCLOPS_EXP; }
inline oclopsUnaryOp_t exp2_op() { return OCLOPS_EXP2; }
inline oclopsUnaryOp_t expm1_op() { return OCLOPS_EXPM1; }
inline oclopsUnaryOp_t log_op() { return OCLOPS_LOG; }
inline oclopsUnaryOp_t log2_op() { return OCLOPS_LOG2; }
inline oclopsUnaryOp_t log10_op() { return OCLOPS_LOG10; }
inline oclopsUnaryOp_t log1p_op() { return OCLOPS_LOG1P; }
inline oclopsUnaryOp_t sqrt_op() { return OCLOPS_SQRT; }
inline oclopsUnaryOp_t rsqrt_op() { return OCLOPS_RSQRT; }
inline oclopsUnaryOp_t abs_op() { return OCLOPS_ABS; }
inline oclopsUnaryOp_t reciprocal_op() { return OCLOPS_RECIPROCAL; }
inline oclopsUnaryOp_t sign_op() { return OCLOPS_SIGN; }
inline oclopsUnaryOp_t sin_op() { return OCLOPS_SIN; }
inline oclopsUnaryOp_t cos_op() { return OCLOPS_COS; }
inline oclopsUnaryOp_t tan_op() { return OCLOPS_TAN; }
inline oclopsUnaryOp_t asin_op() { return OCLOPS_ASIN; }
inline oclopsUnaryOp_t acos_op() { return OCLOPS_ACOS; }
inline oclopsUnaryOp_t atan_op() { return OCLOPS_ATAN; }
inline oclopsUnaryOp_t sinh_op() { return OCLOPS_SINH; }
inline oclopsUnaryOp_t cosh_op() { return OCLOPS_COSH; }
inline oclopsUnaryOp_t tanh_op() { return OCLOPS_TANH; }
inline oclopsUnaryOp_t asinh_op() { return OCLOPS_ASINH; }
inline oclopsUnaryOp_t acosh_op() { return OCLOPS_ACOSH; }
inline oclopsUnaryOp_t atanh_op() { return OCLOPS_ATANH; }
inline oclopsUnaryOp_t erf_op() { return OCLOPS_ERF; }
inline oclopsUnaryOp_t erfc_op() { return OCLOPS_ERFC; }
inline oclopsUnaryOp_t lgamma_op() { return OCLOPS_LGAMMA; }
inline oclopsUnaryOp_t sinc_op() { return OCLOPS_SINC; }
inline oclopsUnaryOp_t deg2rad_op() { return OCLOPS_DEG2RAD; }
inline oclopsUnaryOp_t rad2deg_op() { return OCLOPS_RAD2DEG; }
inline oclopsUnaryOp_t ceil_op() { return OCLOPS_CEIL; }
inline oclopsUnaryOp_t floor_op() { return OCLOPS_FLOOR; }
inline oclopsUnaryOp_t round_op() { return OCLOPS_ROUND; }
inline oclopsUnaryOp_t trunc_op() { return OCLOPS_TRUNC; }
inline oclopsUnaryOp_t frac_op() { return OCLOPS_FRAC; }
inline oclopsUnaryOp_t sigmoid_op() { return OCLOPS_SIGMOID; }
inline oclopsUnaryOp_t silu_op() { return OCLOPS_SILU; }
inline oclopsUnaryOp_t hardsigmoid_op() { return OCLOPS_HARDSIGMOID; }
inline oclopsUnaryOp_t hardswish_op() { return OCLOPS_HARDSWISH; }
inline oclopsUnaryOp_t mish_op() { return OCLOPS_MISH; }
inline oclopsUnaryOp_t logical_not_op() { return OCLOPS_LOGICAL_NOT; }
inline oclopsUnaryOp_t bitwise_not_op() { return OCLOPS_BITWISE_NOT; }
inline oclopsUnaryOp_t isnan_op() { return OCLOPS_ISNAN; }
inline oclopsUnaryOp_t isposinf_op() { return OCLOPS_ISPOSINF; }
inline oclopsUnaryOp_t isneginf_op() { return OCLOPS_ISNEGINF; }
inline oclopsUnaryOp_t signbit_op() { return OCLOPS_SIGNBIT; }
inline oclopsUnaryOp_t clamp_op() { return OCLOPS_CLAMP; }
inline oclopsUnaryOp_t leaky_relu_op() { return OCLOPS_LEAKY_RELU; }
inline oclopsUnaryOp_t elu_op() { return OCLOPS_ELU; }
inline oclopsUnaryOp_t threshold_op() { return OCLOPS_THRESHOLD; }
inline oclopsUnaryOp_t softplus_op() { return OCLOPS_SOFTPLUS; }
inline oclopsUnaryOp_t hardshrink_op() { return OCLOPS_HARDSHRINK; }
inline oclopsUnaryOp_t softshrink_op() { return OCLOPS_SOFTSHRINK; }
inline oclopsBinaryOp_t add_op() { return OCLOPS_ADD; }
inline oclopsBinaryOp_t sub_op() { return OCLOPS_SUB; }
inline oclopsBinaryOp_t mul_op() { return OCLOPS_MUL; }
inline oclopsBinaryOp_t div_op() { return OCLOPS_DIV; }
inline oclopsBinaryOp_t rsub_op() { return OCLOPS_RSUB; }
inline oclopsBinaryOp_t maximum_op() { return OCLOPS_MAXIMUM; }
inline oclopsBinaryOp_t minimum_op() { return OCLOPS_MINIMUM; }
inline oclopsBinaryOp_t fmax_op() { return OCLOPS_FMAX; }
inline oclopsBinaryOp_t fmin_op() { return OCLOPS_FMIN; }
inline oclopsBinaryOp_t pow_op() { return OCLOPS_POW; }
inline oclopsBinaryOp_t atan2_op() { return OCLOPS_ATAN2; }
inline oclopsBinaryOp_t hypot_op() { return OCLOPS_HYPOT; }
inline oclopsBinaryOp_t copysign_op() { return OCLOPS_COPYSIGN; }
inline oclopsBinaryOp_t nextafter_op() { return OCLOPS_NEXTAFTER; }
inline oclopsBinaryOp_t remainder_op() { return OCLOPS_REMAINDER; }
inline oclopsBinaryOp_t fmod_op() { return OCLOPS_FMOD; }
inline oclopsBinaryOp_t xlogy_op() { return OCLOPS_XLOGY; }
inline oclopsBinaryOp_t logaddexp_op() { return OCLOPS_LOGADDEXP; }
inline oclopsBinaryOp_t logaddexp2_op() { return OCLOPS_LOGADDEXP2; }
inline oclopsBinaryOp_t eq_op() { return OCLOPS_EQ; }
inline oclopsBinaryOp_t ne_op() { return OCLOPS_NE; }
inline oclopsBinaryOp_t lt_op() { return OCLOPS_LT; }
inline oclopsBinaryOp_t le_op() { return OCLOPS_LE; }
inline oclopsBinaryOp_t gt_op() { return OCLOPS_GT; }
inline oclopsBinaryOp_t ge_op() { return OCLOPS_GE; }
inline oclopsBinaryOp_t logical_and_op() { return OCLOPS_LOGICAL_AND; }
inline oclopsBinaryOp_t logical_or_op() { return OCLOPS_LOGICAL_OR; }
inline oclopsBinaryOp_t logical_xor_op() { return OCLOPS_LOGICAL_XOR; }
inline oclopsBinaryOp_t bitwise_and_op() { return OCLOPS_BITWISE_AND; }
inline oclopsBinaryOp_t bitwise_or_op() { return OCLOPS_BITWISE_OR; }
inline oclopsBinaryOp_t bitwise_xor_op() { return OCLOPS_BITWISE_XOR; }
inline oclopsBinaryOp_t lerp_op() { return OCLOPS_LERP; }
inline oclopsBinaryOp_t threshold_backward_op() { return OCLOPS_THRESHOLD_BACKWARD; }
inline oclopsBinaryOp_t sigmoid_backward_op() { return OCLOPS_SIGMOID_BACKWARD; }
inline oclopsBinaryOp_t tanh_backward_op() { return OCLOPS_TANH_BACKWARD; }
inline oclopsBinaryOp_t silu_backward_op() { return OCLOPS_SILU_BACKWARD; }
inline oclopsBinaryOp_t mish_backward_op() { return OCLOPS_MISH_BACKWARD; }
inline oclopsBinaryOp_t hardsigmoid_backward_op() { return OCLOPS_HARDSIGMOID_BACKWARD; }
inline oclopsBinaryOp_t hardswish_backward_op() { return OCLOPS_HARDSWISH_BACKWARD; }
inline oclopsBinaryOp_t leaky_relu_backward_op() { return OCLOPS_LEAKY_RELU_BACKWARD; }
inline oclopsBinaryOp_t hardtanh_backward_op() { return OCLOPS_HARDTANH_BACKWARD; }
inline oclopsBinaryOp_t softplus_backward_op() { return OCLOPS_SOFTPLUS_BACKWARD; }
inline oclopsBinaryOp_t shrink_backward_op() { return OCLOPS_SHRINK_BACKWARD; }
inline oclopsUnaryOp_t logit_op() { return OCLOPS_LOGIT; }
inline oclopsUnaryOp_t entr_op() { return OCLOPS_ENTR; }
inline oclopsBinaryOp_t heaviside_op() { return OCLOPS_HEAVISIDE; }
inline oclopsBinaryOp_t gcd_op() { return OCLOPS_GCD; }
inline oclopsBinaryOp_t lcm_op() { return OCLOPS_LCM; }
inline oclopsBinaryOp_t xlog1py_op() { return OCLOPS_XLOG1PY; }
inline oclopsBinaryOp_t masked_fill_op() { return OCLOPS_MASKED_FILL; }
inline oclopsBinaryOp_t logit_backward_op() { return OCLOPS_LOGIT_BACKWARD; }
inline oclopsTernaryOp_t clamp_tensor_op() { return OCLOPS_CLAMP_TENSOR; }
inline oclopsTernaryOp_t where_op() { return OCLOPS_WHERE; }
inline oclopsTernaryOp_t addcmul_op() { return OCLOPS_ADDCMUL; }
inline oclopsTernaryOp_t addcdiv_op() { return OCLOPS_ADDCDIV; }
inline oclopsTernaryOp_t lerp_tensor_op() { return OCLOPS_LERP_TENSOR; }
inline oclopsReduceOp_t sum_op() { return OCLOPS_REDUCE_SUM; }
inline oclopsReduceOp_t prod_op() { return OCLOPS_REDUCE_PROD; }
inline oclopsReduceOp_t mean_op() { return OCLOPS_REDUCE_MEAN; }
inline oclopsReduceOp_t amax_op() { return OCLOPS_REDUCE_AMAX; }
inline oclopsReduceOp_t amin_op() { return OCLOPS_REDUCE_AMIN; }
inline oclopsReduceOp_t norm_op() { return OCLOPS_REDUCE_NORM; }
inline oclopsReduceOp_t var_op() { return OCLOPS_REDUCE_VAR; }
inline oclopsReduceOp_t std_op() { return OCLOPS_REDUCE_STD; }
inline oclopsReduceOp_t logsumexp_op() { return OCLOPS_REDUCE_LOGSUMEXP; }
inline oclopsReduceOp_t all_op() { return OCLOPS_REDUCE_ALL; }
inline oclopsReduceOp_t any_op() { return OCLOPS_REDUCE_ANY; }
inline oclopsScanOp_t cumsum_op() { return OCLOPS_CUMSUM; }
inline oclopsScanOp_t cumprod_op() { return OCLOPS_CUMPROD; }
// A reduction of every dim to a 0-dim result (sum(), all(), ...).
inline oclopsDims_t all_dims() { return oclopsDims_t{}; }
inline bool drop_dims() { return false; }
inline bool lower() { return true; }   // tril
inline bool upper() { return false; }  // triu
inline oclopsArgOp_t argmax_op() { return OCLOPS_ARGMAX; }
inline oclopsArgOp_t argmin_op() { return OCLOPS_ARGMIN; }
inline oclopsSoftmaxMode_t softmax_mode() { return OCLOPS_SOFTMAX; }
inline oclopsSoftmaxMode_t log_softmax_mode() { return OCLOPS_LOG_SOFTMAX; }
// One reduction dim; an optional one (absent: every dim).
oclopsDims_t one_dim(int64_t dim);
oclopsDims_t optional_dim(std::optional<int64_t> dim);
// layer norm's normalized_shape as the count of trailing dims it covers.
inline int32_t rank(at::IntArrayRef normalized_shape) { return static_cast<int32_t>(normalized_shape.size()); }
// var's and std's correction (absent: 1, Bessel's).
oclopsScalar_t correction(const std::optional<at::Scalar>& value);

// gelu's `approximate` ("none" or "tanh") and div's `rounding_mode` choose the op.
oclopsUnaryOp_t gelu_op(c10::string_view approximate);
oclopsBinaryOp_t gelu_backward_op(c10::string_view approximate);
oclopsBinaryOp_t div_mode_op(std::optional<c10::string_view> rounding_mode);
// logit's optional eps (absent: -1, no clamping).
oclopsScalar_t logit_eps(std::optional<double> eps);
// clamp's optional bounds; an absent one bounds nothing (-inf or +inf, and the
// integer extremes for integer kernels).
oclopsScalar_t lower_bound(const std::optional<at::Scalar>& value);
oclopsScalar_t upper_bound(const std::optional<at::Scalar>& value);
inline oclopsScalar_t unbounded_below() { return lower_bound(std::nullopt); }
inline oclopsScalar_t unbounded_above() { return upper_bound(std::nullopt); }
inline oclopsScalar_t one() { return oclopsScalar_t{1.0, 1, false}; }
inline oclopsScalar_t zero() { return oclopsScalar_t{0.0, 0, false}; }
inline const oclopsTensor_t* no_tensor() { return nullptr; }  // an absent optional operand

// Output rules (meta tensors) for overloads that ATen gives no meta function:
// a bool result shaped like self (isnan), the result of self op other (rsub,
// masked_fill: the broadcast shape, the promoted dtype);
// laid out as TensorIterator lays out its output (the inputs' order of strides).
at::Tensor bool_result(const at::Tensor& self);
at::Tensor binary_result(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha);
// masked_fill's: contiguous, as ATen clones self contiguously before filling.
at::Tensor masked_fill_result(const at::Tensor& self, const at::Tensor& mask, const at::Scalar& value);
// rsub's: laid out like `other`, ATen's first operand (other - alpha * self).
at::Tensor rsub_result(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha);
// A whole-tensor reduction's result (sum(), mean(), prod(), max(), min()): 0-dim,
// in the dtype a sum would have (int64 for integers); an extreme (max(), min()) keeps self's.
at::Tensor total_result(const at::Tensor& self, std::optional<c10::ScalarType> dtype);
at::Tensor extreme_result(const at::Tensor& self);
// A reduction's result in self's dtype, without (or with 1 for) the reduced dims:
// logsumexp's, and var's and std's.
at::Tensor reduced_result(const at::Tensor& self, at::IntArrayRef dim, bool keepdim);
at::Tensor moment_result(const at::Tensor& self, at::OptionalIntArrayRef dim,
                         const std::optional<at::Scalar>& correction, bool keepdim);

// The Torch-FL driver stream is the OpenCL driver's stream (see torch_fl_driver.cpp).
inline oclopsStream_t stream_of(tflStream stream) { return reinterpret_cast<oclopsStream_t>(stream); }

}  // namespace ocl_glue
