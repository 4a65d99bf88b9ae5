/*
 * Losses: one part of the simulated NPU's operator library, npu_ops.h, which says the library's
 * conventions.
 */
#ifndef NPU_LOSSES_H_
#define NPU_LOSSES_H_

#include "npu_handles.h"

#ifdef __cplusplus
extern "C" {
#endif

/* reduction: 0 none, 1 mean, 2 sum; class-index targets are int32 */
npuError npunnNLLLossGetWorkspaceSize(const npuTensor* self, const npuTensor* target, const npuTensor* weight, int64_t reduction, int64_t ignore_index, npuTensor* out, npuTensor* total_weight, NPUNN_QUERY_ARGS);
npuError npunnNLLLossBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* self, const npuTensor* target, const npuTensor* weight, int64_t reduction, int64_t ignore_index, const npuTensor* total_weight, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnMseLossGetWorkspaceSize(const npuTensor* self, const npuTensor* target, int64_t reduction, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnMseLossBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* target, int64_t reduction, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSmoothL1LossGetWorkspaceSize(const npuTensor* self, const npuTensor* target, int64_t reduction, double beta, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSmoothL1LossBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* target, int64_t reduction, double beta, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnHuberLossGetWorkspaceSize(const npuTensor* self, const npuTensor* target, int64_t reduction, double delta, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnHuberLossBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* target, int64_t reduction, double delta, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnBinaryCrossEntropyGetWorkspaceSize(const npuTensor* self, const npuTensor* target, const npuTensor* weight, int64_t reduction, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnBinaryCrossEntropyBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* target, const npuTensor* weight, int64_t reduction, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnNLLLoss2dGetWorkspaceSize(const npuTensor* self, const npuTensor* target, const npuTensor* weight, int64_t reduction, int64_t ignoreIndex, npuTensor* out, npuTensor* totalWeight, NPUNN_QUERY_ARGS);
npuError npunnNLLLoss2dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* target, const npuTensor* weight, int64_t reduction, int64_t ignoreIndex, const npuTensor* totalWeight, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnMultiMarginLossGetWorkspaceSize(const npuTensor* self, const npuTensor* target, const npuScalar* p, const npuScalar* margin, const npuTensor* weight, int64_t reduction, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnMultiMarginLossBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* target, const npuScalar* p, const npuScalar* margin, const npuTensor* weight, int64_t reduction, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnMultilabelMarginLossGetWorkspaceSize(const npuTensor* self, const npuTensor* target, int64_t reduction, npuTensor* out, npuTensor* isTarget, NPUNN_QUERY_ARGS);
npuError npunnMultilabelMarginLossBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* target, int64_t reduction, const npuTensor* isTarget, npuTensor* out, NPUNN_QUERY_ARGS);

/* phase two of each operator above, in the same order */
npuError npunnNLLLoss(NPUNN_RUN_ARGS);
npuError npunnNLLLossBackward(NPUNN_RUN_ARGS);
npuError npunnMseLoss(NPUNN_RUN_ARGS);
npuError npunnMseLossBackward(NPUNN_RUN_ARGS);
npuError npunnSmoothL1Loss(NPUNN_RUN_ARGS);
npuError npunnSmoothL1LossBackward(NPUNN_RUN_ARGS);
npuError npunnHuberLoss(NPUNN_RUN_ARGS);
npuError npunnHuberLossBackward(NPUNN_RUN_ARGS);
npuError npunnBinaryCrossEntropy(NPUNN_RUN_ARGS);
npuError npunnBinaryCrossEntropyBackward(NPUNN_RUN_ARGS);
npuError npunnNLLLoss2d(NPUNN_RUN_ARGS);
npuError npunnNLLLoss2dBackward(NPUNN_RUN_ARGS);
npuError npunnMultiMarginLoss(NPUNN_RUN_ARGS);
npuError npunnMultiMarginLossBackward(NPUNN_RUN_ARGS);
npuError npunnMultilabelMarginLoss(NPUNN_RUN_ARGS);
npuError npunnMultilabelMarginLossBackward(NPUNN_RUN_ARGS);

#ifdef __cplusplus
}
#endif

#endif /* NPU_LOSSES_H_ */
