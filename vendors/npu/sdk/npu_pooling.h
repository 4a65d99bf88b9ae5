/*
 * Pooling: one part of the simulated NPU's operator library, npu_ops.h, which says the library's
 * conventions.
 */
#ifndef NPU_POOLING_H_
#define NPU_POOLING_H_

#include "npu_handles.h"

#ifdef __cplusplus
extern "C" {
#endif

/* pooling; max pooling writes int64 indices and reads int32 ones */
npuError npunnMaxPool2dWithIndicesGetWorkspaceSize(const npuTensor* self, const npuIntArray* kernel_size, const npuIntArray* stride, const npuIntArray* padding, const npuIntArray* dilation, bool ceil_mode, npuTensor* out, npuTensor* indices, NPUNN_QUERY_ARGS);
npuError npunnMaxPool2dWithIndicesBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* self, const npuIntArray* kernel_size, const npuIntArray* stride, const npuIntArray* padding, const npuIntArray* dilation, bool ceil_mode, const npuTensor* indices, npuTensor* out, NPUNN_QUERY_ARGS);
/* divisor_override == 0: none */
npuError npunnAvgPool2dGetWorkspaceSize(const npuTensor* self, const npuIntArray* kernel_size, const npuIntArray* stride, const npuIntArray* padding, bool ceil_mode, bool count_include_pad, int64_t divisor_override, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAvgPool2dBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* self, const npuIntArray* kernel_size, const npuIntArray* stride, const npuIntArray* padding, bool ceil_mode, bool count_include_pad, int64_t divisor_override, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAdaptiveAvgPool2dGetWorkspaceSize(const npuTensor* self, const npuIntArray* output_size, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAdaptiveAvgPool2dBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);

/* 3-D and adaptive pooling; divisor_override == 0: none; indices are written int64, read int32 */
npuError npunnAvgPool3dGetWorkspaceSize(const npuTensor* self, const npuIntArray* kernelSize, const npuIntArray* stride, const npuIntArray* padding, bool ceilMode, bool countIncludePad, int64_t divisorOverride, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAvgPool3dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuIntArray* kernelSize, const npuIntArray* stride, const npuIntArray* padding, bool ceilMode, bool countIncludePad, int64_t divisorOverride, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnMaxPool3dWithIndicesGetWorkspaceSize(const npuTensor* self, const npuIntArray* kernelSize, const npuIntArray* stride, const npuIntArray* padding, const npuIntArray* dilation, bool ceilMode, npuTensor* out, npuTensor* indices, NPUNN_QUERY_ARGS);
npuError npunnMaxPool3dWithIndicesBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuIntArray* kernelSize, const npuIntArray* stride, const npuIntArray* padding, const npuIntArray* dilation, bool ceilMode, const npuTensor* indices, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAdaptiveMaxPool2dGetWorkspaceSize(const npuTensor* self, const npuIntArray* outputSize, npuTensor* out, npuTensor* indices, NPUNN_QUERY_ARGS);
npuError npunnAdaptiveMaxPool2dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* indices, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAdaptiveMaxPool3dGetWorkspaceSize(const npuTensor* self, const npuIntArray* outputSize, npuTensor* out, npuTensor* indices, NPUNN_QUERY_ARGS);
npuError npunnAdaptiveMaxPool3dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* indices, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAdaptiveAvgPool3dGetWorkspaceSize(const npuTensor* self, const npuIntArray* outputSize, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAdaptiveAvgPool3dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);

/* randomSamples (N, C, 2): the pooling regions' offsets, drawn by the caller */
npuError npunnFractionalMaxPool2dGetWorkspaceSize(const npuTensor* self, const npuIntArray* kernelSize, const npuIntArray* outputSize, const npuTensor* randomSamples, npuTensor* out, npuTensor* indices, NPUNN_QUERY_ARGS);
npuError npunnFractionalMaxPool2dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuIntArray* kernelSize, const npuIntArray* outputSize, const npuTensor* indices, npuTensor* out, NPUNN_QUERY_ARGS);

/* phase two of each operator above, in the same order */
npuError npunnMaxPool2dWithIndices(NPUNN_RUN_ARGS);
npuError npunnMaxPool2dWithIndicesBackward(NPUNN_RUN_ARGS);
npuError npunnAvgPool2d(NPUNN_RUN_ARGS);
npuError npunnAvgPool2dBackward(NPUNN_RUN_ARGS);
npuError npunnAdaptiveAvgPool2d(NPUNN_RUN_ARGS);
npuError npunnAdaptiveAvgPool2dBackward(NPUNN_RUN_ARGS);
npuError npunnAvgPool3d(NPUNN_RUN_ARGS);
npuError npunnAvgPool3dBackward(NPUNN_RUN_ARGS);
npuError npunnMaxPool3dWithIndices(NPUNN_RUN_ARGS);
npuError npunnMaxPool3dWithIndicesBackward(NPUNN_RUN_ARGS);
npuError npunnAdaptiveMaxPool2d(NPUNN_RUN_ARGS);
npuError npunnAdaptiveMaxPool2dBackward(NPUNN_RUN_ARGS);
npuError npunnAdaptiveMaxPool3d(NPUNN_RUN_ARGS);
npuError npunnAdaptiveMaxPool3dBackward(NPUNN_RUN_ARGS);
npuError npunnAdaptiveAvgPool3d(NPUNN_RUN_ARGS);
npuError npunnAdaptiveAvgPool3dBackward(NPUNN_RUN_ARGS);
npuError npunnFractionalMaxPool2d(NPUNN_RUN_ARGS);
npuError npunnFractionalMaxPool2dBackward(NPUNN_RUN_ARGS);

#ifdef __cplusplus
}
#endif

#endif /* NPU_POOLING_H_ */
