/*
 * The simulated NPU operator library (in the style of an Ascend-like "nn" op
 * API). Its conventions differ from the MLU's op library:
 *   - tensors, scalars and int arrays are opaque handles made by
 *     npuCreateTensor / npuCreateScalar / npuCreateIntArray and destroyed by
 *     their npuDestroy* function;
 *   - every operator is two calls: npunnXxxGetWorkspaceSize(args...,
 *     &workspace_size, &executor) checks the arguments and says how much
 *     device scratch memory the operator needs; npunnXxx(workspace,
 *     workspace_size, executor, stream) runs it and consumes the executor;
 *   - convolutions take activations and weights in the private blocked layout
 *     NC1HWC0 (C0 = 16, channels zero-padded), made by npunnTransData;
 *   - index tensors are int32 only;
 *   - there is no float64 (or complex) arithmetic: NPU_ERROR_NOT_SUPPORTED.
 */
#ifndef NPU_OPS_H_
#define NPU_OPS_H_

#include <stdbool.h>
#include <stdint.h>

#include "npu_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NPU_C0 16

typedef enum {
  NPU_FLOAT = 0, NPU_FLOAT16 = 1, NPU_INT8 = 2, NPU_INT32 = 3, NPU_UINT8 = 4, NPU_INT16 = 6, NPU_INT64 = 9,
  NPU_DOUBLE = 11, NPU_BOOL = 12, NPU_COMPLEX64 = 16, NPU_COMPLEX128 = 17, NPU_BF16 = 27, NPU_DT_UNDEFINED = -1
} npuDataType;

typedef enum { NPU_FORMAT_ND = 2, NPU_FORMAT_NC1HWC0 = 3 } npuFormat;

typedef struct npuTensor npuTensor;
typedef struct npuScalar npuScalar;
typedef struct npuIntArray npuIntArray;
typedef struct npuTensorList npuTensorList;
typedef struct npunnExecutor npunnExecutor;

/* Counter-based random state: results depend only on (seed, offset). */
typedef struct {
  uint64_t seed;
  uint64_t offset;
} npuRandState;

/* A view of device memory: dims and strides (in elements) of the view, an
 * element offset from `data`. NC1HWC0 tensors are 5-D: (N, C1, H, W, C0). */
npuTensor* npuCreateTensor(const int64_t* view_dims, uint64_t view_dims_num, npuDataType data_type,
                           const int64_t* stride, int64_t offset, npuFormat format, void* data);
npuError npuDestroyTensor(const npuTensor* tensor);
/* `value` points at one element of `data_type`. */
npuScalar* npuCreateScalar(const void* value, npuDataType data_type);
npuError npuDestroyScalar(const npuScalar* scalar);
npuIntArray* npuCreateIntArray(const int64_t* value, uint64_t size);
npuError npuDestroyIntArray(const npuIntArray* array);
/* The list refers to the tensors; it does not own them. */
npuTensorList* npuCreateTensorList(const npuTensor* const* value, uint64_t size);
npuError npuDestroyTensorList(const npuTensorList* list);

/* The second phase of every operator. */
#define NPUNN_RUN_ARGS void* workspace, uint64_t workspace_size, npunnExecutor* executor, npurtStream stream
#define NPUNN_QUERY_ARGS uint64_t* workspace_size, npunnExecutor** executor

/* layout and copies */
npuError npunnTransDataGetWorkspaceSize(const npuTensor* src, npuTensor* dst, NPUNN_QUERY_ARGS);
npuError npunnTransData(NPUNN_RUN_ARGS);
npuError npunnInplaceCopyGetWorkspaceSize(npuTensor* dst, const npuTensor* src, NPUNN_QUERY_ARGS);
npuError npunnInplaceCopy(NPUNN_RUN_ARGS);

/* elementwise binary (broadcasting; out's dtype is the result type) */
npuError npunnAddGetWorkspaceSize(const npuTensor* self, const npuTensor* other, const npuScalar* alpha, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAdd(NPUNN_RUN_ARGS);
npuError npunnSubGetWorkspaceSize(const npuTensor* self, const npuTensor* other, const npuScalar* alpha, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSub(NPUNN_RUN_ARGS);
npuError npunnMulGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnMul(NPUNN_RUN_ARGS);
npuError npunnDivGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnDiv(NPUNN_RUN_ARGS);
npuError npunnAddsGetWorkspaceSize(const npuTensor* self, const npuScalar* other, const npuScalar* alpha, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAdds(NPUNN_RUN_ARGS);
npuError npunnSubsGetWorkspaceSize(const npuTensor* self, const npuScalar* other, const npuScalar* alpha, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSubs(NPUNN_RUN_ARGS);
npuError npunnMulsGetWorkspaceSize(const npuTensor* self, const npuScalar* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnMuls(NPUNN_RUN_ARGS);
npuError npunnDivsGetWorkspaceSize(const npuTensor* self, const npuScalar* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnDivs(NPUNN_RUN_ARGS);
npuError npunnMaximumGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnMaximum(NPUNN_RUN_ARGS);
npuError npunnMinimumGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnMinimum(NPUNN_RUN_ARGS);

/* comparisons (bool out) */
npuError npunnEqTensorGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnEqTensor(NPUNN_RUN_ARGS);
npuError npunnNeTensorGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnNeTensor(NPUNN_RUN_ARGS);
npuError npunnLtTensorGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnLtTensor(NPUNN_RUN_ARGS);
npuError npunnGtTensorGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnGtTensor(NPUNN_RUN_ARGS);
npuError npunnEqScalarGetWorkspaceSize(const npuTensor* self, const npuScalar* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnEqScalar(NPUNN_RUN_ARGS);
npuError npunnNeScalarGetWorkspaceSize(const npuTensor* self, const npuScalar* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnNeScalar(NPUNN_RUN_ARGS);
npuError npunnLtScalarGetWorkspaceSize(const npuTensor* self, const npuScalar* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnLtScalar(NPUNN_RUN_ARGS);
npuError npunnGtScalarGetWorkspaceSize(const npuTensor* self, const npuScalar* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnGtScalar(NPUNN_RUN_ARGS);

/* elementwise unary */
npuError npunnNegGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnNeg(NPUNN_RUN_ARGS);
npuError npunnExpGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnExp(NPUNN_RUN_ARGS);
npuError npunnLogGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnLog(NPUNN_RUN_ARGS);
npuError npunnSqrtGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSqrt(NPUNN_RUN_ARGS);
npuError npunnRsqrtGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnRsqrt(NPUNN_RUN_ARGS);
npuError npunnTanhGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnTanh(NPUNN_RUN_ARGS);
npuError npunnSigmoidGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSigmoid(NPUNN_RUN_ARGS);
npuError npunnReluGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnRelu(NPUNN_RUN_ARGS);
npuError npunnAbsGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAbs(NPUNN_RUN_ARGS);
npuError npunnSinGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSin(NPUNN_RUN_ARGS);
npuError npunnCosGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnCos(NPUNN_RUN_ARGS);
npuError npunnReciprocalGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnReciprocal(NPUNN_RUN_ARGS);
npuError npunnSiluGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSilu(NPUNN_RUN_ARGS);
npuError npunnErfGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnErf(NPUNN_RUN_ARGS);
npuError npunnIsNegInfGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnIsNegInf(NPUNN_RUN_ARGS);
/* approximate: "none" or "tanh" */
npuError npunnGeluGetWorkspaceSize(const npuTensor* self, const char* approximate, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnGelu(NPUNN_RUN_ARGS);
npuError npunnPowTensorScalarGetWorkspaceSize(const npuTensor* self, const npuScalar* exponent, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnPowTensorScalar(NPUNN_RUN_ARGS);
/* min and max may be null (no bound) */
npuError npunnClampGetWorkspaceSize(const npuTensor* self, const npuScalar* min, const npuScalar* max, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnClamp(NPUNN_RUN_ARGS);

/* activation gradients */
npuError npunnGeluBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* self, const char* approximate, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnGeluBackward(NPUNN_RUN_ARGS);
npuError npunnTanhBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* output, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnTanhBackward(NPUNN_RUN_ARGS);
npuError npunnSigmoidBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* output, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSigmoidBackward(NPUNN_RUN_ARGS);
npuError npunnSiluBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSiluBackward(NPUNN_RUN_ARGS);
npuError npunnThresholdBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* self, const npuScalar* threshold, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnThresholdBackward(NPUNN_RUN_ARGS);

/* ternary and masked */
npuError npunnAddcmulGetWorkspaceSize(const npuTensor* self, const npuTensor* tensor1, const npuTensor* tensor2, const npuScalar* value, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAddcmul(NPUNN_RUN_ARGS);
npuError npunnAddcdivGetWorkspaceSize(const npuTensor* self, const npuTensor* tensor1, const npuTensor* tensor2, const npuScalar* value, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAddcdiv(NPUNN_RUN_ARGS);
npuError npunnLerpsGetWorkspaceSize(const npuTensor* self, const npuTensor* end, const npuScalar* weight, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnLerps(NPUNN_RUN_ARGS);
npuError npunnWhereGetWorkspaceSize(const npuTensor* condition, const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnWhere(NPUNN_RUN_ARGS);
npuError npunnInplaceMaskedFillScalarGetWorkspaceSize(npuTensor* self, const npuTensor* mask, const npuScalar* value, NPUNN_QUERY_ARGS);
npuError npunnInplaceMaskedFillScalar(NPUNN_RUN_ARGS);
npuError npunnTrilGetWorkspaceSize(const npuTensor* self, int64_t diagonal, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnTril(NPUNN_RUN_ARGS);
npuError npunnTriuGetWorkspaceSize(const npuTensor* self, int64_t diagonal, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnTriu(NPUNN_RUN_ARGS);

/* fills, ranges, random */
npuError npunnInplaceFillScalarGetWorkspaceSize(npuTensor* self, const npuScalar* value, NPUNN_QUERY_ARGS);
npuError npunnInplaceFillScalar(NPUNN_RUN_ARGS);
npuError npunnInplaceZeroGetWorkspaceSize(npuTensor* self, NPUNN_QUERY_ARGS);
npuError npunnInplaceZero(NPUNN_RUN_ARGS);
npuError npunnArangeGetWorkspaceSize(const npuScalar* start, const npuScalar* end, const npuScalar* step, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnArange(NPUNN_RUN_ARGS);
npuError npunnInplaceNormalGetWorkspaceSize(npuTensor* self, double mean, double std, npuRandState state, NPUNN_QUERY_ARGS);
npuError npunnInplaceNormal(NPUNN_RUN_ARGS);
npuError npunnInplaceUniformGetWorkspaceSize(npuTensor* self, double from, double to, npuRandState state, NPUNN_QUERY_ARGS);
npuError npunnInplaceUniform(NPUNN_RUN_ARGS);
/* mask ~ Bernoulli(1 - p); out = input * mask / (1 - p) */
npuError npunnDropoutGetWorkspaceSize(const npuTensor* input, double p, bool train, npuRandState state, npuTensor* out, npuTensor* mask, NPUNN_QUERY_ARGS);
npuError npunnDropout(NPUNN_RUN_ARGS);
npuError npunnDropoutBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* mask, double scale, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnDropoutBackward(NPUNN_RUN_ARGS);

/* matrix multiplication: half and bfloat16 accumulate in a float32 workspace */
npuError npunnMmGetWorkspaceSize(const npuTensor* self, const npuTensor* mat2, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnMm(NPUNN_RUN_ARGS);
npuError npunnAddmmGetWorkspaceSize(const npuTensor* self, const npuTensor* mat1, const npuTensor* mat2, const npuScalar* beta, const npuScalar* alpha, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAddmm(NPUNN_RUN_ARGS);
npuError npunnBmmGetWorkspaceSize(const npuTensor* self, const npuTensor* mat2, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnBmm(NPUNN_RUN_ARGS);
npuError npunnBaddbmmGetWorkspaceSize(const npuTensor* self, const npuTensor* batch1, const npuTensor* batch2, const npuScalar* beta, const npuScalar* alpha, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnBaddbmm(NPUNN_RUN_ARGS);

/* reductions: dim == NULL reduces over all dims */
npuError npunnReduceSumGetWorkspaceSize(const npuTensor* self, const npuIntArray* dim, bool keepdim, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnReduceSum(NPUNN_RUN_ARGS);
npuError npunnMeanGetWorkspaceSize(const npuTensor* self, const npuIntArray* dim, bool keepdim, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnMean(NPUNN_RUN_ARGS);
npuError npunnAmaxGetWorkspaceSize(const npuTensor* self, const npuIntArray* dim, bool keepdim, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAmax(NPUNN_RUN_ARGS);
npuError npunnAminGetWorkspaceSize(const npuTensor* self, const npuIntArray* dim, bool keepdim, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAmin(NPUNN_RUN_ARGS);
/* dim: NULL (flattened) or one dim */
npuError npunnArgMaxGetWorkspaceSize(const npuTensor* self, const npuIntArray* dim, bool keepdim, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnArgMax(NPUNN_RUN_ARGS);
npuError npunnAllGetWorkspaceSize(const npuTensor* self, const npuIntArray* dim, bool keepdim, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAll(NPUNN_RUN_ARGS);

/* softmax and loss; index tensors (target) are int32 */
npuError npunnSoftmaxGetWorkspaceSize(const npuTensor* self, int64_t dim, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSoftmax(NPUNN_RUN_ARGS);
npuError npunnSoftmaxBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* output, int64_t dim, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSoftmaxBackward(NPUNN_RUN_ARGS);
npuError npunnLogSoftmaxGetWorkspaceSize(const npuTensor* self, int64_t dim, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnLogSoftmax(NPUNN_RUN_ARGS);
npuError npunnLogSoftmaxBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* output, int64_t dim, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnLogSoftmaxBackward(NPUNN_RUN_ARGS);
npuError npunnNLLLossGetWorkspaceSize(const npuTensor* self, const npuTensor* target, const npuTensor* weight, int64_t reduction, int64_t ignore_index, npuTensor* out, npuTensor* total_weight, NPUNN_QUERY_ARGS);
npuError npunnNLLLoss(NPUNN_RUN_ARGS);
npuError npunnNLLLossBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* self, const npuTensor* target, const npuTensor* weight, int64_t reduction, int64_t ignore_index, const npuTensor* total_weight, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnNLLLossBackward(NPUNN_RUN_ARGS);

/* shapes and indexing; index tensors are int32 */
npuError npunnCatGetWorkspaceSize(const npuTensorList* tensors, int64_t dim, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnCat(NPUNN_RUN_ARGS);
npuError npunnIndexSelectGetWorkspaceSize(const npuTensor* self, int64_t dim, const npuTensor* index, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnIndexSelect(NPUNN_RUN_ARGS);
npuError npunnEmbeddingDenseBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* indices, int64_t num_weights, int64_t padding_idx, bool scale_grad_by_freq, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnEmbeddingDenseBackward(NPUNN_RUN_ARGS);

/* convolution: input, weight and grad_output in NC1HWC0; bias and results in ND (NCHW) */
npuError npunnConvolutionGetWorkspaceSize(const npuTensor* input, const npuTensor* weight, const npuTensor* bias, const npuIntArray* stride, const npuIntArray* padding, const npuIntArray* dilation, int64_t groups, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnConvolution(NPUNN_RUN_ARGS);
/* A null grad_input / grad_weight / grad_bias is not computed. */
npuError npunnConvolutionBackwardGetWorkspaceSize(const npuTensor* grad_output, const npuTensor* input, const npuTensor* weight, const npuIntArray* stride, const npuIntArray* padding, const npuIntArray* dilation, int64_t groups, npuTensor* grad_input, npuTensor* grad_weight, npuTensor* grad_bias, NPUNN_QUERY_ARGS);
npuError npunnConvolutionBackward(NPUNN_RUN_ARGS);

/* pooling; max pooling writes int64 indices and reads int32 ones */
npuError npunnMaxPool2dWithIndicesGetWorkspaceSize(const npuTensor* self, const npuIntArray* kernel_size, const npuIntArray* stride, const npuIntArray* padding, const npuIntArray* dilation, bool ceil_mode, npuTensor* out, npuTensor* indices, NPUNN_QUERY_ARGS);
npuError npunnMaxPool2dWithIndices(NPUNN_RUN_ARGS);
npuError npunnMaxPool2dWithIndicesBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* self, const npuIntArray* kernel_size, const npuIntArray* stride, const npuIntArray* padding, const npuIntArray* dilation, bool ceil_mode, const npuTensor* indices, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnMaxPool2dWithIndicesBackward(NPUNN_RUN_ARGS);
/* divisor_override == 0: none */
npuError npunnAvgPool2dGetWorkspaceSize(const npuTensor* self, const npuIntArray* kernel_size, const npuIntArray* stride, const npuIntArray* padding, bool ceil_mode, bool count_include_pad, int64_t divisor_override, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAvgPool2d(NPUNN_RUN_ARGS);
npuError npunnAvgPool2dBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* self, const npuIntArray* kernel_size, const npuIntArray* stride, const npuIntArray* padding, bool ceil_mode, bool count_include_pad, int64_t divisor_override, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAvgPool2dBackward(NPUNN_RUN_ARGS);
npuError npunnAdaptiveAvgPool2dGetWorkspaceSize(const npuTensor* self, const npuIntArray* output_size, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAdaptiveAvgPool2d(NPUNN_RUN_ARGS);
npuError npunnAdaptiveAvgPool2dBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAdaptiveAvgPool2dBackward(NPUNN_RUN_ARGS);

/* normalization; optional tensors may be null */
npuError npunnBatchNormGetWorkspaceSize(const npuTensor* input, const npuTensor* weight, const npuTensor* bias, npuTensor* running_mean, npuTensor* running_var, bool training, double momentum, double eps, npuTensor* out, npuTensor* save_mean, npuTensor* save_invstd, NPUNN_QUERY_ARGS);
npuError npunnBatchNorm(NPUNN_RUN_ARGS);
npuError npunnBatchNormBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* input, const npuTensor* weight, const npuTensor* running_mean, const npuTensor* running_var, const npuTensor* save_mean, const npuTensor* save_invstd, bool training, double eps, npuTensor* grad_input, npuTensor* grad_weight, npuTensor* grad_bias, NPUNN_QUERY_ARGS);
npuError npunnBatchNormBackward(NPUNN_RUN_ARGS);
npuError npunnLayerNormGetWorkspaceSize(const npuTensor* input, const npuIntArray* normalized_shape, const npuTensor* weight, const npuTensor* bias, double eps, npuTensor* out, npuTensor* mean, npuTensor* rstd, NPUNN_QUERY_ARGS);
npuError npunnLayerNorm(NPUNN_RUN_ARGS);
npuError npunnLayerNormBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* input, const npuIntArray* normalized_shape, const npuTensor* mean, const npuTensor* rstd, const npuTensor* weight, const npuTensor* bias, npuTensor* grad_input, npuTensor* grad_weight, npuTensor* grad_bias, NPUNN_QUERY_ARGS);
npuError npunnLayerNormBackward(NPUNN_RUN_ARGS);

/* activations and their gradients (the ATen argument meanings) */
npuError npunnEluGetWorkspaceSize(const npuTensor* self, const npuScalar* alpha, const npuScalar* scale, const npuScalar* inputScale, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnElu(NPUNN_RUN_ARGS);
npuError npunnEluBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuScalar* alpha, const npuScalar* scale, const npuScalar* inputScale, bool isResult, const npuTensor* selfOrResult, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnEluBackward(NPUNN_RUN_ARGS);
npuError npunnHardtanhGetWorkspaceSize(const npuTensor* self, const npuScalar* minVal, const npuScalar* maxVal, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnHardtanh(NPUNN_RUN_ARGS);
npuError npunnHardtanhBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuScalar* minVal, const npuScalar* maxVal, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnHardtanhBackward(NPUNN_RUN_ARGS);
npuError npunnLeakyReluGetWorkspaceSize(const npuTensor* self, const npuScalar* negativeSlope, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnLeakyRelu(NPUNN_RUN_ARGS);
npuError npunnLeakyReluBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuScalar* negativeSlope, bool selfIsResult, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnLeakyReluBackward(NPUNN_RUN_ARGS);
npuError npunnSoftplusGetWorkspaceSize(const npuTensor* self, const npuScalar* beta, const npuScalar* threshold, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSoftplus(NPUNN_RUN_ARGS);
npuError npunnSoftplusBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuScalar* beta, const npuScalar* threshold, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSoftplusBackward(NPUNN_RUN_ARGS);
npuError npunnSoftshrinkGetWorkspaceSize(const npuTensor* self, const npuScalar* lambd, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSoftshrink(NPUNN_RUN_ARGS);
npuError npunnSoftshrinkBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuScalar* lambd, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSoftshrinkBackward(NPUNN_RUN_ARGS);
npuError npunnHardshrinkGetWorkspaceSize(const npuTensor* self, const npuScalar* lambd, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnHardshrink(NPUNN_RUN_ARGS);
npuError npunnHardshrinkBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuScalar* lambd, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnHardshrinkBackward(NPUNN_RUN_ARGS);
npuError npunnHardswishGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnHardswish(NPUNN_RUN_ARGS);
npuError npunnHardswishBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnHardswishBackward(NPUNN_RUN_ARGS);
npuError npunnHardsigmoidGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnHardsigmoid(NPUNN_RUN_ARGS);
npuError npunnHardsigmoidBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnHardsigmoidBackward(NPUNN_RUN_ARGS);

/* buffer: the forward's saved intermediate (same shape as self) */
npuError npunnLogSigmoidGetWorkspaceSize(const npuTensor* self, npuTensor* out, npuTensor* buffer, NPUNN_QUERY_ARGS);
npuError npunnLogSigmoid(NPUNN_RUN_ARGS);
npuError npunnLogSigmoidBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* buffer, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnLogSigmoidBackward(NPUNN_RUN_ARGS);
npuError npunnMishGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnMish(NPUNN_RUN_ARGS);
npuError npunnThresholdGetWorkspaceSize(const npuTensor* self, const npuScalar* threshold, const npuScalar* value, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnThreshold(NPUNN_RUN_ARGS);
npuError npunnGluGetWorkspaceSize(const npuTensor* self, int64_t dim, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnGlu(NPUNN_RUN_ARGS);
npuError npunnGluBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, int64_t dim, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnGluBackward(NPUNN_RUN_ARGS);
npuError npunnPreluGetWorkspaceSize(const npuTensor* self, const npuTensor* weight, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnPrelu(NPUNN_RUN_ARGS);
npuError npunnPreluBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* weight, npuTensor* gradInput, npuTensor* gradWeight, NPUNN_QUERY_ARGS);
npuError npunnPreluBackward(NPUNN_RUN_ARGS);
npuError npunnSgnGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSgn(NPUNN_RUN_ARGS);
npuError npunnClampMinGetWorkspaceSize(const npuTensor* self, const npuScalar* min, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnClampMin(NPUNN_RUN_ARGS);

/* dim: one dimension; NULL reduces over all dims */
npuError npunnAnyGetWorkspaceSize(const npuTensor* self, const npuIntArray* dim, bool keepdim, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAny(NPUNN_RUN_ARGS);

/* losses; reduction: 0 none, 1 mean, 2 sum; class-index targets are int32 */
npuError npunnMseLossGetWorkspaceSize(const npuTensor* self, const npuTensor* target, int64_t reduction, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnMseLoss(NPUNN_RUN_ARGS);
npuError npunnMseLossBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* target, int64_t reduction, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnMseLossBackward(NPUNN_RUN_ARGS);
npuError npunnSmoothL1LossGetWorkspaceSize(const npuTensor* self, const npuTensor* target, int64_t reduction, double beta, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSmoothL1Loss(NPUNN_RUN_ARGS);
npuError npunnSmoothL1LossBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* target, int64_t reduction, double beta, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSmoothL1LossBackward(NPUNN_RUN_ARGS);
npuError npunnHuberLossGetWorkspaceSize(const npuTensor* self, const npuTensor* target, int64_t reduction, double delta, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnHuberLoss(NPUNN_RUN_ARGS);
npuError npunnHuberLossBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* target, int64_t reduction, double delta, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnHuberLossBackward(NPUNN_RUN_ARGS);
npuError npunnBinaryCrossEntropyGetWorkspaceSize(const npuTensor* self, const npuTensor* target, const npuTensor* weight, int64_t reduction, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnBinaryCrossEntropy(NPUNN_RUN_ARGS);
npuError npunnBinaryCrossEntropyBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* target, const npuTensor* weight, int64_t reduction, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnBinaryCrossEntropyBackward(NPUNN_RUN_ARGS);
npuError npunnNLLLoss2dGetWorkspaceSize(const npuTensor* self, const npuTensor* target, const npuTensor* weight, int64_t reduction, int64_t ignoreIndex, npuTensor* out, npuTensor* totalWeight, NPUNN_QUERY_ARGS);
npuError npunnNLLLoss2d(NPUNN_RUN_ARGS);
npuError npunnNLLLoss2dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* target, const npuTensor* weight, int64_t reduction, int64_t ignoreIndex, const npuTensor* totalWeight, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnNLLLoss2dBackward(NPUNN_RUN_ARGS);
npuError npunnMultiMarginLossGetWorkspaceSize(const npuTensor* self, const npuTensor* target, const npuScalar* p, const npuScalar* margin, const npuTensor* weight, int64_t reduction, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnMultiMarginLoss(NPUNN_RUN_ARGS);
npuError npunnMultiMarginLossBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* target, const npuScalar* p, const npuScalar* margin, const npuTensor* weight, int64_t reduction, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnMultiMarginLossBackward(NPUNN_RUN_ARGS);
npuError npunnMultilabelMarginLossGetWorkspaceSize(const npuTensor* self, const npuTensor* target, int64_t reduction, npuTensor* out, npuTensor* isTarget, NPUNN_QUERY_ARGS);
npuError npunnMultilabelMarginLoss(NPUNN_RUN_ARGS);
npuError npunnMultilabelMarginLossBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* target, int64_t reduction, const npuTensor* isTarget, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnMultilabelMarginLossBackward(NPUNN_RUN_ARGS);

/* 3-D and adaptive pooling; divisor_override == 0: none; indices are written int64, read int32 */
npuError npunnAvgPool3dGetWorkspaceSize(const npuTensor* self, const npuIntArray* kernelSize, const npuIntArray* stride, const npuIntArray* padding, bool ceilMode, bool countIncludePad, int64_t divisorOverride, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAvgPool3d(NPUNN_RUN_ARGS);
npuError npunnAvgPool3dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuIntArray* kernelSize, const npuIntArray* stride, const npuIntArray* padding, bool ceilMode, bool countIncludePad, int64_t divisorOverride, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAvgPool3dBackward(NPUNN_RUN_ARGS);
npuError npunnMaxPool3dWithIndicesGetWorkspaceSize(const npuTensor* self, const npuIntArray* kernelSize, const npuIntArray* stride, const npuIntArray* padding, const npuIntArray* dilation, bool ceilMode, npuTensor* out, npuTensor* indices, NPUNN_QUERY_ARGS);
npuError npunnMaxPool3dWithIndices(NPUNN_RUN_ARGS);
npuError npunnMaxPool3dWithIndicesBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuIntArray* kernelSize, const npuIntArray* stride, const npuIntArray* padding, const npuIntArray* dilation, bool ceilMode, const npuTensor* indices, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnMaxPool3dWithIndicesBackward(NPUNN_RUN_ARGS);
npuError npunnAdaptiveMaxPool2dGetWorkspaceSize(const npuTensor* self, const npuIntArray* outputSize, npuTensor* out, npuTensor* indices, NPUNN_QUERY_ARGS);
npuError npunnAdaptiveMaxPool2d(NPUNN_RUN_ARGS);
npuError npunnAdaptiveMaxPool2dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* indices, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAdaptiveMaxPool2dBackward(NPUNN_RUN_ARGS);
npuError npunnAdaptiveMaxPool3dGetWorkspaceSize(const npuTensor* self, const npuIntArray* outputSize, npuTensor* out, npuTensor* indices, NPUNN_QUERY_ARGS);
npuError npunnAdaptiveMaxPool3d(NPUNN_RUN_ARGS);
npuError npunnAdaptiveMaxPool3dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* indices, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAdaptiveMaxPool3dBackward(NPUNN_RUN_ARGS);
npuError npunnAdaptiveAvgPool3dGetWorkspaceSize(const npuTensor* self, const npuIntArray* outputSize, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAdaptiveAvgPool3d(NPUNN_RUN_ARGS);
npuError npunnAdaptiveAvgPool3dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAdaptiveAvgPool3dBackward(NPUNN_RUN_ARGS);

/* randomSamples (N, C, 2): the pooling regions' offsets, drawn by the caller */
npuError npunnFractionalMaxPool2dGetWorkspaceSize(const npuTensor* self, const npuIntArray* kernelSize, const npuIntArray* outputSize, const npuTensor* randomSamples, npuTensor* out, npuTensor* indices, NPUNN_QUERY_ARGS);
npuError npunnFractionalMaxPool2d(NPUNN_RUN_ARGS);
npuError npunnFractionalMaxPool2dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuIntArray* kernelSize, const npuIntArray* outputSize, const npuTensor* indices, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnFractionalMaxPool2dBackward(NPUNN_RUN_ARGS);

/* padding, one operator per rank */
npuError npunnReflectionPad1dGetWorkspaceSize(const npuTensor* self, const npuIntArray* padding, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnReflectionPad1d(NPUNN_RUN_ARGS);
npuError npunnReflectionPad1dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuIntArray* padding, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnReflectionPad1dBackward(NPUNN_RUN_ARGS);
npuError npunnReflectionPad2dGetWorkspaceSize(const npuTensor* self, const npuIntArray* padding, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnReflectionPad2d(NPUNN_RUN_ARGS);
npuError npunnReflectionPad2dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuIntArray* padding, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnReflectionPad2dBackward(NPUNN_RUN_ARGS);
npuError npunnReflectionPad3dGetWorkspaceSize(const npuTensor* self, const npuIntArray* padding, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnReflectionPad3d(NPUNN_RUN_ARGS);
npuError npunnReflectionPad3dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuIntArray* padding, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnReflectionPad3dBackward(NPUNN_RUN_ARGS);
npuError npunnReplicationPad1dGetWorkspaceSize(const npuTensor* self, const npuIntArray* padding, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnReplicationPad1d(NPUNN_RUN_ARGS);
npuError npunnReplicationPad1dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuIntArray* padding, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnReplicationPad1dBackward(NPUNN_RUN_ARGS);
npuError npunnReplicationPad2dGetWorkspaceSize(const npuTensor* self, const npuIntArray* padding, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnReplicationPad2d(NPUNN_RUN_ARGS);
npuError npunnReplicationPad2dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuIntArray* padding, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnReplicationPad2dBackward(NPUNN_RUN_ARGS);
npuError npunnReplicationPad3dGetWorkspaceSize(const npuTensor* self, const npuIntArray* padding, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnReplicationPad3d(NPUNN_RUN_ARGS);
npuError npunnReplicationPad3dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuIntArray* padding, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnReplicationPad3dBackward(NPUNN_RUN_ARGS);

/* group normalization; a null gradInput / gradGamma / gradBeta is not computed */
npuError npunnGroupNormGetWorkspaceSize(const npuTensor* self, const npuTensor* gamma, const npuTensor* beta, int64_t n, int64_t c, int64_t hxw, int64_t group, double eps, npuTensor* out, npuTensor* meanOut, npuTensor* rstdOut, NPUNN_QUERY_ARGS);
npuError npunnGroupNorm(NPUNN_RUN_ARGS);
npuError npunnGroupNormBackwardGetWorkspaceSize(const npuTensor* gradOut, const npuTensor* self, const npuTensor* mean, const npuTensor* rstd, const npuTensor* gamma, int64_t n, int64_t c, int64_t hxw, int64_t group, npuTensor* gradInput, npuTensor* gradGamma, npuTensor* gradBeta, NPUNN_QUERY_ARGS);
npuError npunnGroupNormBackward(NPUNN_RUN_ARGS);

/* more elementwise unary: trigonometric, hyperbolic, special functions */
npuError npunnTanGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnTan(NPUNN_RUN_ARGS);
npuError npunnAsinGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAsin(NPUNN_RUN_ARGS);
npuError npunnAcosGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAcos(NPUNN_RUN_ARGS);
npuError npunnAtanGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAtan(NPUNN_RUN_ARGS);
npuError npunnSinhGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSinh(NPUNN_RUN_ARGS);
npuError npunnCoshGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnCosh(NPUNN_RUN_ARGS);
npuError npunnAsinhGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAsinh(NPUNN_RUN_ARGS);
npuError npunnAcoshGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAcosh(NPUNN_RUN_ARGS);
npuError npunnAtanhGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAtanh(NPUNN_RUN_ARGS);
npuError npunnExp2GetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnExp2(NPUNN_RUN_ARGS);
npuError npunnLog10GetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnLog10(NPUNN_RUN_ARGS);
npuError npunnFracGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnFrac(NPUNN_RUN_ARGS);
npuError npunnErfcGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnErfc(NPUNN_RUN_ARGS);
npuError npunnErfinvGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnErfinv(NPUNN_RUN_ARGS);
npuError npunnLgammaGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnLgamma(NPUNN_RUN_ARGS);
npuError npunnDigammaGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnDigamma(NPUNN_RUN_ARGS);
npuError npunnSincGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSinc(NPUNN_RUN_ARGS);
npuError npunnBitwiseNotGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnBitwiseNot(NPUNN_RUN_ARGS);
npuError npunnSignbitGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSignbit(NPUNN_RUN_ARGS);
npuError npunnIsPosInfGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnIsPosInf(NPUNN_RUN_ARGS);

/* more elementwise binary (broadcasting; out's dtype is the result type) */
npuError npunnBitwiseAndTensorGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnBitwiseAndTensor(NPUNN_RUN_ARGS);
npuError npunnBitwiseOrTensorGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnBitwiseOrTensor(NPUNN_RUN_ARGS);
npuError npunnBitwiseXorTensorGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnBitwiseXorTensor(NPUNN_RUN_ARGS);
npuError npunnLogicalAndGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnLogicalAnd(NPUNN_RUN_ARGS);
npuError npunnLogicalOrGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnLogicalOr(NPUNN_RUN_ARGS);
npuError npunnLogicalXorGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnLogicalXor(NPUNN_RUN_ARGS);
npuError npunnAtan2GetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAtan2(NPUNN_RUN_ARGS);
npuError npunnFmodTensorGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnFmodTensor(NPUNN_RUN_ARGS);
npuError npunnRemainderTensorTensorGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnRemainderTensorTensor(NPUNN_RUN_ARGS);
npuError npunnHypotGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnHypot(NPUNN_RUN_ARGS);
npuError npunnCopysignGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnCopysign(NPUNN_RUN_ARGS);
npuError npunnXLogYTensorGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnXLogYTensor(NPUNN_RUN_ARGS);
npuError npunnLogAddExpGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnLogAddExp(NPUNN_RUN_ARGS);
npuError npunnLogAddExp2GetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnLogAddExp2(NPUNN_RUN_ARGS);
npuError npunnFmaxGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnFmax(NPUNN_RUN_ARGS);
npuError npunnFminGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnFmin(NPUNN_RUN_ARGS);
npuError npunnBitwiseAndScalarGetWorkspaceSize(const npuTensor* self, const npuScalar* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnBitwiseAndScalar(NPUNN_RUN_ARGS);
npuError npunnBitwiseOrScalarGetWorkspaceSize(const npuTensor* self, const npuScalar* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnBitwiseOrScalar(NPUNN_RUN_ARGS);
npuError npunnBitwiseXorScalarGetWorkspaceSize(const npuTensor* self, const npuScalar* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnBitwiseXorScalar(NPUNN_RUN_ARGS);
npuError npunnFmodScalarGetWorkspaceSize(const npuTensor* self, const npuScalar* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnFmodScalar(NPUNN_RUN_ARGS);
npuError npunnRemainderTensorScalarGetWorkspaceSize(const npuTensor* self, const npuScalar* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnRemainderTensorScalar(NPUNN_RUN_ARGS);

/* more reductions: the result dtype is out's; dim: NULL means all dims */
npuError npunnProdGetWorkspaceSize(const npuTensor* self, int64_t dim, bool keepdim, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnProd(NPUNN_RUN_ARGS);
npuError npunnArgMinGetWorkspaceSize(const npuTensor* self, const npuIntArray* dim, bool keepdim, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnArgMin(NPUNN_RUN_ARGS);
npuError npunnLogSumExpGetWorkspaceSize(const npuTensor* self, const npuIntArray* dim, bool keepdim, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnLogSumExp(NPUNN_RUN_ARGS);
npuError npunnCumprodGetWorkspaceSize(const npuTensor* self, int64_t dim, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnCumprod(NPUNN_RUN_ARGS);
npuError npunnMaxDimGetWorkspaceSize(const npuTensor* self, int64_t dim, bool keepdim, npuTensor* out, npuTensor* indices, NPUNN_QUERY_ARGS);
npuError npunnMaxDim(NPUNN_RUN_ARGS);
npuError npunnMinDimGetWorkspaceSize(const npuTensor* self, int64_t dim, bool keepdim, npuTensor* out, npuTensor* indices, NPUNN_QUERY_ARGS);
npuError npunnMinDim(NPUNN_RUN_ARGS);

/* p: NULL is 2 */
npuError npunnNormGetWorkspaceSize(const npuTensor* self, const npuScalar* p, const npuIntArray* dim, bool keepdim, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnNorm(NPUNN_RUN_ARGS);

/* gather and scatter along dim; index tensors are int32 */
npuError npunnGatherGetWorkspaceSize(const npuTensor* self, int64_t dim, const npuTensor* index, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnGather(NPUNN_RUN_ARGS);
npuError npunnScatterGetWorkspaceSize(const npuTensor* self, int64_t dim, const npuTensor* index, const npuTensor* src, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnScatter(NPUNN_RUN_ARGS);
npuError npunnScatterValueGetWorkspaceSize(const npuTensor* self, int64_t dim, const npuTensor* index, const npuScalar* value, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnScatterValue(NPUNN_RUN_ARGS);
npuError npunnScatterAddGetWorkspaceSize(const npuTensor* self, int64_t dim, const npuTensor* index, const npuTensor* src, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnScatterAdd(NPUNN_RUN_ARGS);
npuError npunnIndexAddGetWorkspaceSize(const npuTensor* self, int64_t dim, const npuTensor* index, const npuTensor* source, const npuScalar* alpha, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnIndexAdd(NPUNN_RUN_ARGS);

/* detection ops (torchvision's); rois are [K, 5] (batch index, x1, y1, x2, y2) */
/* nms: keep (int64) has room for every box; the kept indices go to its leading rows, their number to kept[0] */
npuError npunnNmsGetWorkspaceSize(const npuTensor* boxes, const npuTensor* scores, double iou_threshold, npuTensor* keep, npuTensor* kept, NPUNN_QUERY_ARGS);
npuError npunnNms(NPUNN_RUN_ARGS);
npuError npunnRoiAlignGetWorkspaceSize(const npuTensor* input, const npuTensor* rois, double spatial_scale, int64_t pooled_height, int64_t pooled_width, int64_t sampling_ratio, bool aligned, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnRoiAlign(NPUNN_RUN_ARGS);
npuError npunnRoiAlignBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* rois, double spatial_scale, int64_t pooled_height, int64_t pooled_width, int64_t sampling_ratio, bool aligned, npuTensor* grad_input, NPUNN_QUERY_ARGS);
npuError npunnRoiAlignBackward(NPUNN_RUN_ARGS);
/* argmax: int32 */
npuError npunnRoiPoolGetWorkspaceSize(const npuTensor* input, const npuTensor* rois, double spatial_scale, int64_t pooled_height, int64_t pooled_width, npuTensor* out, npuTensor* argmax, NPUNN_QUERY_ARGS);
npuError npunnRoiPool(NPUNN_RUN_ARGS);
npuError npunnRoiPoolBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* rois, const npuTensor* argmax, double spatial_scale, int64_t pooled_height, int64_t pooled_width, npuTensor* grad_input, NPUNN_QUERY_ARGS);
npuError npunnRoiPoolBackward(NPUNN_RUN_ARGS);
/* deformable convolution (NCHW, ND format); mask read only when use_mask */
npuError npunnDeformConv2dGetWorkspaceSize(const npuTensor* input, const npuTensor* weight, const npuTensor* offset, const npuTensor* mask, const npuTensor* bias, int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w, int64_t dilation_h, int64_t dilation_w, int64_t groups, int64_t offset_groups, bool use_mask, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnDeformConv2d(NPUNN_RUN_ARGS);
npuError npunnDeformConv2dBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* input, const npuTensor* weight, const npuTensor* offset, const npuTensor* mask, const npuTensor* bias, int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w, int64_t dilation_h, int64_t dilation_w, int64_t groups, int64_t offset_groups, bool use_mask, npuTensor* grad_input, npuTensor* grad_weight, npuTensor* grad_offset, npuTensor* grad_mask, npuTensor* grad_bias, NPUNN_QUERY_ARGS);
npuError npunnDeformConv2dBackward(NPUNN_RUN_ARGS);

#ifdef __cplusplus
}
#endif

#endif /* NPU_OPS_H_ */
