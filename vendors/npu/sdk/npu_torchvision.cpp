// Detection ops: torchvision's CPU kernels on the ALU (vendors/sim/alu_torchvision.h);
// rois are [K, 5] (batch index, x1, y1, x2, y2).
#include "npu_ops_internal.h"

#include "alu_torchvision.h"

using namespace npu_ops;

namespace {
namespace vision = torch_fl::sim::alu::torchvision;

npuError require_dtype(const char* op, const char* what, const npuTensor* t, npuDataType dtype) {
  if (!t || t->dtype == dtype) return NPU_SUCCESS;
  return fail(NPU_ERROR_NOT_SUPPORTED, vision::dtype_mismatch(op, what, aten_dtype(dtype), aten_dtype(t->dtype)));
}
}  // namespace

extern "C" {

npuError npunnNmsGetWorkspaceSize(const npuTensor* boxes, const npuTensor* scores, double iou_threshold,
                                  npuTensor* keep, npuTensor* kept, NPUNN_QUERY_ARGS) {
  if (npuError e = require_dtype("npunnNms", "keep", keep, NPU_INT64); e != NPU_SUCCESS) return e;
  if (npuError e = require_dtype("npunnNms", "kept", kept, NPU_INT64); e != NPU_SUCCESS) return e;
  return prepare("npunnNms", {boxes, scores, keep, kept},
                 [b = desc(boxes), s = desc(scores), iou_threshold, k = desc(keep), n = desc(kept)] {
                   vision::nms(view(b), view(s), iou_threshold, view(k), view(n));
                 }, workspace_size, executor);
}
NPUNN_RUN(Nms)

// roi_align and its backward take the same arguments (the backward's grad and
// grad_input in the input's and out's places): the ALU's KERNEL on their views.
#define NPU_ROI_ALIGN(NAME, KERNEL)                                                                                   \
  npuError npunn##NAME##GetWorkspaceSize(const npuTensor* input, const npuTensor* rois, double spatial_scale,        \
                                         int64_t pooled_height, int64_t pooled_width, int64_t sampling_ratio,         \
                                         bool aligned, npuTensor* out, NPUNN_QUERY_ARGS) {                            \
    const vision::RoiAlignParams params{spatial_scale, pooled_height, pooled_width, sampling_ratio, aligned};        \
    return prepare("npunn" #NAME, {input, rois, out}, [x = desc(input), r = desc(rois), params, o = desc(out)] {     \
      KERNEL(view(x), view(r), params, view(o));                                                                      \
    }, workspace_size, executor);                                                                                     \
  }                                                                                                                   \
  NPUNN_RUN(NAME)
NPU_ROI_ALIGN(RoiAlign, vision::roi_align)
NPU_ROI_ALIGN(RoiAlignBackward, vision::roi_align_backward)
#undef NPU_ROI_ALIGN

npuError npunnRoiPoolGetWorkspaceSize(const npuTensor* input, const npuTensor* rois, double spatial_scale,
                                      int64_t pooled_height, int64_t pooled_width, npuTensor* out, npuTensor* argmax,
                                      NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnRoiPool", "argmax", argmax); e != NPU_SUCCESS) return e;
  const vision::RoiPoolParams params{spatial_scale, pooled_height, pooled_width};
  return prepare("npunnRoiPool", {input, rois, out, argmax},
                 [x = desc(input), r = desc(rois), params, o = desc(out), a = desc(argmax)] {
                   vision::roi_pool(view(x), view(r), params, view(o), view(a));
                 }, workspace_size, executor);
}
NPUNN_RUN(RoiPool)

npuError npunnRoiPoolBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* rois, const npuTensor* argmax,
                                              double spatial_scale, int64_t pooled_height, int64_t pooled_width,
                                              npuTensor* grad_input, NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnRoiPoolBackward", "argmax", argmax); e != NPU_SUCCESS) return e;
  const vision::RoiPoolParams params{spatial_scale, pooled_height, pooled_width};
  return prepare("npunnRoiPoolBackward", {grad, rois, argmax, grad_input},
                 [g = desc(grad), r = desc(rois), a = desc(argmax), params, gi = desc(grad_input)] {
                   vision::roi_pool_backward(view(g), view(r), view(a), params, view(gi));
                 }, workspace_size, executor);
}
NPUNN_RUN(RoiPoolBackward)

npuError npunnDeformConv2dGetWorkspaceSize(const npuTensor* input, const npuTensor* weight, const npuTensor* offset,
                                           const npuTensor* mask, const npuTensor* bias, int64_t stride_h,
                                           int64_t stride_w, int64_t pad_h, int64_t pad_w, int64_t dilation_h,
                                           int64_t dilation_w, int64_t groups, int64_t offset_groups, bool use_mask,
                                           npuTensor* out, NPUNN_QUERY_ARGS) {
  const vision::DeformConv2dParams params{stride_h,   stride_w, pad_h,         pad_w,   dilation_h,
                                          dilation_w, groups,   offset_groups, use_mask};
  return prepare("npunnDeformConv2d", {input, weight, offset, mask, bias, out},
                 [x = desc(input), w = desc(weight), off = desc(offset), m = desc(mask), b = desc(bias), params,
                  o = desc(out)] {
                   vision::deform_conv2d(view(x), view(w), view(off), view(m), view(b), params, view(o));
                 }, workspace_size, executor);
}
NPUNN_RUN(DeformConv2d)

npuError npunnDeformConv2dBackwardGetWorkspaceSize(
    const npuTensor* grad, const npuTensor* input, const npuTensor* weight, const npuTensor* offset,
    const npuTensor* mask, const npuTensor* bias, int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w,
    int64_t dilation_h, int64_t dilation_w, int64_t groups, int64_t offset_groups, bool use_mask,
    npuTensor* grad_input, npuTensor* grad_weight, npuTensor* grad_offset, npuTensor* grad_mask, npuTensor* grad_bias,
    NPUNN_QUERY_ARGS) {
  const vision::DeformConv2dParams params{stride_h,   stride_w, pad_h,         pad_w,   dilation_h,
                                          dilation_w, groups,   offset_groups, use_mask};
  return prepare("npunnDeformConv2dBackward",
                 {grad, input, weight, offset, mask, bias, grad_input, grad_weight, grad_offset, grad_mask, grad_bias},
                 [g = desc(grad), x = desc(input), w = desc(weight), off = desc(offset), m = desc(mask), b = desc(bias),
                  params, gi = desc(grad_input), gw = desc(grad_weight), go = desc(grad_offset), gm = desc(grad_mask),
                  gb = desc(grad_bias)] {
                   vision::deform_conv2d_backward(view(g), view(x), view(w), view(off), view(m), view(b), params,
                                                  view(gi), view(gw), view(go), view(gm), view(gb));
                 }, workspace_size, executor);
}
NPUNN_RUN(DeformConv2dBackward)

}  // extern "C"
