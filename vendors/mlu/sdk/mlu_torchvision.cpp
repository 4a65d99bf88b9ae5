// Detection ops: torchvision's CPU kernels on the ALU (vendors/sim/alu_torchvision.h);
// rois are [K, 5] (batch index, x1, y1, x2, y2).
#include "mlu_ops_internal.h"

#include "alu_torchvision.h"

using namespace mlu_ops;

namespace {
namespace vision = torch_fl::sim::alu::torchvision;

mluRet_t require_dtype(const char* op, const char* what, const mluTensor_t* t, mluDataType_t dtype) {
  if (t == nullptr || t->dtype == dtype) return MLU_RET_SUCCESS;
  return fail(MLU_RET_ERR_NOT_SUPPORTED, vision::dtype_mismatch(op, what, aten_dtype(dtype), aten_dtype(t->dtype)));
}
}  // namespace

extern "C" {

mluRet_t mluOpNms(mluQueue_t q, const mluTensor_t* boxes, const mluTensor_t* scores, double iou_threshold,
                  const mluTensor_t* keep, const mluTensor_t* kept) {
  if (mluRet_t e = require_dtype("mluOpNms", "keep", keep, MLU_DTYPE_INT64); e != MLU_RET_SUCCESS) return e;
  if (mluRet_t e = require_dtype("mluOpNms", "kept", kept, MLU_DTYPE_INT64); e != MLU_RET_SUCCESS) return e;
  return launch("mluOpNms", q, {boxes, scores, keep, kept},
                [b = *boxes, s = *scores, iou_threshold, k = *keep, n = *kept] {
                  vision::nms(host_view(b), host_view(s), iou_threshold, host_view(k), host_view(n));
                });
}

// roi_align and its backward take the same arguments (the backward's grad and
// grad_input in the input's and out's places): the ALU's KERNEL on their views.
#define MLU_ROI_ALIGN(NAME, KERNEL)                                                                                   \
  mluRet_t mluOp##NAME(mluQueue_t q, const mluTensor_t* input, const mluTensor_t* rois, double spatial_scale,        \
                       int64_t pooled_height, int64_t pooled_width, int64_t sampling_ratio, bool aligned,            \
                       const mluTensor_t* out) {                                                                      \
    const vision::RoiAlignParams params{spatial_scale, pooled_height, pooled_width, sampling_ratio, aligned};        \
    return launch("mluOp" #NAME, q, {input, rois, out}, [x = *input, r = *rois, params, o = *out] {                  \
      KERNEL(host_view(x), host_view(r), params, host_view(o));                                                       \
    });                                                                                                               \
  }
MLU_ROI_ALIGN(RoiAlign, vision::roi_align)
MLU_ROI_ALIGN(RoiAlignBackward, vision::roi_align_backward)
#undef MLU_ROI_ALIGN

mluRet_t mluOpRoiPool(mluQueue_t q, const mluTensor_t* input, const mluTensor_t* rois, double spatial_scale,
                      int64_t pooled_height, int64_t pooled_width, const mluTensor_t* out, const mluTensor_t* argmax) {
  if (mluRet_t e = require_dtype("mluOpRoiPool", "argmax", argmax, MLU_DTYPE_INT32); e != MLU_RET_SUCCESS) return e;
  const vision::RoiPoolParams params{spatial_scale, pooled_height, pooled_width};
  return launch("mluOpRoiPool", q, {input, rois, out, argmax}, [x = *input, r = *rois, params, o = *out, a = *argmax] {
    vision::roi_pool(host_view(x), host_view(r), params, host_view(o), host_view(a));
  });
}

mluRet_t mluOpRoiPoolBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* rois,
                              const mluTensor_t* argmax, double spatial_scale, int64_t pooled_height,
                              int64_t pooled_width, const mluTensor_t* grad_input) {
  if (mluRet_t e = require_dtype("mluOpRoiPoolBackward", "argmax", argmax, MLU_DTYPE_INT32); e != MLU_RET_SUCCESS) {
    return e;
  }
  const vision::RoiPoolParams params{spatial_scale, pooled_height, pooled_width};
  return launch("mluOpRoiPoolBackward", q, {grad, rois, argmax, grad_input},
                [g = *grad, r = *rois, a = *argmax, params, gi = *grad_input] {
                  vision::roi_pool_backward(host_view(g), host_view(r), host_view(a), params, host_view(gi));
                });
}

mluRet_t mluOpDeformConv2d(mluQueue_t q, const mluTensor_t* input, const mluTensor_t* weight,
                           const mluTensor_t* offset, const mluTensor_t* mask, const mluTensor_t* bias,
                           int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w, int64_t dilation_h,
                           int64_t dilation_w, int64_t groups, int64_t offset_groups, bool use_mask,
                           const mluTensor_t* out) {
  const vision::DeformConv2dParams params{stride_h,   stride_w, pad_h,         pad_w,   dilation_h,
                                          dilation_w, groups,   offset_groups, use_mask};
  return launch("mluOpDeformConv2d", q, {input, weight, offset, mask, bias, out},
                [x = *input, w = *weight, off = *offset, m = *mask, b = *bias, params, o = *out] {
                  vision::deform_conv2d(host_view(x), host_view(w), host_view(off), host_view(m), host_view(b), params,
                                        host_view(o));
                });
}

mluRet_t mluOpDeformConv2dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* input,
                                   const mluTensor_t* weight, const mluTensor_t* offset, const mluTensor_t* mask,
                                   const mluTensor_t* bias, int64_t stride_h, int64_t stride_w, int64_t pad_h,
                                   int64_t pad_w, int64_t dilation_h, int64_t dilation_w, int64_t groups,
                                   int64_t offset_groups, bool use_mask, const mluTensor_t* grad_input,
                                   const mluTensor_t* grad_weight, const mluTensor_t* grad_offset,
                                   const mluTensor_t* grad_mask, const mluTensor_t* grad_bias) {
  const vision::DeformConv2dParams params{stride_h,   stride_w, pad_h,         pad_w,   dilation_h,
                                          dilation_w, groups,   offset_groups, use_mask};
  return launch("mluOpDeformConv2dBackward", q,
                {grad, input, weight, offset, mask, bias, grad_input, grad_weight, grad_offset, grad_mask, grad_bias},
                [g = *grad, x = *input, w = *weight, off = *offset, m = *mask, b = *bias, params, gi = *grad_input,
                 gw = *grad_weight, go = *grad_offset, gm = *grad_mask, gb = *grad_bias] {
                  vision::deform_conv2d_backward(host_view(g), host_view(x), host_view(w), host_view(off),
                                                 host_view(m), host_view(b), params, host_view(gi), host_view(gw),
                                                 host_view(go), host_view(gm), host_view(gb));
                });
}

}  // extern "C"
