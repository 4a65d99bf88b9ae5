#include <torch_fl/output_rules.h>

#include <ATen/ExpandUtils.h>
#include <ATen/core/Reduction.h>
#include <ATen/native/ConvUtils.h>
#include <ATen/native/Pool.h>
#include <ATen/native/TypeProperties.h>

namespace torch_fl::output_rules {
namespace {

at::TensorOptions meta_options(const at::Tensor& like, c10::ScalarType dtype) {
  return like.options().dtype(dtype).device(c10::DeviceType::Meta);
}

// empty_like's rule, as CPU kernels allocate: the input's strides when it is
// dense, else its suggested memory format.
at::Tensor meta_like(const at::Tensor& like) {
  return at::empty_like(like, meta_options(like, like.scalar_type()), at::MemoryFormat::Preserve);
}

at::Tensor meta_contiguous_like(const at::Tensor& like) {
  return at::empty(like.sizes(), meta_options(like, like.scalar_type()));
}

at::Tensor meta_empty(at::IntArrayRef sizes, const at::Tensor& like, c10::ScalarType dtype,
                      at::MemoryFormat format = at::MemoryFormat::Contiguous) {
  return at::empty(sizes, meta_options(like, dtype).memory_format(format));
}

// CPU's convolution (and its backward) computes in channels_last, and returns
// every output in it, when the input or the weight is channels_last.
at::MemoryFormat convolution_memory_format(const at::Tensor& input, const at::Tensor& weight) {
  const at::MemoryFormat channels_last = input.dim() == 4   ? at::MemoryFormat::ChannelsLast
                                         : input.dim() == 5 ? at::MemoryFormat::ChannelsLast3d
                                                            : at::MemoryFormat::Contiguous;
  if (channels_last == at::MemoryFormat::Contiguous) return channels_last;
  const bool either = input.suggest_memory_format() == channels_last || weight.suggest_memory_format() == channels_last;
  return either ? channels_last : at::MemoryFormat::Contiguous;
}

// Batch-norm statistics: float for reduced-precision input with float parameters (mixed type).
c10::ScalarType statistics_dtype(const at::Tensor& input, const std::optional<at::Tensor>& weight) {
  if (weight.has_value() && weight->defined() && weight->scalar_type() != input.scalar_type()) {
    return weight->scalar_type();
  }
  return input.scalar_type();
}

}  // namespace

at::Tensor convolution(const at::Tensor& input, const at::Tensor& weight, const std::optional<at::Tensor>&,
                       at::IntArrayRef stride, at::IntArrayRef padding, at::IntArrayRef dilation, bool transposed,
                       at::IntArrayRef output_padding, int64_t groups) {
  const std::vector<int64_t> sizes =
      transposed ? at::native::conv_input_size(input.sizes(), weight.sizes(), padding, output_padding, stride,
                                               dilation, groups)
                 : at::native::conv_output_size(input.sizes(), weight.sizes(), padding, stride, dilation);
  return meta_empty(sizes, input, input.scalar_type(), convolution_memory_format(input, weight));
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> convolution_backward(
    const at::Tensor& grad_output, const at::Tensor& input, const at::Tensor& weight, at::IntArrayRef,
    at::IntArrayRef, at::IntArrayRef, bool transposed, at::IntArrayRef, int64_t groups,
    std::array<bool, 3> output_mask) {
  const int64_t bias_size = transposed ? weight.size(1) * groups : weight.size(0);
  const at::MemoryFormat format = convolution_memory_format(input, weight);
  return {output_mask[0] ? meta_empty(input.sizes(), input, input.scalar_type(), format) : at::Tensor(),
          output_mask[1] ? meta_empty(weight.sizes(), weight, weight.scalar_type(), format) : at::Tensor(),
          output_mask[2] ? meta_empty({bias_size}, grad_output, grad_output.scalar_type()) : at::Tensor()};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> batch_norm(
    const at::Tensor& input, const std::optional<at::Tensor>& weight, const std::optional<at::Tensor>&,
    const std::optional<at::Tensor>&, const std::optional<at::Tensor>&, bool training, double, double) {
  const int64_t channels = input.dim() > 1 ? input.size(1) : 1;
  const c10::ScalarType stats = statistics_dtype(input, weight);
  const int64_t stat_size = training ? channels : 0;
  return {meta_like(input), meta_empty({stat_size}, input, stats), meta_empty({stat_size}, input, stats)};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> batch_norm_backward(
    const at::Tensor&, const at::Tensor& input, const std::optional<at::Tensor>& weight,
    const std::optional<at::Tensor>&, const std::optional<at::Tensor>&, const std::optional<at::Tensor>&,
    const std::optional<at::Tensor>&, bool, double, std::array<bool, 3> output_mask) {
  const int64_t channels = input.dim() > 1 ? input.size(1) : 1;
  const c10::ScalarType params = statistics_dtype(input, weight);
  return {output_mask[0] ? meta_like(input) : at::Tensor(),
          output_mask[1] ? meta_empty({channels}, input, params) : at::Tensor(),
          output_mask[2] ? meta_empty({channels}, input, params) : at::Tensor()};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> layer_norm(const at::Tensor& input, at::IntArrayRef normalized_shape,
                                                          const std::optional<at::Tensor>& weight,
                                                          const std::optional<at::Tensor>&, double) {
  const int64_t axis = input.dim() - static_cast<int64_t>(normalized_shape.size());
  std::vector<int64_t> stat_shape(input.sizes().begin(), input.sizes().begin() + axis);
  stat_shape.resize(input.dim(), 1);
  const c10::ScalarType stats = statistics_dtype(input, weight);
  // CPU's layer norm computes on a contiguous copy: its output is contiguous.
  return {meta_contiguous_like(input), meta_empty(stat_shape, input, stats), meta_empty(stat_shape, input, stats)};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> layer_norm_backward(
    const at::Tensor&, const at::Tensor& input, at::IntArrayRef, const at::Tensor&, const at::Tensor&,
    const std::optional<at::Tensor>& weight, const std::optional<at::Tensor>& bias,
    std::array<bool, 3> output_mask) {
  const bool has_weight = weight.has_value() && weight->defined();
  const bool has_bias = bias.has_value() && bias->defined();
  // Contiguous gradients whatever the parameters' strides, as CPU's layer_norm_backward.
  return {output_mask[0] ? meta_contiguous_like(input) : at::Tensor(),
          output_mask[1] && has_weight ? meta_contiguous_like(*weight) : at::Tensor(),
          output_mask[2] && has_bias ? meta_contiguous_like(*bias) : at::Tensor()};
}

at::Tensor adaptive_avg_pool2d(const at::Tensor& self, at::IntArrayRef output_size) {
  TORCH_CHECK(output_size.size() == 2, "adaptive_avg_pool2d: output_size must have 2 elements");
  std::vector<int64_t> sizes(self.sizes().begin(), self.sizes().end() - 2);
  sizes.insert(sizes.end(), output_size.begin(), output_size.end());
  return meta_empty(sizes, self, self.scalar_type(), self.suggest_memory_format());
}

at::Tensor adaptive_avg_pool2d_backward(const at::Tensor&, const at::Tensor& self) { return meta_like(self); }

at::Tensor embedding_dense_backward(const at::Tensor& grad_output, const at::Tensor&, int64_t num_weights, int64_t,
                                    bool) {
  return meta_empty({num_weights, grad_output.size(-1)}, grad_output, grad_output.scalar_type());
}

at::Tensor index_select(const at::Tensor& self, int64_t dim, const at::Tensor& index) {
  std::vector<int64_t> sizes = self.sizes().vec();
  if (self.dim() > 0) sizes[c10::maybe_wrap_dim(dim, self.dim())] = index.numel();
  return meta_empty(sizes, self, self.scalar_type());
}

at::Tensor where(const at::Tensor& condition, const at::Tensor& self, const at::Tensor& other) {
  // ATen's rule: bool, or uint8 with a deprecation warning; any other dtype is refused.
  TORCH_CHECK(condition.scalar_type() == c10::ScalarType::Bool || condition.scalar_type() == c10::ScalarType::Byte,
              "where expected condition to be a boolean tensor, but got a tensor with dtype ", condition.scalar_type());
  if (condition.scalar_type() == c10::ScalarType::Byte) {
    TORCH_WARN_ONCE("where received a uint8 condition tensor. This behavior is deprecated and will be removed in a "
                    "future version of PyTorch. Use a boolean condition instead.");
  }
  const auto shape = at::infer_size(at::infer_size(condition.sizes(), self.sizes()), other.sizes());
  return meta_empty(shape, self, at::result_type(self, other));
}

std::tuple<at::Tensor, at::Tensor> dropout(const at::Tensor& input, double, std::optional<bool>) {
  return {meta_like(input), meta_empty(input.sizes(), input, c10::ScalarType::Bool)};
}

at::Tensor dropout_backward(const at::Tensor& grad_output, const at::Tensor&, double) {
  return meta_like(grad_output);
}

namespace {

// A reduced loss is a 0-dim tensor; `none` keeps the per-element shape, and
// the input's layout where the shapes agree (CPU's element-wise kernels do).
at::Tensor reduced_or(const at::Tensor& like, at::IntArrayRef unreduced, int64_t reduction, c10::ScalarType dtype) {
  if (reduction != at::Reduction::None) return meta_empty({}, like, dtype);
  if (like.sizes() == unreduced) return at::empty_like(like, meta_options(like, dtype), at::MemoryFormat::Preserve);
  return meta_empty(unreduced, like, dtype);
}

// The last padding.size() / 2 dims grow by their padding; CPU keeps a
// channels_last input's format (PyTorch's meta function does not).
at::Tensor padded(const at::Tensor& self, at::IntArrayRef padding) {
  std::vector<int64_t> sizes = self.sizes().vec();
  const size_t dims = padding.size() / 2;
  for (size_t i = 0; i < dims; ++i) sizes[sizes.size() - 1 - i] += padding[2 * i] + padding[2 * i + 1];
  return meta_empty(sizes, self, self.scalar_type(), self.suggest_memory_format());
}

}  // namespace

at::Tensor huber_loss(const at::Tensor& self, const at::Tensor& target, int64_t reduction, double) {
  return reduced_or(self, at::infer_size(self.sizes(), target.sizes()), reduction, at::result_type(self, target));
}

at::Tensor binary_cross_entropy(const at::Tensor& self, const at::Tensor&, const std::optional<at::Tensor>&,
                                int64_t reduction) {
  return reduced_or(self, self.sizes(), reduction, self.scalar_type());
}

std::tuple<at::Tensor, at::Tensor> nll_loss2d(const at::Tensor& self, const at::Tensor& target,
                                              const std::optional<at::Tensor>&, int64_t reduction, int64_t) {
  return {reduced_or(self, target.sizes(), reduction, self.scalar_type()), meta_empty({}, self, self.scalar_type())};
}

at::Tensor multi_margin_loss(const at::Tensor& self, const at::Tensor& target, const at::Scalar&, const at::Scalar&,
                             const std::optional<at::Tensor>&, int64_t reduction) {
  // CPU: a per-sample loss only when unreduced and the target has a batch dimension.
  const int64_t frames = self.dim() <= 1 ? 1 : self.size(0);
  if (reduction == at::Reduction::None && target.dim() > 0) return meta_empty({frames}, self, self.scalar_type());
  return meta_empty({}, self, self.scalar_type());
}

std::tuple<at::Tensor, at::Tensor> multilabel_margin_loss(const at::Tensor& self, const at::Tensor& target,
                                                          int64_t reduction) {
  const int64_t frames = self.dim() <= 1 ? 1 : self.size(0);
  at::Tensor output = reduction != at::Reduction::None || target.dim() <= 1
                          ? meta_empty({}, self, self.scalar_type())
                          : meta_empty({frames}, self, self.scalar_type());
  return {output, meta_empty(target.sizes(), self, self.scalar_type())};
}

std::tuple<at::Tensor, at::Tensor> max_pool3d_with_indices(const at::Tensor& self, at::IntArrayRef kernel_size,
                                                           at::IntArrayRef stride, at::IntArrayRef padding,
                                                           at::IntArrayRef dilation, bool ceil_mode) {
  auto pick = [](at::IntArrayRef values, size_t i, int64_t otherwise) {
    return values.empty() ? otherwise : values.size() == 1 ? values[0] : values[i];
  };
  std::vector<int64_t> sizes(self.sizes().begin(), self.sizes().end() - 3);
  for (size_t i = 0; i < 3; ++i) {
    const int64_t kernel = pick(kernel_size, i, 1);
    sizes.push_back(at::native::pooling_output_shape<int64_t>(self.size(self.dim() - 3 + static_cast<int64_t>(i)),
                                                              kernel, pick(padding, i, 0), pick(stride, i, kernel),
                                                              pick(dilation, i, 1), ceil_mode));
  }
  // CPU's max_pool3d keeps a channels_last_3d input's format in both outputs.
  const at::MemoryFormat format = self.suggest_memory_format();
  return {meta_empty(sizes, self, self.scalar_type(), format), meta_empty(sizes, self, c10::ScalarType::Long, format)};
}

// Contiguous whatever the input's format, as CPU's adaptive_avg_pool3d returns.
at::Tensor adaptive_avg_pool3d(const at::Tensor& self, at::IntArrayRef output_size) {
  TORCH_CHECK(output_size.size() == 3, "adaptive_avg_pool3d: output_size must have 3 elements");
  std::vector<int64_t> sizes(self.sizes().begin(), self.sizes().end() - 3);
  sizes.insert(sizes.end(), output_size.begin(), output_size.end());
  return meta_empty(sizes, self, self.scalar_type());
}

at::Tensor reflection_pad2d(const at::Tensor& self, at::IntArrayRef padding) {
  TORCH_CHECK(padding.size() == 4, "reflection_pad2d: padding must have 4 elements");
  return padded(self, padding);
}

at::Tensor replication_pad2d(const at::Tensor& self, at::IntArrayRef padding) {
  TORCH_CHECK(padding.size() == 4, "replication_pad2d: padding must have 4 elements");
  return padded(self, padding);
}

at::Tensor replication_pad3d(const at::Tensor& self, at::IntArrayRef padding) {
  TORCH_CHECK(padding.size() == 6, "replication_pad3d: padding must have 6 elements");
  return padded(self, padding);
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> group_norm(const at::Tensor& input, const std::optional<at::Tensor>&,
                                                          const std::optional<at::Tensor>&, int64_t N, int64_t,
                                                          int64_t, int64_t group, double) {
  return {meta_like(input), meta_empty({N, group}, input, input.scalar_type()),
          meta_empty({N, group}, input, input.scalar_type())};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> group_norm_backward(
    const at::Tensor&, const at::Tensor& input, const at::Tensor&, const at::Tensor&,
    const std::optional<at::Tensor>& weight, int64_t, int64_t C, int64_t, int64_t, std::array<bool, 3> output_mask) {
  const bool has_weight = weight.has_value() && weight->defined();
  auto parameter = [&] { return has_weight ? meta_like(*weight) : meta_empty({C}, input, input.scalar_type()); };
  return {output_mask[0] ? meta_like(input) : at::Tensor(), output_mask[1] ? parameter() : at::Tensor(),
          output_mask[2] ? parameter() : at::Tensor()};
}

}  // namespace torch_fl::output_rules
