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

#ifdef __cplusplus
}
#endif

#endif /* NPU_OPS_H_ */
