// Output rules of torchvision's detection ops: the shapes and dtypes
// torchvision's CPU kernels return, and the argument checks they make, so that
// a bad call raises on the host, synchronously, naming the op.
#include <torch_fl/output_rules.h>

namespace torch_fl::output_rules {
namespace {

at::Tensor meta_empty(at::IntArrayRef sizes, const at::Tensor& like, c10::ScalarType dtype) {
  return at::empty(sizes, like.options().dtype(dtype).device(c10::DeviceType::Meta));
}

void check_rois(const char* op, const at::Tensor& input, const at::Tensor& rois) {
  TORCH_CHECK(rois.dim() == 2 && rois.size(1) == 5, op, ": rois must have shape [K, 5], got ", rois.sizes());
  TORCH_CHECK(input.scalar_type() == rois.scalar_type(), op, ": input and rois must have the same dtype, got ",
              input.scalar_type(), " and ", rois.scalar_type());
}

void check_pooled(const char* op, int64_t pooled_height, int64_t pooled_width) {
  TORCH_CHECK(pooled_height > 0 && pooled_width > 0, op, ": the pooled size must be positive, got ", pooled_height,
              "x", pooled_width);
}

}  // namespace

at::Tensor nms(const at::Tensor& dets, const at::Tensor& scores, double) {
  TORCH_CHECK(dets.dim() == 2, "nms: boxes should be a 2d tensor, got ", dets.dim(), "D");
  TORCH_CHECK(dets.size(1) == 4, "nms: boxes should have 4 elements in dimension 1, got ", dets.size(1));
  TORCH_CHECK(scores.dim() == 1, "nms: scores should be a 1d tensor, got ", scores.dim(), "D");
  TORCH_CHECK(dets.size(0) == scores.size(0), "nms: boxes and scores should have the same number of elements in ",
              "dimension 0, got ", dets.size(0), " and ", scores.size(0));
  TORCH_CHECK(dets.scalar_type() == scores.scalar_type(), "nms: boxes and scores must have the same dtype, got ",
              dets.scalar_type(), " and ", scores.scalar_type());
  return meta_empty({dets.size(0)}, dets, at::kLong);
}

at::Tensor roi_align(const at::Tensor& input, const at::Tensor& rois, double, int64_t pooled_height,
                     int64_t pooled_width, int64_t, bool) {
  check_rois("roi_align", input, rois);
  check_pooled("roi_align", pooled_height, pooled_width);
  TORCH_CHECK(input.dim() == 4, "roi_align: input must be NCHW, got ", input.dim(), "D");
  return meta_empty({rois.size(0), input.size(1), pooled_height, pooled_width}, input, input.scalar_type());
}

at::Tensor roi_align_backward(const at::Tensor& grad, const at::Tensor& rois, double, int64_t, int64_t,
                              int64_t batch_size, int64_t channels, int64_t height, int64_t width, int64_t, bool) {
  check_rois("_roi_align_backward", grad, rois);
  return meta_empty({batch_size, channels, height, width}, grad, grad.scalar_type());
}

std::tuple<at::Tensor, at::Tensor> roi_pool(const at::Tensor& input, const at::Tensor& rois, double,
                                            int64_t pooled_height, int64_t pooled_width) {
  check_rois("roi_pool", input, rois);
  check_pooled("roi_pool", pooled_height, pooled_width);
  TORCH_CHECK(input.dim() == 4, "roi_pool: input must be NCHW, got ", input.dim(), "D");
  const std::vector<int64_t> sizes{rois.size(0), input.size(1), pooled_height, pooled_width};
  return {meta_empty(sizes, input, input.scalar_type()), meta_empty(sizes, input, at::kInt)};
}

at::Tensor roi_pool_backward(const at::Tensor& grad, const at::Tensor& rois, const at::Tensor& argmax, double,
                             int64_t, int64_t, int64_t batch_size, int64_t channels, int64_t height, int64_t width) {
  check_rois("_roi_pool_backward", grad, rois);
  TORCH_CHECK(argmax.sizes() == grad.sizes(), "_roi_pool_backward: argmax must have the shape of grad, got ",
              argmax.sizes(), " and ", grad.sizes());
  return meta_empty({batch_size, channels, height, width}, grad, grad.scalar_type());
}

at::Tensor deform_conv2d(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& offset,
                         const at::Tensor& mask, const at::Tensor& bias, int64_t stride_h, int64_t stride_w,
                         int64_t pad_h, int64_t pad_w, int64_t dilation_h, int64_t dilation_w, int64_t groups,
                         int64_t offset_groups, bool use_mask) {
  TORCH_CHECK(input.dim() == 4 && weight.dim() == 4 && offset.dim() == 4,
              "deform_conv2d: input, weight and offset must be 4-D, got ", input.dim(), "D, ", weight.dim(), "D and ",
              offset.dim(), "D");
  TORCH_CHECK(!use_mask || mask.dim() == 4, "deform_conv2d: mask must be 4-D, got ", mask.dim(), "D");
  TORCH_CHECK(stride_h > 0 && stride_w > 0 && dilation_h > 0 && dilation_w > 0 && pad_h >= 0 && pad_w >= 0,
              "deform_conv2d: strides and dilations must be positive and paddings non-negative");
  TORCH_CHECK(groups > 0 && offset_groups > 0 && input.size(1) % groups == 0 && input.size(1) % offset_groups == 0,
              "deform_conv2d: the input's ", input.size(1), " channels do not divide into ", groups, " groups and ",
              offset_groups, " offset groups");
  TORCH_CHECK(weight.size(1) * groups == input.size(1), "deform_conv2d: weight takes ", weight.size(1) * groups,
              " input channels, the input has ", input.size(1));
  TORCH_CHECK(bias.numel() == weight.size(0), "deform_conv2d: bias has ", bias.numel(), " elements for ",
              weight.size(0), " output channels");
  const int64_t kernel_h = weight.size(2), kernel_w = weight.size(3);
  const int64_t out_h = (input.size(2) + 2 * pad_h - (dilation_h * (kernel_h - 1) + 1)) / stride_h + 1;
  const int64_t out_w = (input.size(3) + 2 * pad_w - (dilation_w * (kernel_w - 1) + 1)) / stride_w + 1;
  TORCH_CHECK(out_h > 0 && out_w > 0, "deform_conv2d: the output would be ", out_h, "x", out_w);
  TORCH_CHECK(offset.size(1) == offset_groups * 2 * kernel_h * kernel_w,
              "deform_conv2d: offset needs ", offset_groups * 2 * kernel_h * kernel_w, " channels, got ",
              offset.size(1));
  TORCH_CHECK(offset.size(2) == out_h && offset.size(3) == out_w, "deform_conv2d: offset must be ", out_h, "x", out_w,
              ", got ", offset.size(2), "x", offset.size(3));
  return meta_empty({input.size(0), weight.size(0), out_h, out_w}, input, input.scalar_type());
}

}  // namespace torch_fl::output_rules
