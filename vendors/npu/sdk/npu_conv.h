/*
 * Convolution: one part of the simulated NPU's operator library, npu_ops.h, which says the
 * library's conventions.
 */
#ifndef NPU_CONV_H_
#define NPU_CONV_H_

#include "npu_handles.h"

#ifdef __cplusplus
extern "C" {
#endif

/* convolution: input, weight and grad_output in NC1HWC0; bias and results in ND (NCHW) */
npuError npunnConvolutionGetWorkspaceSize(const npuTensor* input, const npuTensor* weight, const npuTensor* bias, const npuIntArray* stride, const npuIntArray* padding, const npuIntArray* dilation, int64_t groups, npuTensor* out, NPUNN_QUERY_ARGS);
/* A null grad_input / grad_weight / grad_bias is not computed. */
npuError npunnConvolutionBackwardGetWorkspaceSize(const npuTensor* grad_output, const npuTensor* input, const npuTensor* weight, const npuIntArray* stride, const npuIntArray* padding, const npuIntArray* dilation, int64_t groups, npuTensor* grad_input, npuTensor* grad_weight, npuTensor* grad_bias, NPUNN_QUERY_ARGS);

/* phase two of each operator above, in the same order */
npuError npunnConvolution(NPUNN_RUN_ARGS);
npuError npunnConvolutionBackward(NPUNN_RUN_ARGS);

#ifdef __cplusplus
}
#endif

#endif /* NPU_CONV_H_ */
