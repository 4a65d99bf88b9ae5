/*
 * Reductions, cumulative products, norms and softmax: one part of the simulated NPU's operator
 * library, npu_ops.h, which says the library's conventions.
 */
#ifndef NPU_REDUCTIONS_H_
#define NPU_REDUCTIONS_H_

#include "npu_handles.h"

#ifdef __cplusplus
extern "C" {
#endif

/* reductions: dim == NULL reduces over all dims */
npuError npunnReduceSumGetWorkspaceSize(const npuTensor* self, const npuIntArray* dim, bool keepdim, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnMeanGetWorkspaceSize(const npuTensor* self, const npuIntArray* dim, bool keepdim, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAmaxGetWorkspaceSize(const npuTensor* self, const npuIntArray* dim, bool keepdim, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAminGetWorkspaceSize(const npuTensor* self, const npuIntArray* dim, bool keepdim, npuTensor* out, NPUNN_QUERY_ARGS);
/* dim: NULL (flattened) or one dim */
npuError npunnArgMaxGetWorkspaceSize(const npuTensor* self, const npuIntArray* dim, bool keepdim, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAllGetWorkspaceSize(const npuTensor* self, const npuIntArray* dim, bool keepdim, npuTensor* out, NPUNN_QUERY_ARGS);

/* softmax */
npuError npunnSoftmaxGetWorkspaceSize(const npuTensor* self, int64_t dim, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSoftmaxBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* output, int64_t dim, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnLogSoftmaxGetWorkspaceSize(const npuTensor* self, int64_t dim, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnLogSoftmaxBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* output, int64_t dim, npuTensor* out, NPUNN_QUERY_ARGS);

/* dim: one dimension; NULL reduces over all dims */
npuError npunnAnyGetWorkspaceSize(const npuTensor* self, const npuIntArray* dim, bool keepdim, npuTensor* out, NPUNN_QUERY_ARGS);

/* more reductions: the result dtype is out's; dim: NULL means all dims */
npuError npunnProdGetWorkspaceSize(const npuTensor* self, int64_t dim, bool keepdim, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnArgMinGetWorkspaceSize(const npuTensor* self, const npuIntArray* dim, bool keepdim, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnLogSumExpGetWorkspaceSize(const npuTensor* self, const npuIntArray* dim, bool keepdim, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnCumprodGetWorkspaceSize(const npuTensor* self, int64_t dim, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnMaxDimGetWorkspaceSize(const npuTensor* self, int64_t dim, bool keepdim, npuTensor* out, npuTensor* indices, NPUNN_QUERY_ARGS);
npuError npunnMinDimGetWorkspaceSize(const npuTensor* self, int64_t dim, bool keepdim, npuTensor* out, npuTensor* indices, NPUNN_QUERY_ARGS);

/* p: NULL is 2 */
npuError npunnNormGetWorkspaceSize(const npuTensor* self, const npuScalar* p, const npuIntArray* dim, bool keepdim, npuTensor* out, NPUNN_QUERY_ARGS);

/* phase two of each operator above, in the same order */
npuError npunnReduceSum(NPUNN_RUN_ARGS);
npuError npunnMean(NPUNN_RUN_ARGS);
npuError npunnAmax(NPUNN_RUN_ARGS);
npuError npunnAmin(NPUNN_RUN_ARGS);
npuError npunnArgMax(NPUNN_RUN_ARGS);
npuError npunnAll(NPUNN_RUN_ARGS);
npuError npunnSoftmax(NPUNN_RUN_ARGS);
npuError npunnSoftmaxBackward(NPUNN_RUN_ARGS);
npuError npunnLogSoftmax(NPUNN_RUN_ARGS);
npuError npunnLogSoftmaxBackward(NPUNN_RUN_ARGS);
npuError npunnAny(NPUNN_RUN_ARGS);
npuError npunnProd(NPUNN_RUN_ARGS);
npuError npunnArgMin(NPUNN_RUN_ARGS);
npuError npunnLogSumExp(NPUNN_RUN_ARGS);
npuError npunnCumprod(NPUNN_RUN_ARGS);
npuError npunnMaxDim(NPUNN_RUN_ARGS);
npuError npunnMinDim(NPUNN_RUN_ARGS);
npuError npunnNorm(NPUNN_RUN_ARGS);

#ifdef __cplusplus
}
#endif

#endif /* NPU_REDUCTIONS_H_ */
