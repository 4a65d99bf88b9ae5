// Normalization: batch norm (also on NC1HWC0), layer norm and group norm.
#include "npu_ops_internal.h"

#include <optional>

using namespace npu_ops;

namespace {

// Batch norm read and written in NC1HWC0: statistics per channel (c1, c0) over
// N, H and W. The padded channels are zeros and stay zeros (their scale and
// shift are zero). Results and statistics follow ATen's native_batch_norm.
void batch_norm_blocked(const at::Tensor& x, const std::optional<at::Tensor>& weight,
                        const std::optional<at::Tensor>& bias, const std::optional<at::Tensor>& running_mean,
                        const std::optional<at::Tensor>& running_var, bool training, double momentum, double eps,
                        at::Tensor out, const at::Tensor& save_mean, const at::Tensor& save_invstd) {
  const int64_t c1 = x.size(1), c0 = x.size(4), padded = c1 * c0;
  const int64_t channels = training ? save_mean.size(0) : running_mean->size(0);
  const at::TensorOptions f32 = x.options().dtype(at::kFloat);
  const auto pad = [&](const at::Tensor& per_channel) {  // (C) → (1, C1, 1, 1, C0), zero-padded
    at::Tensor padded_values = at::zeros({padded}, f32);
    padded_values.narrow(0, 0, channels).copy_(per_channel);
    return padded_values.view({1, c1, 1, 1, c0});
  };
  at::Tensor mean, var;
  if (training) {
    // Two passes over (N, C1, H*W, C0), each summing the middle dimension with
    // the channels innermost (ATen's strided reductions over (0, 2, 3) are slow).
    const at::Tensor rows = x.to(at::kFloat).view({x.size(0), c1, x.size(2) * x.size(3), c0});
    const int64_t count = x.numel() / padded;
    const at::Tensor blocked_mean = rows.sum(2).sum(0).div_(static_cast<double>(count));  // (C1, C0)
    const at::Tensor centred = rows - blocked_mean.view({1, c1, 1, c0});
    const at::Tensor blocked_var = centred.mul(centred).sum(2).sum(0).div_(static_cast<double>(count));
    mean = blocked_mean.reshape({padded}).narrow(0, 0, channels);
    var = blocked_var.reshape({padded}).narrow(0, 0, channels);
    save_mean.copy_(mean);
    save_invstd.copy_(at::rsqrt(var + eps));
    if (running_mean.has_value() && running_mean->defined()) {
      running_mean->mul_(1 - momentum).add_(mean.to(running_mean->scalar_type()), momentum);
    }
    if (running_var.has_value() && running_var->defined()) {
      const double unbiased = count > 1 ? static_cast<double>(count) / static_cast<double>(count - 1) : 1.0;
      running_var->mul_(1 - momentum).add_(var.to(running_var->scalar_type()), momentum * unbiased);
    }
  } else {
    mean = running_mean->to(at::kFloat);
    var = running_var->to(at::kFloat);
  }
  at::Tensor scale = at::rsqrt(var + eps);
  if (weight.has_value() && weight->defined()) scale = scale * weight->to(at::kFloat);
  at::Tensor shift = -mean * scale;
  if (bias.has_value() && bias->defined()) shift = shift + bias->to(at::kFloat);
  out.copy_(at::addcmul(pad(shift), x.to(at::kFloat), pad(scale)));
}

}  // namespace

extern "C" {

npuError npunnBatchNormGetWorkspaceSize(const npuTensor* input, const npuTensor* weight, const npuTensor* bias,
                                        npuTensor* running_mean, npuTensor* running_var, bool training,
                                        double momentum, double eps, npuTensor* out, npuTensor* save_mean,
                                        npuTensor* save_invstd, NPUNN_QUERY_ARGS) {
  if (input && out && input->format != out->format) {
    return fail(NPU_ERROR_INVALID_PARAM, "npunnBatchNorm: input and out must be in the same format");
  }
  if (input && input->format == NPU_FORMAT_NC1HWC0 && !training && (!running_mean || !running_var)) {
    return fail(NPU_ERROR_INVALID_PARAM, "npunnBatchNorm: inference in NC1HWC0 needs the running statistics");
  }
  return prepare("npunnBatchNorm", {input, weight, bias, running_mean, running_var, out, save_mean, save_invstd},
                 [x = desc(input), w = desc(weight), b = desc(bias), rm = desc(running_mean), rv = desc(running_var),
                  training, momentum, eps, o = desc(out), sm = desc(save_mean), si = desc(save_invstd)] {
                   // Running statistics are updated in place, in device memory.
                   if (is_blocked(x)) {
                     batch_norm_blocked(view(x), optional_view(w), optional_view(b), optional_view(rm),
                                        optional_view(rv), training, momentum, eps, view(o), view(sm), view(si));
                     return;
                   }
                   auto [y, mean, invstd] = at::native_batch_norm(view(x), optional_view(w), optional_view(b),
                                                                  optional_view(rm), optional_view(rv), training,
                                                                  momentum, eps);
                   alu::store(view(o), y);
                   alu::store(view(sm), mean);
                   alu::store(view(si), invstd);
                 }, workspace_size, executor);
}
NPUNN_RUN(BatchNorm)

npuError npunnBatchNormBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* input, const npuTensor* weight,
                                                const npuTensor* running_mean, const npuTensor* running_var,
                                                const npuTensor* save_mean, const npuTensor* save_invstd,
                                                bool training, double eps, npuTensor* grad_input,
                                                npuTensor* grad_weight, npuTensor* grad_bias, NPUNN_QUERY_ARGS) {
  return prepare("npunnBatchNormBackward",
                 {grad, input, weight, running_mean, running_var, save_mean, save_invstd, grad_input, grad_weight,
                  grad_bias},
                 [g = desc(grad), x = desc(input), w = desc(weight), rm = desc(running_mean), rv = desc(running_var),
                  sm = desc(save_mean), si = desc(save_invstd), training, eps, gi = desc(grad_input),
                  gw = desc(grad_weight), gb = desc(grad_bias)] {
                   auto [dx, dw, db] = at::native_batch_norm_backward(
                       view(g), view(x), optional_view(w), optional_view(rm), optional_view(rv), optional_view(sm),
                       optional_view(si), training, eps, {gi.present, gw.present, gb.present});
                   if (gi.present) alu::store(view(gi), dx);
                   if (gw.present) alu::store(view(gw), dw);
                   if (gb.present) alu::store(view(gb), db);
                 }, workspace_size, executor);
}
NPUNN_RUN(BatchNormBackward)

npuError npunnLayerNormGetWorkspaceSize(const npuTensor* input, const npuIntArray* normalized_shape,
                                        const npuTensor* weight, const npuTensor* bias, double eps, npuTensor* out,
                                        npuTensor* mean, npuTensor* rstd, NPUNN_QUERY_ARGS) {
  return prepare("npunnLayerNorm", {input, weight, bias, out, mean, rstd},
                 [x = desc(input), shape = ints(normalized_shape), w = desc(weight), b = desc(bias), eps,
                  o = desc(out), m = desc(mean), r = desc(rstd)] {
                   auto [y, mu, inv] = at::native_layer_norm(view(x), shape, optional_view(w), optional_view(b), eps);
                   alu::store(view(o), y);
                   alu::store(view(m), mu);
                   alu::store(view(r), inv);
                 }, workspace_size, executor);
}
NPUNN_RUN(LayerNorm)

npuError npunnLayerNormBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* input,
                                                const npuIntArray* normalized_shape, const npuTensor* mean,
                                                const npuTensor* rstd, const npuTensor* weight, const npuTensor* bias,
                                                npuTensor* grad_input, npuTensor* grad_weight, npuTensor* grad_bias,
                                                NPUNN_QUERY_ARGS) {
  return prepare("npunnLayerNormBackward", {grad, input, mean, rstd, weight, bias, grad_input, grad_weight, grad_bias},
                 [g = desc(grad), x = desc(input), shape = ints(normalized_shape), m = desc(mean), r = desc(rstd),
                  w = desc(weight), b = desc(bias), gi = desc(grad_input), gw = desc(grad_weight),
                  gb = desc(grad_bias)] {
                   auto [dx, dw, db] = at::native_layer_norm_backward(view(g), view(x), shape, view(m), view(r),
                                                                      optional_view(w), optional_view(b),
                                                                      {gi.present, gw.present, gb.present});
                   if (gi.present) alu::store(view(gi), dx);
                   if (gw.present) alu::store(view(gw), dw);
                   if (gb.present) alu::store(view(gb), db);
                 }, workspace_size, executor);
}
NPUNN_RUN(LayerNormBackward)

npuError npunnGroupNormGetWorkspaceSize(const npuTensor* self, const npuTensor* gamma, const npuTensor* beta, int64_t n, int64_t c, int64_t hxw, int64_t group, double eps, npuTensor* out, npuTensor* meanOut, npuTensor* rstdOut, NPUNN_QUERY_ARGS) {
  return prepare("npunnGroupNorm", {self, gamma, beta, out, meanOut, rstdOut}, [self = desc(self), gamma = desc(gamma), beta = desc(beta), n, c, hxw, group, eps, out = desc(out), meanOut = desc(meanOut), rstdOut = desc(rstdOut)] {
    auto [y, mu, rs] = at::native_group_norm(view(self), optional_view(gamma), optional_view(beta), n, c, hxw, group, eps);
    alu::store(view(out), y);
    alu::store(view(meanOut), mu);
    alu::store(view(rstdOut), rs);
  }, workspace_size, executor);
}
NPUNN_RUN(GroupNorm)

npuError npunnGroupNormBackwardGetWorkspaceSize(const npuTensor* gradOut, const npuTensor* self, const npuTensor* mean, const npuTensor* rstd, const npuTensor* gamma, int64_t n, int64_t c, int64_t hxw, int64_t group, npuTensor* gradInput, npuTensor* gradGamma, npuTensor* gradBeta, NPUNN_QUERY_ARGS) {
  return prepare("npunnGroupNormBackward", {gradOut, self, mean, rstd, gamma, gradInput, gradGamma, gradBeta}, [gradOut = desc(gradOut), self = desc(self), mean = desc(mean), rstd = desc(rstd), gamma = desc(gamma), n, c, hxw, group, gradInput = desc(gradInput), gradGamma = desc(gradGamma), gradBeta = desc(gradBeta)] {
    auto [dx, dg, db] = at::native_group_norm_backward(view(gradOut), view(self), view(mean), view(rstd), optional_view(gamma), n, c, hxw, group, {gradInput.present, gradGamma.present, gradBeta.present});
    if (gradInput.present) alu::store(view(gradInput), dx);
    if (gradGamma.present) alu::store(view(gradGamma), dg);
    if (gradBeta.present) alu::store(view(gradBeta), db);
  }, workspace_size, executor);
}
NPUNN_RUN(GroupNormBackward)

}  // extern "C"
