// Output rules of torchvision's detection ops (`namespaces: torchvision` in a
// spec): the shapes and dtypes torchvision's CPU kernels return, after the
// argument checks those kernels make, so that a bad call raises on the host at
// once, naming the op, instead of later from the device queue. Shared by every vendor.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <tuple>

namespace torch_fl::output_rules {

// nms: the largest result (every box kept), trimmed by the kernel's count.
at::Tensor nms(const at::Tensor& dets, const at::Tensor& scores, double iou_threshold);
at::Tensor roi_align(const at::Tensor& input, const at::Tensor& rois, double spatial_scale, int64_t pooled_height,
                     int64_t pooled_width, int64_t sampling_ratio, bool aligned);
at::Tensor roi_align_backward(const at::Tensor& grad, const at::Tensor& rois, double spatial_scale,
                              int64_t pooled_height, int64_t pooled_width, int64_t batch_size, int64_t channels,
                              int64_t height, int64_t width, int64_t sampling_ratio, bool aligned);
std::tuple<at::Tensor, at::Tensor> roi_pool(const at::Tensor& input, const at::Tensor& rois, double spatial_scale,
                                            int64_t pooled_height, int64_t pooled_width);
at::Tensor roi_pool_backward(const at::Tensor& grad, const at::Tensor& rois, const at::Tensor& argmax,
                             double spatial_scale, int64_t pooled_height, int64_t pooled_width, int64_t batch_size,
                             int64_t channels, int64_t height, int64_t width);
at::Tensor deform_conv2d(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& offset,
                         const at::Tensor& mask, const at::Tensor& bias, int64_t stride_h, int64_t stride_w,
                         int64_t pad_h, int64_t pad_w, int64_t dilation_h, int64_t dilation_w, int64_t groups,
                         int64_t offset_groups, bool use_mask);
// grad_input, grad_weight, grad_offset, grad_mask, grad_bias: shaped as the inputs.
std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor> deform_conv2d_backward(
    const at::Tensor& grad, const at::Tensor& input, const at::Tensor& weight, const at::Tensor& offset,
    const at::Tensor& mask, const at::Tensor& bias, int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w,
    int64_t dilation_h, int64_t dilation_w, int64_t groups, int64_t offset_groups, bool use_mask);

}  // namespace torch_fl::output_rules
