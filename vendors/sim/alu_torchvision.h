// torchvision's detection ops on the simulators' ALU: torchvision's own CPU
// kernels, reached through the dispatcher (the chips' op libraries do not link
// torchvision; whoever calls its ops has imported it, which registered them).
// Arguments are host views of device memory, as for every ALU kernel.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <string>

namespace torch_fl::sim::alu::torchvision {

// A detection op's error for an index operand (nms's keep, roi_pool's argmax) in
// another dtype than the one its kernel writes, worded alike on every chip.
inline std::string dtype_mismatch(const char* op, const char* what, c10::ScalarType want, c10::ScalarType got) {
  return std::string(op) + ": " + what + " must be " + c10::toString(want) + ", got " + c10::toString(got);
}

// Each op writes its results into the output views it is given, as every chip
// wants them (through alu::store: an undefined view, an output the caller did
// not ask for, is skipped). A backward's grad_input also gives the forward's
// input's sizes (N, C, H, W).

// The indices of the boxes kept, best score first, into keep's leading rows,
// and how many there are into kept[0] (keep has room for every box).
void nms(const at::Tensor& dets, const at::Tensor& scores, double iou_threshold, const at::Tensor& keep,
         const at::Tensor& kept);

// The region pooling of roi_pool (and roi_align, with its sampling): rois scaled
// by spatial_scale into the input, each pooled to pooled_height x pooled_width.
struct RoiPoolParams {
  double spatial_scale;
  int64_t pooled_height, pooled_width;
};
struct RoiAlignParams {
  double spatial_scale;
  int64_t pooled_height, pooled_width, sampling_ratio;
  bool aligned;
};

// roi_align and its backward take the same arguments, the backward's grad and
// grad_input in the forward's input's and out's places.
void roi_align(const at::Tensor& input, const at::Tensor& rois, const RoiAlignParams& params, const at::Tensor& out);
void roi_align_backward(const at::Tensor& grad, const at::Tensor& rois, const RoiAlignParams& params,
                        const at::Tensor& grad_input);
void roi_pool(const at::Tensor& input, const at::Tensor& rois, const RoiPoolParams& params, const at::Tensor& out,
              const at::Tensor& argmax);
void roi_pool_backward(const at::Tensor& grad, const at::Tensor& rois, const at::Tensor& argmax,
                       const RoiPoolParams& params, const at::Tensor& grad_input);

struct DeformConv2dParams {
  int64_t stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w, groups, offset_groups;
  bool use_mask;
};
void deform_conv2d(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& offset, const at::Tensor& mask,
                   const at::Tensor& bias, const DeformConv2dParams& params, const at::Tensor& out);
void deform_conv2d_backward(const at::Tensor& grad, const at::Tensor& input, const at::Tensor& weight,
                            const at::Tensor& offset, const at::Tensor& mask, const at::Tensor& bias,
                            const DeformConv2dParams& params, const at::Tensor& grad_input,
                            const at::Tensor& grad_weight, const at::Tensor& grad_offset, const at::Tensor& grad_mask,
                            const at::Tensor& grad_bias);

}  // namespace torch_fl::sim::alu::torchvision
