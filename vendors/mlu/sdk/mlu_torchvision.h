/*
 * torchvision's detection ops: one part of the simulated MLU's operator library, mlu_ops.h, which
 * says the library's conventions.
 */
#ifndef MLU_TORCHVISION_H_
#define MLU_TORCHVISION_H_

#include "mlu_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* detection ops (torchvision's): rois are [K, 5] (batch index, x1, y1, x2, y2) */
/* nms: keep has room for every box; the kept indices go to its leading rows, their number to kept[0] (int64) */
mluRet_t mluOpNms(mluQueue_t q, const mluTensor_t* boxes, const mluTensor_t* scores, double iou_threshold,
                  const mluTensor_t* keep, const mluTensor_t* kept);
mluRet_t mluOpRoiAlign(mluQueue_t q, const mluTensor_t* input, const mluTensor_t* rois, double spatial_scale,
                       int64_t pooled_height, int64_t pooled_width, int64_t sampling_ratio, bool aligned,
                       const mluTensor_t* out);
mluRet_t mluOpRoiAlignBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* rois, double spatial_scale,
                               int64_t pooled_height, int64_t pooled_width, int64_t sampling_ratio, bool aligned,
                               const mluTensor_t* grad_input);
/* argmax: int32, the input element each output came from */
mluRet_t mluOpRoiPool(mluQueue_t q, const mluTensor_t* input, const mluTensor_t* rois, double spatial_scale,
                      int64_t pooled_height, int64_t pooled_width, const mluTensor_t* out, const mluTensor_t* argmax);
mluRet_t mluOpRoiPoolBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* rois,
                              const mluTensor_t* argmax, double spatial_scale, int64_t pooled_height,
                              int64_t pooled_width, const mluTensor_t* grad_input);
/* deformable convolution (NCHW); mask is read only when use_mask. The parameters in their
   groups: the operands, the convolution's geometry, use_mask, the results. */
mluRet_t mluOpDeformConv2d(mluQueue_t q,
                           const mluTensor_t* input, const mluTensor_t* weight, const mluTensor_t* offset,
                           const mluTensor_t* mask, const mluTensor_t* bias,
                           int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w,
                           int64_t dilation_h, int64_t dilation_w, int64_t groups, int64_t offset_groups,
                           bool use_mask,
                           const mluTensor_t* out);
mluRet_t mluOpDeformConv2dBackward(mluQueue_t q, const mluTensor_t* grad,
                                   const mluTensor_t* input, const mluTensor_t* weight, const mluTensor_t* offset,
                                   const mluTensor_t* mask, const mluTensor_t* bias,
                                   int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w,
                                   int64_t dilation_h, int64_t dilation_w, int64_t groups, int64_t offset_groups,
                                   bool use_mask,
                                   const mluTensor_t* grad_input, const mluTensor_t* grad_weight,
                                   const mluTensor_t* grad_offset, const mluTensor_t* grad_mask,
                                   const mluTensor_t* grad_bias);

#ifdef __cplusplus
}
#endif

#endif /* MLU_TORCHVISION_H_ */
