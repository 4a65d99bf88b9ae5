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

#ifdef __cplusplus
}
#endif

#endif /* MLU_OPS_H_ */
