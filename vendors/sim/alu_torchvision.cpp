#include "alu_torchvision.h"

#include "alu.h"

#include <ATen/core/dispatch/Dispatcher.h>

namespace torch_fl::sim::alu::torchvision {
namespace {

// torchvision's CPU kernel of `name`, reached by redispatching straight to the
// CPU key: the views are plain CPU tensors that need no autograd, and the
// kernels torchvision registers above CPU (its autograd and autocast wrappers)
// are Python functions in recent releases, which a worker thread would have to
// take the GIL for, while the host thread that enqueued the work may hold it.
template <class Signature>
struct CpuKernel {
  explicit CpuKernel(const char* name)
      : handle(c10::Dispatcher::singleton().findSchemaOrThrow(name, "").typed<Signature>()) {}

  template <class... Args>
  decltype(auto) operator()(Args&&... args) const {
    return handle.redispatch(c10::DispatchKeySet(c10::DispatchKey::CPU), std::forward<Args>(args)...);
  }

  c10::TypedOperatorHandle<Signature> handle;
};

using TensorRef = const at::Tensor&;

}  // namespace

void nms(const at::Tensor& dets, const at::Tensor& scores, double iou_threshold, const at::Tensor& keep,
         const at::Tensor& kept) {
  static const CpuKernel<at::Tensor(TensorRef, TensorRef, double)> kernel("torchvision::nms");
  const at::Tensor indices = kernel(dets, scores, iou_threshold);
  keep.narrow(0, 0, indices.size(0)).copy_(indices);
  kept.fill_(indices.size(0));
}

void roi_align(const at::Tensor& input, const at::Tensor& rois, const RoiAlignParams& p, const at::Tensor& out) {
  static const CpuKernel<at::Tensor(TensorRef, TensorRef, double, c10::SymInt, c10::SymInt, int64_t, bool)> kernel(
      "torchvision::roi_align");
  store(out, kernel(input, rois, p.spatial_scale, c10::SymInt(p.pooled_height), c10::SymInt(p.pooled_width),
                    p.sampling_ratio, p.aligned));
}

void roi_align_backward(const at::Tensor& grad, const at::Tensor& rois, const RoiAlignParams& p,
                        const at::Tensor& grad_input) {
  static const CpuKernel<at::Tensor(TensorRef, TensorRef, double, c10::SymInt, c10::SymInt, c10::SymInt, c10::SymInt,
                                    c10::SymInt, c10::SymInt, int64_t, bool)>
      kernel("torchvision::_roi_align_backward");
  const at::IntArrayRef input_sizes = grad_input.sizes();
  store(grad_input, kernel(grad, rois, p.spatial_scale, c10::SymInt(p.pooled_height), c10::SymInt(p.pooled_width),
                           c10::SymInt(input_sizes.at(0)), c10::SymInt(input_sizes.at(1)),
                           c10::SymInt(input_sizes.at(2)), c10::SymInt(input_sizes.at(3)), p.sampling_ratio,
                           p.aligned));
}

void roi_pool(const at::Tensor& input, const at::Tensor& rois, const RoiPoolParams& p, const at::Tensor& out,
              const at::Tensor& argmax) {
  static const CpuKernel<std::tuple<at::Tensor, at::Tensor>(TensorRef, TensorRef, double, c10::SymInt, c10::SymInt)>
      kernel("torchvision::roi_pool");
  auto [values, where] =
      kernel(input, rois, p.spatial_scale, c10::SymInt(p.pooled_height), c10::SymInt(p.pooled_width));
  store(out, values);
  store(argmax, where);
}

void roi_pool_backward(const at::Tensor& grad, const at::Tensor& rois, const at::Tensor& argmax,
                       const RoiPoolParams& p, const at::Tensor& grad_input) {
  static const CpuKernel<at::Tensor(TensorRef, TensorRef, TensorRef, double, c10::SymInt, c10::SymInt, c10::SymInt,
                                    c10::SymInt, c10::SymInt, c10::SymInt)>
      kernel("torchvision::_roi_pool_backward");
  const at::IntArrayRef input_sizes = grad_input.sizes();
  store(grad_input,
        kernel(grad, rois, argmax, p.spatial_scale, c10::SymInt(p.pooled_height), c10::SymInt(p.pooled_width),
               c10::SymInt(input_sizes.at(0)), c10::SymInt(input_sizes.at(1)), c10::SymInt(input_sizes.at(2)),
               c10::SymInt(input_sizes.at(3))));
}

namespace {
using DeformSignature = at::Tensor(TensorRef, TensorRef, TensorRef, TensorRef, TensorRef, c10::SymInt, c10::SymInt,
                                   c10::SymInt, c10::SymInt, c10::SymInt, c10::SymInt, c10::SymInt, c10::SymInt,
                                   bool);
using DeformBackwardSignature = std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor>(
    TensorRef, TensorRef, TensorRef, TensorRef, TensorRef, TensorRef, c10::SymInt, c10::SymInt, c10::SymInt,
    c10::SymInt, c10::SymInt, c10::SymInt, c10::SymInt, c10::SymInt, bool);
}  // namespace

void deform_conv2d(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& offset, const at::Tensor& mask,
                   const at::Tensor& bias, const DeformConv2dParams& p, const at::Tensor& out) {
  static const CpuKernel<DeformSignature> kernel("torchvision::deform_conv2d");
  store(out, kernel(input, weight, offset, mask, bias, c10::SymInt(p.stride_h), c10::SymInt(p.stride_w),
                    c10::SymInt(p.pad_h), c10::SymInt(p.pad_w), c10::SymInt(p.dilation_h),
                    c10::SymInt(p.dilation_w), c10::SymInt(p.groups), c10::SymInt(p.offset_groups), p.use_mask));
}

void deform_conv2d_backward(const at::Tensor& grad, const at::Tensor& input, const at::Tensor& weight,
                            const at::Tensor& offset, const at::Tensor& mask, const at::Tensor& bias,
                            const DeformConv2dParams& p, const at::Tensor& grad_input,
                            const at::Tensor& grad_weight, const at::Tensor& grad_offset, const at::Tensor& grad_mask,
                            const at::Tensor& grad_bias) {
  static const CpuKernel<DeformBackwardSignature> kernel("torchvision::_deform_conv2d_backward");
  auto [dx, dw, doff, dm, db] =
      kernel(grad, input, weight, offset, mask, bias, c10::SymInt(p.stride_h), c10::SymInt(p.stride_w),
             c10::SymInt(p.pad_h), c10::SymInt(p.pad_w), c10::SymInt(p.dilation_h), c10::SymInt(p.dilation_w),
             c10::SymInt(p.groups), c10::SymInt(p.offset_groups), p.use_mask);
  store(grad_input, dx);
  store(grad_weight, dw);
  store(grad_offset, doff);
  store(grad_mask, dm);
  store(grad_bias, db);
}

}  // namespace torch_fl::sim::alu::torchvision
