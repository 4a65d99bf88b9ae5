/*
 * Activations and their gradients: one part of the simulated NPU's operator library, npu_ops.h,
 * which says the library's conventions.
 */
#ifndef NPU_ACTIVATIONS_H_
#define NPU_ACTIVATIONS_H_

#include "npu_handles.h"

#ifdef __cplusplus
extern "C" {
#endif

npuError npunnReluGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
/* approximate: "none" or "tanh" */
npuError npunnGeluGetWorkspaceSize(const npuTensor* self, const char* approximate, npuTensor* out, NPUNN_QUERY_ARGS);

/* activation gradients */
npuError npunnGeluBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* self, const char* approximate, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnTanhBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* output, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSigmoidBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* output, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSiluBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnThresholdBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* self, const npuScalar* threshold, npuTensor* out, NPUNN_QUERY_ARGS);

/* activations and their gradients (the ATen argument meanings) */
npuError npunnEluGetWorkspaceSize(const npuTensor* self, const npuScalar* alpha, const npuScalar* scale, const npuScalar* inputScale, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnEluBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuScalar* alpha, const npuScalar* scale, const npuScalar* inputScale, bool isResult, const npuTensor* selfOrResult, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnHardtanhGetWorkspaceSize(const npuTensor* self, const npuScalar* minVal, const npuScalar* maxVal, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnHardtanhBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuScalar* minVal, const npuScalar* maxVal, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnLeakyReluGetWorkspaceSize(const npuTensor* self, const npuScalar* negativeSlope, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnLeakyReluBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuScalar* negativeSlope, bool selfIsResult, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSoftplusGetWorkspaceSize(const npuTensor* self, const npuScalar* beta, const npuScalar* threshold, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSoftplusBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuScalar* beta, const npuScalar* threshold, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSoftshrinkGetWorkspaceSize(const npuTensor* self, const npuScalar* lambd, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSoftshrinkBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuScalar* lambd, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnHardshrinkGetWorkspaceSize(const npuTensor* self, const npuScalar* lambd, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnHardshrinkBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuScalar* lambd, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnHardswishGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnHardswishBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnHardsigmoidGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnHardsigmoidBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);

/* buffer: the forward's saved intermediate (same shape as self) */
npuError npunnLogSigmoidGetWorkspaceSize(const npuTensor* self, npuTensor* out, npuTensor* buffer, NPUNN_QUERY_ARGS);
npuError npunnLogSigmoidBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* buffer, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnMishGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnThresholdGetWorkspaceSize(const npuTensor* self, const npuScalar* threshold, const npuScalar* value, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnGluGetWorkspaceSize(const npuTensor* self, int64_t dim, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnGluBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, int64_t dim, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnPreluGetWorkspaceSize(const npuTensor* self, const npuTensor* weight, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnPreluBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* weight, npuTensor* gradInput, npuTensor* gradWeight, NPUNN_QUERY_ARGS);

/* phase two of each operator above, in the same order */
npuError npunnRelu(NPUNN_RUN_ARGS);
npuError npunnGelu(NPUNN_RUN_ARGS);
npuError npunnGeluBackward(NPUNN_RUN_ARGS);
npuError npunnTanhBackward(NPUNN_RUN_ARGS);
npuError npunnSigmoidBackward(NPUNN_RUN_ARGS);
npuError npunnSiluBackward(NPUNN_RUN_ARGS);
npuError npunnThresholdBackward(NPUNN_RUN_ARGS);
npuError npunnElu(NPUNN_RUN_ARGS);
npuError npunnEluBackward(NPUNN_RUN_ARGS);
npuError npunnHardtanh(NPUNN_RUN_ARGS);
npuError npunnHardtanhBackward(NPUNN_RUN_ARGS);
npuError npunnLeakyRelu(NPUNN_RUN_ARGS);
npuError npunnLeakyReluBackward(NPUNN_RUN_ARGS);
npuError npunnSoftplus(NPUNN_RUN_ARGS);
npuError npunnSoftplusBackward(NPUNN_RUN_ARGS);
npuError npunnSoftshrink(NPUNN_RUN_ARGS);
npuError npunnSoftshrinkBackward(NPUNN_RUN_ARGS);
npuError npunnHardshrink(NPUNN_RUN_ARGS);
npuError npunnHardshrinkBackward(NPUNN_RUN_ARGS);
npuError npunnHardswish(NPUNN_RUN_ARGS);
npuError npunnHardswishBackward(NPUNN_RUN_ARGS);
npuError npunnHardsigmoid(NPUNN_RUN_ARGS);
npuError npunnHardsigmoidBackward(NPUNN_RUN_ARGS);
npuError npunnLogSigmoid(NPUNN_RUN_ARGS);
npuError npunnLogSigmoidBackward(NPUNN_RUN_ARGS);
npuError npunnMish(NPUNN_RUN_ARGS);
npuError npunnThreshold(NPUNN_RUN_ARGS);
npuError npunnGlu(NPUNN_RUN_ARGS);
npuError npunnGluBackward(NPUNN_RUN_ARGS);
npuError npunnPrelu(NPUNN_RUN_ARGS);
npuError npunnPreluBackward(NPUNN_RUN_ARGS);

#ifdef __cplusplus
}
#endif

#endif /* NPU_ACTIVATIONS_H_ */
