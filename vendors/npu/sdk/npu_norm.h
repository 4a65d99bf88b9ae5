/*
 * Normalization: one part of the simulated NPU's operator library, npu_ops.h, which says the
 * library's conventions.
 */
#ifndef NPU_NORM_H_
#define NPU_NORM_H_

#include "npu_handles.h"

#ifdef __cplusplus
extern "C" {
#endif

/* normalization; optional tensors may be null */
npuError npunnBatchNormGetWorkspaceSize(const npuTensor* input, const npuTensor* weight, const npuTensor* bias, npuTensor* running_mean, npuTensor* running_var, bool training, double momentum, double eps, npuTensor* out, npuTensor* save_mean, npuTensor* save_invstd, NPUNN_QUERY_ARGS);
npuError npunnBatchNormBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* input, const npuTensor* weight, const npuTensor* running_mean, const npuTensor* running_var, const npuTensor* save_mean, const npuTensor* save_invstd, bool training, double eps, npuTensor* grad_input, npuTensor* grad_weight, npuTensor* grad_bias, NPUNN_QUERY_ARGS);
npuError npunnLayerNormGetWorkspaceSize(const npuTensor* input, const npuIntArray* normalized_shape, const npuTensor* weight, const npuTensor* bias, double eps, npuTensor* out, npuTensor* mean, npuTensor* rstd, NPUNN_QUERY_ARGS);
npuError npunnLayerNormBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* input, const npuIntArray* normalized_shape, const npuTensor* mean, const npuTensor* rstd, const npuTensor* weight, const npuTensor* bias, npuTensor* grad_input, npuTensor* grad_weight, npuTensor* grad_bias, NPUNN_QUERY_ARGS);

/* group normalization; a null gradInput / gradGamma / gradBeta is not computed */
npuError npunnGroupNormGetWorkspaceSize(const npuTensor* self, const npuTensor* gamma, const npuTensor* beta, int64_t n, int64_t c, int64_t hxw, int64_t group, double eps, npuTensor* out, npuTensor* meanOut, npuTensor* rstdOut, NPUNN_QUERY_ARGS);
npuError npunnGroupNormBackwardGetWorkspaceSize(const npuTensor* gradOut, const npuTensor* self, const npuTensor* mean, const npuTensor* rstd, const npuTensor* gamma, int64_t n, int64_t c, int64_t hxw, int64_t group, npuTensor* gradInput, npuTensor* gradGamma, npuTensor* gradBeta, NPUNN_QUERY_ARGS);

/* phase two of each operator above, in the same order */
npuError npunnBatchNorm(NPUNN_RUN_ARGS);
npuError npunnBatchNormBackward(NPUNN_RUN_ARGS);
npuError npunnLayerNorm(NPUNN_RUN_ARGS);
npuError npunnLayerNormBackward(NPUNN_RUN_ARGS);
npuError npunnGroupNorm(NPUNN_RUN_ARGS);
npuError npunnGroupNormBackward(NPUNN_RUN_ARGS);

#ifdef __cplusplus
}
#endif

#endif /* NPU_NORM_H_ */
