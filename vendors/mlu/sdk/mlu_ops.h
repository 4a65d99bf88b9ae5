/*
 * The simulated MLU operator library (in the style of a vendor's op SDK: C
 * functions on tensor descriptors, queued on a device queue, each returning
 * the chip's status code). Every function validates its arguments at once and
 * runs asynchronously on the queue; a failure during execution is reported by
 * the next mluQueueSync.
 *
 * The chip computes in float32, float16, bfloat16 and integer/bool types; it
 * has no float64 or complex units (MLU_RET_ERR_NOT_SUPPORTED).
 */
#ifndef MLU_OPS_H_
#define MLU_OPS_H_

#include <stdint.h>

#include "mlu_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MLU_MAX_DIMS 8

typedef enum {
  MLU_DTYPE_BOOL, MLU_DTYPE_UINT8, MLU_DTYPE_INT8, MLU_DTYPE_INT16, MLU_DTYPE_INT32, MLU_DTYPE_INT64,
  MLU_DTYPE_HALF, MLU_DTYPE_BFLOAT16, MLU_DTYPE_FLOAT, MLU_DTYPE_DOUBLE, MLU_DTYPE_COMPLEX_FLOAT,
  MLU_DTYPE_COMPLEX_DOUBLE, MLU_DTYPE_INVALID = -1
} mluDataType_t;

/* A tensor in device memory; data == NULL means "absent" for optional tensors. */
typedef struct {
  void* data;
  mluDataType_t dtype;
  int32_t dim;
  int64_t shape[MLU_MAX_DIMS];
  int64_t stride[MLU_MAX_DIMS]; /* in elements */
} mluTensor_t;

/* MLU_SCALAR_NONE: an absent optional scalar */
typedef enum { MLU_SCALAR_FLOAT, MLU_SCALAR_INT, MLU_SCALAR_BOOL, MLU_SCALAR_NONE } mluScalarKind_t;
typedef struct {
  mluScalarKind_t kind;
  double f;
  int64_t i;
} mluScalar_t;

/* count == -1: "all dimensions" (an absent optional list). */
typedef struct {
  int32_t count;
  int64_t values[MLU_MAX_DIMS];
} mluIntList_t;

/* A list of tensors (count descriptors at `tensors`). */
typedef struct {
  int32_t count;
  const mluTensor_t* tensors;
} mluTensorList_t;

/* Counter-based random state: results depend only on (seed, offset). */
typedef struct {
  uint64_t seed;
  uint64_t offset;
} mluRandState_t;

typedef enum { MLU_GELU_NONE, MLU_GELU_TANH } mluGeluApproximation_t;

/* copies */
mluRet_t mluOpCopyStrided(mluQueue_t q, const mluTensor_t* dst, const mluTensor_t* src);

/* elementwise binary: out = a op b (broadcasting, type promotion into out's dtype) */
mluRet_t mluOpAdd(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, mluScalar_t alpha, const mluTensor_t* out);
mluRet_t mluOpSub(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, mluScalar_t alpha, const mluTensor_t* out);
mluRet_t mluOpMul(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpDiv(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpAddScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, mluScalar_t alpha, const mluTensor_t* out);
mluRet_t mluOpSubScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, mluScalar_t alpha, const mluTensor_t* out);
mluRet_t mluOpMulScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, const mluTensor_t* out);
mluRet_t mluOpDivScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, const mluTensor_t* out);

/* comparisons: out (bool) = a cmp b */
mluRet_t mluOpEq(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpNe(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpLt(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpGt(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpEqScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, const mluTensor_t* out);
mluRet_t mluOpNeScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, const mluTensor_t* out);
mluRet_t mluOpLtScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, const mluTensor_t* out);
mluRet_t mluOpGtScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, const mluTensor_t* out);

/* elementwise unary */
mluRet_t mluOpNeg(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpExp(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpLog(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpSqrt(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpRelu(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpSigmoid(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpTanh(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpTanhBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* y, const mluTensor_t* out);
mluRet_t mluOpSigmoidBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* y, const mluTensor_t* out);
mluRet_t mluOpThresholdBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluScalar_t threshold,
                                const mluTensor_t* out);

/* more elementwise unary */
mluRet_t mluOpAbs(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpSin(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpCos(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpRsqrt(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpReciprocal(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpFloor(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpCeil(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpTrunc(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpRound(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpErf(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpExpm1(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpLog1p(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpLog2(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpSign(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpSilu(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpLogicalNot(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpGelu(mluQueue_t q, const mluTensor_t* x, mluGeluApproximation_t approximation, const mluTensor_t* out);
mluRet_t mluOpGeluBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                           mluGeluApproximation_t approximation, const mluTensor_t* out);
mluRet_t mluOpSiluBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* out);

/* more elementwise binary and ternary */
mluRet_t mluOpMaximum(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpMinimum(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpLe(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpGe(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpPow(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpLeScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, const mluTensor_t* out);
mluRet_t mluOpGeScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, const mluTensor_t* out);
mluRet_t mluOpPowScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t exponent, const mluTensor_t* out);
mluRet_t mluOpClamp(mluQueue_t q, const mluTensor_t* x, mluScalar_t min, mluScalar_t max, const mluTensor_t* out);
mluRet_t mluOpWhere(mluQueue_t q, const mluTensor_t* condition, const mluTensor_t* a, const mluTensor_t* b,
                    const mluTensor_t* out);
mluRet_t mluOpMaskedFill(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* mask, mluScalar_t value);
mluRet_t mluOpAddcmul(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* a, const mluTensor_t* b, mluScalar_t value,
                      const mluTensor_t* out);
mluRet_t mluOpAddcdiv(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* a, const mluTensor_t* b, mluScalar_t value,
                      const mluTensor_t* out);
mluRet_t mluOpLerp(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* end, mluScalar_t weight,
                   const mluTensor_t* out);
mluRet_t mluOpTril(mluQueue_t q, const mluTensor_t* x, int64_t diagonal, const mluTensor_t* out);
mluRet_t mluOpTriu(mluQueue_t q, const mluTensor_t* x, int64_t diagonal, const mluTensor_t* out);
mluRet_t mluOpArange(mluQueue_t q, mluScalar_t start, mluScalar_t end, mluScalar_t step, const mluTensor_t* out);

/* fill */
mluRet_t mluOpFill(mluQueue_t q, const mluTensor_t* x, mluScalar_t value);
mluRet_t mluOpZero(mluQueue_t q, const mluTensor_t* x);

/* linear algebra */
mluRet_t mluOpMatMul(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpAddmm(mluQueue_t q, const mluTensor_t* bias, const mluTensor_t* a, const mluTensor_t* b, mluScalar_t beta,
                    mluScalar_t alpha, const mluTensor_t* out);

/* fully connected: out = input @ weight^T + bias (bias optional) */
mluRet_t mluOpLinear(mluQueue_t q, const mluTensor_t* input, const mluTensor_t* weight, const mluTensor_t* bias,
                     const mluTensor_t* out);
mluRet_t mluOpBatchMatMul(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpBaddbmm(mluQueue_t q, const mluTensor_t* bias, const mluTensor_t* a, const mluTensor_t* b, mluScalar_t beta,
                      mluScalar_t alpha, const mluTensor_t* out);

mluRet_t mluOpCat(mluQueue_t q, mluTensorList_t tensors, int64_t dim, const mluTensor_t* out);
mluRet_t mluOpIsNegInf(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
/* all(x != 0) over dim (count 1) or all dims (count -1) */
mluRet_t mluOpAll(mluQueue_t q, const mluTensor_t* x, mluIntList_t dim, bool keepdim, const mluTensor_t* out);

/* cumulative sum along dim: a two-phase call (query the scratch size, then run with it) */
mluRet_t mluOpCumsumGetWorkspaceSize(const mluTensor_t* x, int64_t dim, const mluTensor_t* out, size_t* bytes);
mluRet_t mluOpCumsum(mluQueue_t q, const mluTensor_t* x, int64_t dim, void* workspace, size_t workspace_bytes,
                     const mluTensor_t* out);

/* indexing */
mluRet_t mluOpIndexSelect(mluQueue_t q, const mluTensor_t* x, int64_t dim, const mluTensor_t* index,
                          const mluTensor_t* out);
mluRet_t mluOpEmbeddingBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* indices, int64_t num_weights,
                                int64_t padding_idx, bool scale_grad_by_freq, const mluTensor_t* out);

/* reductions over `dims` (count -1: all) */
mluRet_t mluOpReduceMax(mluQueue_t q, const mluTensor_t* x, mluIntList_t dims, bool keepdim, const mluTensor_t* out);
mluRet_t mluOpReduceMin(mluQueue_t q, const mluTensor_t* x, mluIntList_t dims, bool keepdim, const mluTensor_t* out);
/* argmax over one dim (dims.count 1) or all (count -1) */
mluRet_t mluOpArgMax(mluQueue_t q, const mluTensor_t* x, mluIntList_t dim, bool keepdim, const mluTensor_t* out);
mluRet_t mluOpReduceSum(mluQueue_t q, const mluTensor_t* x, mluIntList_t dims, bool keepdim, const mluTensor_t* out);
mluRet_t mluOpReduceMean(mluQueue_t q, const mluTensor_t* x, mluIntList_t dims, bool keepdim, const mluTensor_t* out);

/* convolution and pooling (NCHW); output_mask bit i: compute output i */
mluRet_t mluOpConvolution(mluQueue_t q, const mluTensor_t* input, const mluTensor_t* weight, const mluTensor_t* bias,
                          mluIntList_t stride, mluIntList_t padding, mluIntList_t dilation, bool transposed,
                          mluIntList_t output_padding, int64_t groups, const mluTensor_t* out);
mluRet_t mluOpConvolutionBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* input,
                                  const mluTensor_t* weight, mluIntList_t stride, mluIntList_t padding,
                                  mluIntList_t dilation, bool transposed, mluIntList_t output_padding, int64_t groups,
                                  const mluTensor_t* grad_input, const mluTensor_t* grad_weight,
                                  const mluTensor_t* grad_bias);
mluRet_t mluOpMaxPool2d(mluQueue_t q, const mluTensor_t* x, mluIntList_t kernel, mluIntList_t stride,
                        mluIntList_t padding, mluIntList_t dilation, bool ceil_mode, const mluTensor_t* out,
                        const mluTensor_t* indices);
mluRet_t mluOpMaxPool2dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluIntList_t kernel,
                                mluIntList_t stride, mluIntList_t padding, mluIntList_t dilation, bool ceil_mode,
                                const mluTensor_t* indices, const mluTensor_t* out);
mluRet_t mluOpAvgPool2d(mluQueue_t q, const mluTensor_t* x, mluIntList_t kernel, mluIntList_t stride,
                        mluIntList_t padding, bool ceil_mode, bool count_include_pad, mluIntList_t divisor_override,
                        const mluTensor_t* out);
mluRet_t mluOpAvgPool2dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluIntList_t kernel,
                                mluIntList_t stride, mluIntList_t padding, bool ceil_mode, bool count_include_pad,
                                mluIntList_t divisor_override, const mluTensor_t* out);
mluRet_t mluOpAdaptiveAvgPool2d(mluQueue_t q, const mluTensor_t* x, mluIntList_t output_size, const mluTensor_t* out);
mluRet_t mluOpAdaptiveAvgPool2dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                        const mluTensor_t* out);

/* normalization */
mluRet_t mluOpBatchNorm(mluQueue_t q, const mluTensor_t* input, const mluTensor_t* weight, const mluTensor_t* bias,
                        const mluTensor_t* running_mean, const mluTensor_t* running_var, bool training,
                        double momentum, double eps, const mluTensor_t* out, const mluTensor_t* save_mean,
                        const mluTensor_t* save_invstd);
mluRet_t mluOpBatchNormBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* input,
                                const mluTensor_t* weight, const mluTensor_t* running_mean,
                                const mluTensor_t* running_var, const mluTensor_t* save_mean,
                                const mluTensor_t* save_invstd, bool training, double eps,
                                const mluTensor_t* grad_input, const mluTensor_t* grad_weight,
                                const mluTensor_t* grad_bias);
mluRet_t mluOpLayerNorm(mluQueue_t q, const mluTensor_t* input, mluIntList_t normalized_shape, const mluTensor_t* weight,
                        const mluTensor_t* bias, double eps, const mluTensor_t* out, const mluTensor_t* mean,
                        const mluTensor_t* rstd);
mluRet_t mluOpLayerNormBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* input,
                                mluIntList_t normalized_shape, const mluTensor_t* mean, const mluTensor_t* rstd,
                                const mluTensor_t* weight, const mluTensor_t* bias, const mluTensor_t* grad_input,
                                const mluTensor_t* grad_weight, const mluTensor_t* grad_bias);

/* dropout: mask ~ Bernoulli(1 - p); out = input * mask / (1 - p) */
mluRet_t mluOpDropout(mluQueue_t q, const mluTensor_t* input, double p, bool train, mluRandState_t state,
                      const mluTensor_t* out, const mluTensor_t* mask);
mluRet_t mluOpDropoutBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* mask, double scale,
                              const mluTensor_t* out);

/* fused RMS normalization over the last dim: y = x * rsqrt(mean(x^2) + eps) * weight */
mluRet_t mluOpRmsNorm(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* weight, double eps, const mluTensor_t* out);
mluRet_t mluOpRmsNormBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* weight,
                              double eps, const mluTensor_t* grad_x, const mluTensor_t* grad_weight);

/* softmax and loss */
mluRet_t mluOpSoftmax(mluQueue_t q, const mluTensor_t* x, int64_t dim, const mluTensor_t* out);
mluRet_t mluOpSoftmaxBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* y, int64_t dim,
                              const mluTensor_t* out);
mluRet_t mluOpLogSoftmax(mluQueue_t q, const mluTensor_t* x, int64_t dim, const mluTensor_t* out);
mluRet_t mluOpLogSoftmaxBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* y, int64_t dim,
                                 const mluTensor_t* out);
mluRet_t mluOpNllLoss(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* target, const mluTensor_t* weight,
                      int64_t reduction, int64_t ignore_index, const mluTensor_t* out, const mluTensor_t* total_weight);
mluRet_t mluOpNllLossBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* target,
                              const mluTensor_t* weight, int64_t reduction, int64_t ignore_index,
                              const mluTensor_t* total_weight, const mluTensor_t* out);

/* random */
mluRet_t mluOpRandNormal(mluQueue_t q, const mluTensor_t* x, double mean, double std, mluRandState_t state);
mluRet_t mluOpRandUniform(mluQueue_t q, const mluTensor_t* x, double low, double high, mluRandState_t state);

/* activations and their gradients (the ATen argument meanings) */
mluRet_t mluOpElu(mluQueue_t q, const mluTensor_t* x, mluScalar_t alpha, mluScalar_t scale, mluScalar_t input_scale,
                  const mluTensor_t* out);
mluRet_t mluOpEluBackward(mluQueue_t q, const mluTensor_t* grad, mluScalar_t alpha, mluScalar_t scale,
                          mluScalar_t input_scale, bool is_result, const mluTensor_t* x_or_y, const mluTensor_t* out);
mluRet_t mluOpHardtanh(mluQueue_t q, const mluTensor_t* x, mluScalar_t min, mluScalar_t max, const mluTensor_t* out);
mluRet_t mluOpHardtanhBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluScalar_t min,
                               mluScalar_t max, const mluTensor_t* out);
mluRet_t mluOpLeakyRelu(mluQueue_t q, const mluTensor_t* x, mluScalar_t slope, const mluTensor_t* out);
mluRet_t mluOpLeakyReluBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluScalar_t slope,
                                bool x_is_result, const mluTensor_t* out);
mluRet_t mluOpSoftplus(mluQueue_t q, const mluTensor_t* x, mluScalar_t beta, mluScalar_t threshold,
                       const mluTensor_t* out);
mluRet_t mluOpSoftplusBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluScalar_t beta,
                               mluScalar_t threshold, const mluTensor_t* out);
mluRet_t mluOpSoftshrink(mluQueue_t q, const mluTensor_t* x, mluScalar_t lambd, const mluTensor_t* out);
mluRet_t mluOpSoftshrinkBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluScalar_t lambd,
                                 const mluTensor_t* out);
mluRet_t mluOpHardshrink(mluQueue_t q, const mluTensor_t* x, mluScalar_t lambd, const mluTensor_t* out);
mluRet_t mluOpHardshrinkBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluScalar_t lambd,
                                 const mluTensor_t* out);
mluRet_t mluOpHardswish(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpHardswishBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpHardsigmoid(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpHardsigmoidBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* out);
/* buffer: the forward's saved intermediate, same shape as x */
mluRet_t mluOpLogSigmoid(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out, const mluTensor_t* buffer);
mluRet_t mluOpLogSigmoidBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                 const mluTensor_t* buffer, const mluTensor_t* out);
mluRet_t mluOpMish(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpThreshold(mluQueue_t q, const mluTensor_t* x, mluScalar_t threshold, mluScalar_t value,
                        const mluTensor_t* out);
mluRet_t mluOpGlu(mluQueue_t q, const mluTensor_t* x, int64_t dim, const mluTensor_t* out);
mluRet_t mluOpGluBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, int64_t dim,
                          const mluTensor_t* out);
mluRet_t mluOpPrelu(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* weight, const mluTensor_t* out);
mluRet_t mluOpPreluBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* weight,
                            const mluTensor_t* grad_x, const mluTensor_t* grad_weight);
mluRet_t mluOpSgn(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpClampMin(mluQueue_t q, const mluTensor_t* x, mluScalar_t min, const mluTensor_t* out);
/* any(x != 0) over dim (count 1) or all dims (count -1) */
mluRet_t mluOpAny(mluQueue_t q, const mluTensor_t* x, mluIntList_t dim, bool keepdim, const mluTensor_t* out);
mluRet_t mluOpAnyAll(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);

/* losses; reduction: 0 none, 1 mean, 2 sum */
mluRet_t mluOpMseLoss(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* target, int64_t reduction,
                      const mluTensor_t* out);
mluRet_t mluOpMseLossBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* target,
                              int64_t reduction, const mluTensor_t* out);
mluRet_t mluOpSmoothL1Loss(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* target, int64_t reduction,
                           double beta, const mluTensor_t* out);
mluRet_t mluOpSmoothL1LossBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                   const mluTensor_t* target, int64_t reduction, double beta, const mluTensor_t* out);
mluRet_t mluOpHuberLoss(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* target, int64_t reduction, double delta,
                        const mluTensor_t* out);
mluRet_t mluOpHuberLossBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* target,
                                int64_t reduction, double delta, const mluTensor_t* out);
mluRet_t mluOpBinaryCrossEntropy(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* target,
                                 const mluTensor_t* weight, int64_t reduction, const mluTensor_t* out);
mluRet_t mluOpBinaryCrossEntropyBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                         const mluTensor_t* target, const mluTensor_t* weight, int64_t reduction,
                                         const mluTensor_t* out);
/* x (N, C, H, W), target (N, H, W) int64 class indices */
mluRet_t mluOpNllLoss2d(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* target, const mluTensor_t* weight,
                        int64_t reduction, int64_t ignore_index, const mluTensor_t* out,
                        const mluTensor_t* total_weight);
mluRet_t mluOpNllLoss2dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* target,
                                const mluTensor_t* weight, int64_t reduction, int64_t ignore_index,
                                const mluTensor_t* total_weight, const mluTensor_t* out);
mluRet_t mluOpMultiMarginLoss(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* target, mluScalar_t p,
                              mluScalar_t margin, const mluTensor_t* weight, int64_t reduction,
                              const mluTensor_t* out);
mluRet_t mluOpMultiMarginLossBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                      const mluTensor_t* target, mluScalar_t p, mluScalar_t margin,
                                      const mluTensor_t* weight, int64_t reduction, const mluTensor_t* out);
mluRet_t mluOpMultilabelMarginLoss(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* target, int64_t reduction,
                                   const mluTensor_t* out, const mluTensor_t* is_target);
mluRet_t mluOpMultilabelMarginLossBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                           const mluTensor_t* target, int64_t reduction, const mluTensor_t* is_target,
                                           const mluTensor_t* out);

/* 3-D and adaptive pooling, padding (NC[D]HW or C[D]HW) */
mluRet_t mluOpAvgPool3d(mluQueue_t q, const mluTensor_t* x, mluIntList_t kernel, mluIntList_t stride,
                        mluIntList_t padding, bool ceil_mode, bool count_include_pad, mluIntList_t divisor_override,
                        const mluTensor_t* out);
mluRet_t mluOpAvgPool3dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluIntList_t kernel,
                                mluIntList_t stride, mluIntList_t padding, bool ceil_mode, bool count_include_pad,
                                mluIntList_t divisor_override, const mluTensor_t* out);
mluRet_t mluOpMaxPool3d(mluQueue_t q, const mluTensor_t* x, mluIntList_t kernel, mluIntList_t stride,
                        mluIntList_t padding, mluIntList_t dilation, bool ceil_mode, const mluTensor_t* out,
                        const mluTensor_t* indices);
mluRet_t mluOpMaxPool3dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluIntList_t kernel,
                                mluIntList_t stride, mluIntList_t padding, mluIntList_t dilation, bool ceil_mode,
                                const mluTensor_t* indices, const mluTensor_t* out);
mluRet_t mluOpAdaptiveMaxPool2d(mluQueue_t q, const mluTensor_t* x, mluIntList_t output_size, const mluTensor_t* out,
                                const mluTensor_t* indices);
mluRet_t mluOpAdaptiveMaxPool2dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                        const mluTensor_t* indices, const mluTensor_t* out);
mluRet_t mluOpAdaptiveMaxPool3d(mluQueue_t q, const mluTensor_t* x, mluIntList_t output_size, const mluTensor_t* out,
                                const mluTensor_t* indices);
mluRet_t mluOpAdaptiveMaxPool3dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                        const mluTensor_t* indices, const mluTensor_t* out);
mluRet_t mluOpAdaptiveAvgPool3d(mluQueue_t q, const mluTensor_t* x, mluIntList_t output_size, const mluTensor_t* out);
mluRet_t mluOpAdaptiveAvgPool3dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                        const mluTensor_t* out);
/* samples (N, C, 2): the pooling regions' offsets in [0, 1) */
mluRet_t mluOpFractionalMaxPool2d(mluQueue_t q, const mluTensor_t* x, mluIntList_t kernel, mluIntList_t output_size,
                                  const mluTensor_t* samples, const mluTensor_t* out, const mluTensor_t* indices);
mluRet_t mluOpFractionalMaxPool2dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                          mluIntList_t kernel, mluIntList_t output_size, const mluTensor_t* indices,
                                          const mluTensor_t* out);
/* padding: 2, 4 or 6 entries (last dim first) */
mluRet_t mluOpReflectionPad(mluQueue_t q, const mluTensor_t* x, mluIntList_t padding, const mluTensor_t* out);
mluRet_t mluOpReflectionPadBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluIntList_t padding,
                                    const mluTensor_t* out);
mluRet_t mluOpReplicationPad(mluQueue_t q, const mluTensor_t* x, mluIntList_t padding, const mluTensor_t* out);
mluRet_t mluOpReplicationPadBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                     mluIntList_t padding, const mluTensor_t* out);

/* group normalization over (N, C, HxW) with `group` groups */
mluRet_t mluOpGroupNorm(mluQueue_t q, const mluTensor_t* input, const mluTensor_t* weight, const mluTensor_t* bias,
                        int64_t n, int64_t c, int64_t hxw, int64_t group, double eps, const mluTensor_t* out,
                        const mluTensor_t* mean, const mluTensor_t* rstd);
mluRet_t mluOpGroupNormBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* input,
                                const mluTensor_t* mean, const mluTensor_t* rstd, const mluTensor_t* weight,
                                int64_t n, int64_t c, int64_t hxw, int64_t group, const mluTensor_t* grad_input,
                                const mluTensor_t* grad_weight, const mluTensor_t* grad_bias);

/* more elementwise: trigonometric, hyperbolic, special functions */
mluRet_t mluOpTan(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpAsin(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpAcos(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpAtan(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpSinh(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpCosh(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpAsinh(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpAcosh(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpAtanh(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpExp2(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpLog10(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpFrac(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpErfc(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpErfinv(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpLgamma(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpDigamma(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpSinc(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpBitwiseNot(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpSignbit(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpIsPosInf(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);

/* more elementwise binary (broadcasting, type promotion into out's dtype) */
mluRet_t mluOpBitwiseAnd(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpBitwiseOr(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpBitwiseXor(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpBitwiseAndScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, const mluTensor_t* out);
mluRet_t mluOpBitwiseOrScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, const mluTensor_t* out);
mluRet_t mluOpBitwiseXorScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, const mluTensor_t* out);
mluRet_t mluOpLogicalAnd(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpLogicalOr(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpLogicalXor(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpAtan2(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpFmod(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpFmodScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, const mluTensor_t* out);
mluRet_t mluOpRemainder(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpRemainderScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, const mluTensor_t* out);
mluRet_t mluOpHypot(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpCopysign(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpXlogy(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpLogAddExp(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpLogAddExp2(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpFmax(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpFmin(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);

/* more reductions; the result dtype is out's */
mluRet_t mluOpReduceProd(mluQueue_t q, const mluTensor_t* x, int64_t dim, bool keepdim, const mluTensor_t* out);
/* argmin over one dim (count 1) or all (count -1) */
mluRet_t mluOpArgMin(mluQueue_t q, const mluTensor_t* x, mluIntList_t dim, bool keepdim, const mluTensor_t* out);
mluRet_t mluOpLogSumExp(mluQueue_t q, const mluTensor_t* x, mluIntList_t dims, bool keepdim, const mluTensor_t* out);
mluRet_t mluOpCumprod(mluQueue_t q, const mluTensor_t* x, int64_t dim, const mluTensor_t* out);
mluRet_t mluOpMaxDim(mluQueue_t q, const mluTensor_t* x, int64_t dim, bool keepdim, const mluTensor_t* values,
                     const mluTensor_t* indices);
mluRet_t mluOpMinDim(mluQueue_t q, const mluTensor_t* x, int64_t dim, bool keepdim, const mluTensor_t* values,
                     const mluTensor_t* indices);
/* p-norm over dims (count -1: all); an absent p is 2 */
mluRet_t mluOpVectorNorm(mluQueue_t q, const mluTensor_t* x, mluScalar_t p, mluIntList_t dims, bool keepdim,
                         const mluTensor_t* out);

/* gather and scatter along dim (int64 indices) */
mluRet_t mluOpGather(mluQueue_t q, const mluTensor_t* x, int64_t dim, const mluTensor_t* index, const mluTensor_t* out);
mluRet_t mluOpScatter(mluQueue_t q, const mluTensor_t* x, int64_t dim, const mluTensor_t* index, const mluTensor_t* src,
                      const mluTensor_t* out);
mluRet_t mluOpScatterValue(mluQueue_t q, const mluTensor_t* x, int64_t dim, const mluTensor_t* index,
                           mluScalar_t value, const mluTensor_t* out);
mluRet_t mluOpScatterAdd(mluQueue_t q, const mluTensor_t* x, int64_t dim, const mluTensor_t* index,
                         const mluTensor_t* src, const mluTensor_t* out);
mluRet_t mluOpIndexAdd(mluQueue_t q, const mluTensor_t* x, int64_t dim, const mluTensor_t* index,
                       const mluTensor_t* source, mluScalar_t alpha, const mluTensor_t* out);

/* detection ops (torchvision's): rois are [K, 5] (batch index, x1, y1, x2, y2) */
/* nms: keep has room for every box; the kept indices go to its leading rows, their number to kept[0] (int64) */
mluRet_t mluOpNms(mluQueue_t q, const mluTensor_t* boxes, const mluTensor_t* scores, double iou_threshold,
                  const mluTensor_t* keep, const mluTensor_t* kept);
mluRet_t mluOpRoiAlign(mluQueue_t q, const mluTensor_t* input, const mluTensor_t* rois, double spatial_scale,
                       int64_t pooled_height, int64_t pooled_width, int64_t sampling_ratio, bool aligned,
                       const mluTensor_t* out);
mluRet_t mluOpRoiAlignBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* rois, double spatial_scale,
                               int64_t pooled_height, int64_t pooled_width, int64_t sampling_ratio, bool aligned,
                               const mluTensor_t* grad_input);
/* argmax: int32, the input element each output came from */
mluRet_t mluOpRoiPool(mluQueue_t q, const mluTensor_t* input, const mluTensor_t* rois, double spatial_scale,
                      int64_t pooled_height, int64_t pooled_width, const mluTensor_t* out, const mluTensor_t* argmax);
mluRet_t mluOpRoiPoolBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* rois,
                              const mluTensor_t* argmax, double spatial_scale, int64_t pooled_height,
                              int64_t pooled_width, const mluTensor_t* grad_input);
/* deformable convolution (NCHW); mask is read only when use_mask */
mluRet_t mluOpDeformConv2d(mluQueue_t q, const mluTensor_t* input, const mluTensor_t* weight,
                           const mluTensor_t* offset, const mluTensor_t* mask, const mluTensor_t* bias,
                           int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w, int64_t dilation_h,
                           int64_t dilation_w, int64_t groups, int64_t offset_groups, bool use_mask,
                           const mluTensor_t* out);
mluRet_t mluOpDeformConv2dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* input,
                                   const mluTensor_t* weight, const mluTensor_t* offset, const mluTensor_t* mask,
                                   const mluTensor_t* bias, int64_t stride_h, int64_t stride_w, int64_t pad_h,
                                   int64_t pad_w, int64_t dilation_h, int64_t dilation_w, int64_t groups,
                                   int64_t offset_groups, bool use_mask, const mluTensor_t* grad_input,
                                   const mluTensor_t* grad_weight, const mluTensor_t* grad_offset,
                                   const mluTensor_t* grad_mask, const mluTensor_t* grad_bias);

#ifdef __cplusplus
}
#endif

#endif /* MLU_OPS_H_ */
