#include <torch_fl/output_rules_torchvision.h>

namespace torch_fl::output_rules {
namespace {

at::Tensor meta_empty(at::IntArrayRef sizes, const at::Tensor& like, c10::ScalarType dtype) {
  return at::empty(sizes, like.options().dtype(dtype).device(c10::DeviceType::Meta));
}

at::Tensor meta_contiguous_like(const at::Tensor& like) { return meta_empty(like.sizes(), like, like.scalar_type()); }

void check_same_dtype(const char* op, const char* what, const at::Tensor& a, const at::Tensor& b) {
  TORCH_CHECK(a.scalar_type() == b.scalar_type(), op, ": ", what, " must have the same dtype, got ", a.scalar_type(),
              " and ", b.scalar_type());
}

void check_rois(const char* op, const at::Tensor& features, const at::Tensor& rois) {
  TORCH_CHECK(rois.dim() == 2 && rois.size(1) == 5, op, ": rois must have shape [K, 5], got ", rois.sizes());
  check_same_dtype(op, "the features and rois", features, rois);
}

void check_pooled(const char* op, int64_t pooled_height, int64_t pooled_width) {
  TORCH_CHECK(pooled_height > 0 && pooled_width > 0, op, ": the pooled size must be positive, got ", pooled_height,
              "x", pooled_width);
}

// A pooling backward's grad is the forward's output: [K, C, pooled_height, pooled_width].
void check_pooled_grad(const char* op, const at::Tensor& grad, const at::Tensor& rois, int64_t channels,
                       int64_t pooled_height, int64_t pooled_width) {
  const std::vector<int64_t> expected{rois.size(0), channels, pooled_height, pooled_width};
  TORCH_CHECK(grad.sizes() == at::IntArrayRef(expected), op, ": grad must have shape ", at::IntArrayRef(expected),
              " (rois, channels, pooled size), got ", grad.sizes());
}

// torchvision's deform_conv2d checks, and the output's (height, width).
std::pair<int64_t, int64_t> deform_conv2d_output_size(const char* op, const at::Tensor& input,
                                                      const at::Tensor& weight, const at::Tensor& offset,
                                                      const at::Tensor& mask, const at::Tensor& bias, int64_t stride_h,
                                                      int64_t stride_w, int64_t pad_h, int64_t pad_w,
                                                      int64_t dilation_h, int64_t dilation_w, int64_t groups,
                                                      int64_t offset_groups, bool use_mask) {
  TORCH_CHECK(input.dim() == 4 && weight.dim() == 4 && offset.dim() == 4, op,
              ": input, weight and offset must be 4-D, got ", input.dim(), "D, ", weight.dim(), "D and ", offset.dim(),
              "D");
  check_same_dtype(op, "input and weight", input, weight);
  check_same_dtype(op, "input and offset", input, offset);
  check_same_dtype(op, "input and bias", input, bias);
  TORCH_CHECK(stride_h > 0 && stride_w > 0 && dilation_h > 0 && dilation_w > 0 && pad_h >= 0 && pad_w >= 0, op,
              ": strides and dilations must be positive and paddings non-negative");
  TORCH_CHECK(groups > 0 && offset_groups > 0, op, ": groups and offset groups must be positive");
  TORCH_CHECK(input.size(1) % groups == 0 && input.size(1) % offset_groups == 0 && weight.size(0) % groups == 0, op,
              ": ", input.size(1), " input and ", weight.size(0), " output channels do not divide into ", groups,
              " groups and ", offset_groups, " offset groups");
  TORCH_CHECK(weight.size(1) * groups == input.size(1), op, ": weight takes ", weight.size(1) * groups,
              " input channels, the input has ", input.size(1));
  TORCH_CHECK(bias.numel() == weight.size(0), op, ": bias has ", bias.numel(), " elements for ", weight.size(0),
              " output channels");
  const int64_t kernel_h = weight.size(2), kernel_w = weight.size(3);
  TORCH_CHECK(kernel_h > 0 && kernel_w > 0, op, ": the kernel must be at least 1x1, got ", kernel_h, "x", kernel_w);
  const int64_t out_h = (input.size(2) + 2 * pad_h - (dilation_h * (kernel_h - 1) + 1)) / stride_h + 1;
  const int64_t out_w = (input.size(3) + 2 * pad_w - (dilation_w * (kernel_w - 1) + 1)) / stride_w + 1;
  TORCH_CHECK(out_h > 0 && out_w > 0, op, ": the output would be ", out_h, "x", out_w);
  TORCH_CHECK(offset.size(0) == input.size(0), op, ": offset has a batch of ", offset.size(0), ", the input ",
              input.size(0));
  TORCH_CHECK(offset.size(1) == offset_groups * 2 * kernel_h * kernel_w, op, ": offset needs ",
              offset_groups * 2 * kernel_h * kernel_w, " channels, got ", offset.size(1));
  TORCH_CHECK(offset.size(2) == out_h && offset.size(3) == out_w, op, ": offset must be ", out_h, "x", out_w,
              ", got ", offset.size(2), "x", offset.size(3));
  if (use_mask) {
    TORCH_CHECK(mask.dim() == 4, op, ": mask must be 4-D, got ", mask.dim(), "D");
    check_same_dtype(op, "input and mask", input, mask);
    const std::vector<int64_t> expected{input.size(0), offset_groups * kernel_h * kernel_w, out_h, out_w};
    TORCH_CHECK(mask.sizes() == at::IntArrayRef(expected), op, ": mask must have shape ", at::IntArrayRef(expected),
                ", got ", mask.sizes());
  }
  return {out_h, out_w};
}

}  // namespace

at::Tensor nms(const at::Tensor& dets, const at::Tensor& scores, double) {
  TORCH_CHECK(dets.dim() == 2, "nms: boxes should be a 2d tensor, got ", dets.dim(), "D");
  TORCH_CHECK(dets.size(1) == 4, "nms: boxes should have 4 elements in dimension 1, got ", dets.size(1));
  TORCH_CHECK(scores.dim() == 1, "nms: scores should be a 1d tensor, got ", scores.dim(), "D");
  TORCH_CHECK(dets.size(0) == scores.size(0), "nms: boxes and scores should have the same number of elements in ",
              "dimension 0, got ", dets.size(0), " and ", scores.size(0));
  check_same_dtype("nms", "boxes and scores", dets, scores);
  return meta_empty({dets.size(0)}, dets, at::kLong);
}

at::Tensor roi_align(const at::Tensor& input, const at::Tensor& rois, double, int64_t pooled_height,
                     int64_t pooled_width, int64_t, bool) {
  check_rois("roi_align", input, rois);
  check_pooled("roi_align", pooled_height, pooled_width);
  TORCH_CHECK(input.dim() == 4, "roi_align: input must be NCHW, got ", input.dim(), "D");
  return meta_empty({rois.size(0), input.size(1), pooled_height, pooled_width}, input, input.scalar_type());
}

at::Tensor roi_align_backward(const at::Tensor& grad, const at::Tensor& rois, double, int64_t pooled_height,
                              int64_t pooled_width, int64_t batch_size, int64_t channels, int64_t height,
                              int64_t width, int64_t, bool) {
  check_rois("_roi_align_backward", grad, rois);
  check_pooled_grad("_roi_align_backward", grad, rois, channels, pooled_height, pooled_width);
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
                             int64_t pooled_height, int64_t pooled_width, int64_t batch_size, int64_t channels,
                             int64_t height, int64_t width) {
  check_rois("_roi_pool_backward", grad, rois);
  check_pooled_grad("_roi_pool_backward", grad, rois, channels, pooled_height, pooled_width);
  TORCH_CHECK(argmax.sizes() == grad.sizes() && argmax.scalar_type() == at::kInt,
              "_roi_pool_backward: argmax must be int32 of the shape of grad, got ", argmax.scalar_type(), " ",
              argmax.sizes(), " for ", grad.sizes());
  return meta_empty({batch_size, channels, height, width}, grad, grad.scalar_type());
}

at::Tensor deform_conv2d(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& offset,
                         const at::Tensor& mask, const at::Tensor& bias, int64_t stride_h, int64_t stride_w,
                         int64_t pad_h, int64_t pad_w, int64_t dilation_h, int64_t dilation_w, int64_t groups,
                         int64_t offset_groups, bool use_mask) {
  const auto [out_h, out_w] =
      deform_conv2d_output_size("deform_conv2d", input, weight, offset, mask, bias, stride_h, stride_w, pad_h, pad_w,
                                dilation_h, dilation_w, groups, offset_groups, use_mask);
  return meta_empty({input.size(0), weight.size(0), out_h, out_w}, input, input.scalar_type());
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor> deform_conv2d_backward(
    const at::Tensor& grad, const at::Tensor& input, const at::Tensor& weight, const at::Tensor& offset,
    const at::Tensor& mask, const at::Tensor& bias, int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w,
    int64_t dilation_h, int64_t dilation_w, int64_t groups, int64_t offset_groups, bool use_mask) {
  const char* op = "_deform_conv2d_backward";
  const auto [out_h, out_w] = deform_conv2d_output_size(op, input, weight, offset, mask, bias, stride_h, stride_w,
                                                        pad_h, pad_w, dilation_h, dilation_w, groups, offset_groups,
                                                        use_mask);
  const std::vector<int64_t> expected{input.size(0), weight.size(0), out_h, out_w};
  TORCH_CHECK(grad.sizes() == at::IntArrayRef(expected), op, ": grad must have the output's shape ",
              at::IntArrayRef(expected), ", got ", grad.sizes());
  check_same_dtype(op, "grad and input", grad, input);
  // torchvision returns a zero gradient for an unused mask, shaped as the mask passed.
  return {meta_contiguous_like(input), meta_contiguous_like(weight), meta_contiguous_like(offset),
          meta_contiguous_like(mask), meta_contiguous_like(bias)};
}

}  // namespace torch_fl::output_rules
