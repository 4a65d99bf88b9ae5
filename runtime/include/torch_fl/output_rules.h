// Output rules for ops whose meta function PyTorch provides only in Python.
//
// A spec names one with `output: {rule: torch_fl::output_rules::<name>}`. Each
// takes the op's arguments and returns the expected outputs as meta tensors
// (undefined where the op returns no tensor), exactly as PyTorch's CPU kernels
// would produce them. Shared by every vendor.
#pragma once

#include <ATen/ATen.h>

#include <array>
#include <optional>
#include <tuple>

namespace torch_fl::output_rules {

at::Tensor convolution(const at::Tensor& input, const at::Tensor& weight, const std::optional<at::Tensor>& bias,
                       at::IntArrayRef stride, at::IntArrayRef padding, at::IntArrayRef dilation, bool transposed,
                       at::IntArrayRef output_padding, int64_t groups);

std::tuple<at::Tensor, at::Tensor, at::Tensor> convolution_backward(
    const at::Tensor& grad_output, const at::Tensor& input, const at::Tensor& weight, at::IntArrayRef stride,
    at::IntArrayRef padding, at::IntArrayRef dilation, bool transposed, at::IntArrayRef output_padding,
    int64_t groups, std::array<bool, 3> output_mask);

std::tuple<at::Tensor, at::Tensor, at::Tensor> batch_norm(
    const at::Tensor& input, const std::optional<at::Tensor>& weight, const std::optional<at::Tensor>& bias,
    const std::optional<at::Tensor>& running_mean, const std::optional<at::Tensor>& running_var, bool training,
    double momentum, double eps);

std::tuple<at::Tensor, at::Tensor, at::Tensor> batch_norm_backward(
    const at::Tensor& grad_out, const at::Tensor& input, const std::optional<at::Tensor>& weight,
    const std::optional<at::Tensor>& running_mean, const std::optional<at::Tensor>& running_var,
    const std::optional<at::Tensor>& save_mean, const std::optional<at::Tensor>& save_invstd, bool train,
    double eps, std::array<bool, 3> output_mask);

// CPU semantics: mean and rstd in the input's dtype (the parameters' when mixed);
// the C++ meta function follows CUDA (always float) instead.
std::tuple<at::Tensor, at::Tensor, at::Tensor> layer_norm(const at::Tensor& input, at::IntArrayRef normalized_shape,
                                                          const std::optional<at::Tensor>& weight,
                                                          const std::optional<at::Tensor>& bias, double eps);

std::tuple<at::Tensor, at::Tensor, at::Tensor> layer_norm_backward(
    const at::Tensor& grad_out, const at::Tensor& input, at::IntArrayRef normalized_shape, const at::Tensor& mean,
    const at::Tensor& rstd, const std::optional<at::Tensor>& weight, const std::optional<at::Tensor>& bias,
    std::array<bool, 3> output_mask);

at::Tensor adaptive_avg_pool2d(const at::Tensor& self, at::IntArrayRef output_size);
at::Tensor adaptive_avg_pool2d_backward(const at::Tensor& grad_output, const at::Tensor& self);

at::Tensor embedding_dense_backward(const at::Tensor& grad_output, const at::Tensor& indices, int64_t num_weights,
                                    int64_t padding_idx, bool scale_grad_by_freq);

at::Tensor index_select(const at::Tensor& self, int64_t dim, const at::Tensor& index);

at::Tensor where(const at::Tensor& condition, const at::Tensor& self, const at::Tensor& other);

std::tuple<at::Tensor, at::Tensor> dropout(const at::Tensor& input, double p, std::optional<bool> train);
at::Tensor dropout_backward(const at::Tensor& grad_output, const at::Tensor& mask, double scale);

// Losses whose CPU kernels size their result by `reduction` (0: none).
at::Tensor huber_loss(const at::Tensor& self, const at::Tensor& target, int64_t reduction, double delta);
at::Tensor binary_cross_entropy(const at::Tensor& self, const at::Tensor& target,
                                const std::optional<at::Tensor>& weight, int64_t reduction);
std::tuple<at::Tensor, at::Tensor> nll_loss2d(const at::Tensor& self, const at::Tensor& target,
                                              const std::optional<at::Tensor>& weight, int64_t reduction,
                                              int64_t ignore_index);
at::Tensor multi_margin_loss(const at::Tensor& self, const at::Tensor& target, const at::Scalar& p,
                             const at::Scalar& margin, const std::optional<at::Tensor>& weight, int64_t reduction);
std::tuple<at::Tensor, at::Tensor> multilabel_margin_loss(const at::Tensor& self, const at::Tensor& target,
                                                          int64_t reduction);

// Pooling and padding with no C++ meta function.
std::tuple<at::Tensor, at::Tensor> max_pool3d_with_indices(const at::Tensor& self, at::IntArrayRef kernel_size,
                                                           at::IntArrayRef stride, at::IntArrayRef padding,
                                                           at::IntArrayRef dilation, bool ceil_mode);
at::Tensor adaptive_avg_pool3d(const at::Tensor& self, at::IntArrayRef output_size);
at::Tensor reflection_pad2d(const at::Tensor& self, at::IntArrayRef padding);
at::Tensor replication_pad2d(const at::Tensor& self, at::IntArrayRef padding);
at::Tensor replication_pad3d(const at::Tensor& self, at::IntArrayRef padding);

// Group norm: mean and rstd are (N, group) in the input's dtype, as on CPU.
std::tuple<at::Tensor, at::Tensor, at::Tensor> group_norm(const at::Tensor& input,
                                                          const std::optional<at::Tensor>& weight,
                                                          const std::optional<at::Tensor>& bias, int64_t N, int64_t C,
                                                          int64_t HxW, int64_t group, double eps);
std::tuple<at::Tensor, at::Tensor, at::Tensor> group_norm_backward(
    const at::Tensor& grad_out, const at::Tensor& input, const at::Tensor& mean, const at::Tensor& rstd,
    const std::optional<at::Tensor>& weight, int64_t N, int64_t C, int64_t HxW, int64_t group,
    std::array<bool, 3> output_mask);

}  // namespace torch_fl::output_rules
