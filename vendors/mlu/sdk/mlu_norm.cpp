// Normalization: batch, layer, RMS and group norm.
#include "mlu_ops_internal.h"

#include <array>

using namespace mlu_ops;

extern "C" {

mluRet_t mluOpBatchNorm(mluQueue_t q, const mluTensor_t* input, const mluTensor_t* weight, const mluTensor_t* bias,
                        const mluTensor_t* running_mean, const mluTensor_t* running_var, bool training,
                        double momentum, double eps, const mluTensor_t* out, const mluTensor_t* save_mean,
                        const mluTensor_t* save_invstd) {
  return launch("mluOpBatchNorm", q, {input, weight, bias, running_mean, running_var, out, save_mean, save_invstd},
                [x = *input, w = *weight, b = *bias, rm = *running_mean, rv = *running_var, training, momentum, eps,
                 o = *out, sm = *save_mean, si = *save_invstd] {
                  // Running statistics are updated in place, in device memory.
                  auto [y, mean, invstd] =
                      at::native_batch_norm(host_view(x), optional_host_view(w), optional_host_view(b),
                                            optional_host_view(rm), optional_host_view(rv), training, momentum, eps);
                  store(o, y);
                  store(sm, mean);
                  store(si, invstd);
                });
}

mluRet_t mluOpBatchNormBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* input,
                                const mluTensor_t* weight, const mluTensor_t* running_mean,
                                const mluTensor_t* running_var, const mluTensor_t* save_mean,
                                const mluTensor_t* save_invstd, bool training, double eps,
                                const mluTensor_t* grad_input, const mluTensor_t* grad_weight,
                                const mluTensor_t* grad_bias) {
  return launch("mluOpBatchNormBackward", q,
                {grad, input, weight, running_mean, running_var, save_mean, save_invstd, grad_input, grad_weight,
                 grad_bias},
                [g = *grad, x = *input, w = *weight, rm = *running_mean, rv = *running_var, sm = *save_mean,
                 si = *save_invstd, training, eps, gi = *grad_input, gw = *grad_weight, gb = *grad_bias] {
                  const std::array<bool, 3> mask{gi.data != nullptr, gw.data != nullptr, gb.data != nullptr};
                  auto [dx, dw, db] = at::native_batch_norm_backward(
                      host_view(g), host_view(x), optional_host_view(w), optional_host_view(rm),
                      optional_host_view(rv), optional_host_view(sm), optional_host_view(si), training, eps, mask);
                  if (mask[0]) store(gi, dx);
                  if (mask[1]) store(gw, dw);
                  if (mask[2]) store(gb, db);
                });
}

mluRet_t mluOpLayerNorm(mluQueue_t q, const mluTensor_t* input, mluIntList_t normalized_shape, const mluTensor_t* weight,
                        const mluTensor_t* bias, double eps, const mluTensor_t* out, const mluTensor_t* mean,
                        const mluTensor_t* rstd) {
  return launch("mluOpLayerNorm", q, {input, weight, bias, out, mean, rstd},
                [x = *input, normalized_shape, w = *weight, b = *bias, eps, o = *out, m = *mean, r = *rstd] {
                  auto [y, mu, rs] = at::native_layer_norm(host_view(x), ints(normalized_shape),
                                                           optional_host_view(w), optional_host_view(b), eps);
                  store(o, y);
                  store(m, mu);
                  store(r, rs);
                });
}

mluRet_t mluOpLayerNormBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* input,
                                mluIntList_t normalized_shape, const mluTensor_t* mean, const mluTensor_t* rstd,
                                const mluTensor_t* weight, const mluTensor_t* bias, const mluTensor_t* grad_input,
                                const mluTensor_t* grad_weight, const mluTensor_t* grad_bias) {
  return launch("mluOpLayerNormBackward", q, {grad, input, mean, rstd, weight, bias, grad_input, grad_weight, grad_bias},
                [g = *grad, x = *input, normalized_shape, m = *mean, r = *rstd, w = *weight, b = *bias,
                 gi = *grad_input, gw = *grad_weight, gb = *grad_bias] {
                  const std::array<bool, 3> mask{gi.data != nullptr, gw.data != nullptr, gb.data != nullptr};
                  auto [dx, dw, db] = at::native_layer_norm_backward(host_view(g), host_view(x), ints(normalized_shape),
                                                                     host_view(m), host_view(r), optional_host_view(w),
                                                                     optional_host_view(b), mask);
                  if (mask[0]) store(gi, dx);
                  if (mask[1]) store(gw, dw);
                  if (mask[2]) store(gb, db);
                });
}

mluRet_t mluOpRmsNorm(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* weight, double eps, const mluTensor_t* out) {
  return launch("mluOpRmsNorm", q, {x, weight, out}, [x = *x, w = *weight, eps, o = *out] {
    store(o, alu::rms_norm(host_view(x), host_view(w), eps));
  });
}

mluRet_t mluOpRmsNormBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* weight,
                              double eps, const mluTensor_t* grad_x, const mluTensor_t* grad_weight) {
  return launch("mluOpRmsNormBackward", q, {grad, x, weight, grad_x, grad_weight},
                [g = *grad, x = *x, w = *weight, eps, gx = *grad_x, gw = *grad_weight] {
                  auto [dx, dw] = alu::rms_norm_backward(host_view(g), host_view(x), host_view(w), eps);
                  store(gx, dx);
                  store(gw, dw);
                });
}

mluRet_t mluOpGroupNorm(mluQueue_t q, const mluTensor_t* input, const mluTensor_t* weight, const mluTensor_t* bias,
                        int64_t n, int64_t c, int64_t hxw, int64_t group, double eps, const mluTensor_t* out,
                        const mluTensor_t* mean, const mluTensor_t* rstd) {
  return launch("mluOpGroupNorm", q, {input, weight, bias, out, mean, rstd},
                [x = *input, w = *weight, b = *bias, n, c, hxw, group, eps, o = *out, m = *mean, r = *rstd] {
                  auto [y, mu, rs] = at::native_group_norm(host_view(x), optional_host_view(w), optional_host_view(b),
                                                           n, c, hxw, group, eps);
                  store(o, y);
                  store(m, mu);
                  store(r, rs);
                });
}

mluRet_t mluOpGroupNormBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* input,
                                const mluTensor_t* mean, const mluTensor_t* rstd, const mluTensor_t* weight,
                                int64_t n, int64_t c, int64_t hxw, int64_t group, const mluTensor_t* grad_input,
                                const mluTensor_t* grad_weight, const mluTensor_t* grad_bias) {
  return launch("mluOpGroupNormBackward", q, {grad, input, mean, rstd, weight, grad_input, grad_weight, grad_bias},
                [g = *grad, x = *input, m = *mean, r = *rstd, w = *weight, n, c, hxw, group, gi = *grad_input,
                 gw = *grad_weight, gb = *grad_bias] {
                  const std::array<bool, 3> mask{gi.data != nullptr, gw.data != nullptr, gb.data != nullptr};
                  auto [dx, dw, db] = at::native_group_norm_backward(host_view(g), host_view(x), host_view(m),
                                                                     host_view(r), optional_host_view(w), n, c, hxw,
                                                                     group, mask);
                  if (mask[0]) store(gi, dx);
                  if (mask[1]) store(gw, dw);
                  if (mask[2]) store(gb, db);
                });
}

}  // extern "C"
