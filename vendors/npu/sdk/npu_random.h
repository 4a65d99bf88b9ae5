/*
 * Random numbers and dropout: one part of the simulated NPU's operator library, npu_ops.h, which
 * says the library's conventions.
 */
#ifndef NPU_RANDOM_H_
#define NPU_RANDOM_H_

#include "npu_handles.h"

#ifdef __cplusplus
extern "C" {
#endif

npuError npunnInplaceNormalGetWorkspaceSize(npuTensor* self, double mean, double std, npuRandState state, NPUNN_QUERY_ARGS);
npuError npunnInplaceUniformGetWorkspaceSize(npuTensor* self, double from, double to, npuRandState state, NPUNN_QUERY_ARGS);
/* mask ~ Bernoulli(1 - p); out = input * mask / (1 - p) */
npuError npunnDropoutGetWorkspaceSize(const npuTensor* input, double p, bool train, npuRandState state, npuTensor* out, npuTensor* mask, NPUNN_QUERY_ARGS);
npuError npunnDropoutBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* mask, double scale, npuTensor* out, NPUNN_QUERY_ARGS);

/* phase two of each operator above, in the same order */
npuError npunnInplaceNormal(NPUNN_RUN_ARGS);
npuError npunnInplaceUniform(NPUNN_RUN_ARGS);
npuError npunnDropout(NPUNN_RUN_ARGS);
npuError npunnDropoutBackward(NPUNN_RUN_ARGS);

#ifdef __cplusplus
}
#endif

#endif /* NPU_RANDOM_H_ */
