/*
 * torchvision's detection ops: one part of the simulated NPU's operator library, npu_ops.h, which
 * says the library's conventions.
 */
#ifndef NPU_TORCHVISION_H_
#define NPU_TORCHVISION_H_

#include "npu_handles.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#endif /* NPU_TORCHVISION_H_ */
