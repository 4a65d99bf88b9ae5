// Losses; reduction: 0 none, 1 mean, 2 sum.
#include "mlu_ops_internal.h"

using namespace mlu_ops;

extern "C" {

mluRet_t mluOpNllLoss(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* target, const mluTensor_t* weight,
                      int64_t reduction, int64_t ignore_index, const mluTensor_t* out, const mluTensor_t* total_weight) {
  return launch("mluOpNllLoss", q, {x, target, weight, out, total_weight},
                [x = *x, t = *target, w = *weight, reduction, ignore_index, o = *out, tw = *total_weight] {
                  at::Tensor output = host_view(o);
                  at::Tensor total = host_view(tw);
                  at::nll_loss_forward_out(output, total, host_view(x), host_view(t), optional_host_view(w),
                                           reduction, ignore_index);
                });
}

mluRet_t mluOpNllLossBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* target,
                              const mluTensor_t* weight, int64_t reduction, int64_t ignore_index,
                              const mluTensor_t* total_weight, const mluTensor_t* out) {
  return launch("mluOpNllLossBackward", q, {grad, x, target, weight, total_weight, out},
                [g = *grad, x = *x, t = *target, w = *weight, reduction, ignore_index, tw = *total_weight, o = *out] {
                  at::Tensor result = host_view(o);
                  at::nll_loss_backward_out(result, host_view(g), host_view(x), host_view(t), optional_host_view(w),
                                            reduction, ignore_index, host_view(tw));
                });
}

mluRet_t mluOpMseLoss(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* target, int64_t reduction,
                      const mluTensor_t* out) {
  return launch("mluOpMseLoss", q, {x, target, out}, [x = *x, t = *target, reduction, o = *out] {
    store(o, at::mse_loss(host_view(x), host_view(t), reduction));
  });
}

mluRet_t mluOpMseLossBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* target,
                              int64_t reduction, const mluTensor_t* out) {
  return launch("mluOpMseLossBackward", q, {grad, x, target, out}, [g = *grad, x = *x, t = *target, reduction, o = *out] {
    store(o, at::mse_loss_backward(host_view(g), host_view(x), host_view(t), reduction));
  });
}

mluRet_t mluOpSmoothL1Loss(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* target, int64_t reduction,
                           double beta, const mluTensor_t* out) {
  return launch("mluOpSmoothL1Loss", q, {x, target, out}, [x = *x, t = *target, reduction, beta, o = *out] {
    store(o, at::smooth_l1_loss(host_view(x), host_view(t), reduction, beta));
  });
}

mluRet_t mluOpSmoothL1LossBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                   const mluTensor_t* target, int64_t reduction, double beta, const mluTensor_t* out) {
  return launch("mluOpSmoothL1LossBackward", q, {grad, x, target, out},
                [g = *grad, x = *x, t = *target, reduction, beta, o = *out] {
                  store(o, at::smooth_l1_loss_backward(host_view(g), host_view(x), host_view(t), reduction, beta));
                });
}

mluRet_t mluOpHuberLoss(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* target, int64_t reduction, double delta,
                        const mluTensor_t* out) {
  return launch("mluOpHuberLoss", q, {x, target, out}, [x = *x, t = *target, reduction, delta, o = *out] {
    store(o, at::huber_loss(host_view(x), host_view(t), reduction, delta));
  });
}

mluRet_t mluOpHuberLossBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* target,
                                int64_t reduction, double delta, const mluTensor_t* out) {
  return launch("mluOpHuberLossBackward", q, {grad, x, target, out},
                [g = *grad, x = *x, t = *target, reduction, delta, o = *out] {
                  store(o, at::huber_loss_backward(host_view(g), host_view(x), host_view(t), reduction, delta));
                });
}

mluRet_t mluOpBinaryCrossEntropy(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* target,
                                 const mluTensor_t* weight, int64_t reduction, const mluTensor_t* out) {
  return launch("mluOpBinaryCrossEntropy", q, {x, target, weight, out},
                [x = *x, t = *target, w = *weight, reduction, o = *out] {
                  store(o, at::binary_cross_entropy(host_view(x), host_view(t), optional_host_view(w), reduction));
                });
}

mluRet_t mluOpBinaryCrossEntropyBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                         const mluTensor_t* target, const mluTensor_t* weight, int64_t reduction,
                                         const mluTensor_t* out) {
  return launch("mluOpBinaryCrossEntropyBackward", q, {grad, x, target, weight, out},
                [g = *grad, x = *x, t = *target, w = *weight, reduction, o = *out] {
                  store(o, at::binary_cross_entropy_backward(host_view(g), host_view(x), host_view(t),
                                                             optional_host_view(w), reduction));
                });
}

mluRet_t mluOpNllLoss2d(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* target, const mluTensor_t* weight,
                        int64_t reduction, int64_t ignore_index, const mluTensor_t* out,
                        const mluTensor_t* total_weight) {
  return launch("mluOpNllLoss2d", q, {x, target, weight, out, total_weight},
                [x = *x, t = *target, w = *weight, reduction, ignore_index, o = *out, tw = *total_weight] {
                  auto [loss, total] = at::nll_loss2d_forward(host_view(x), host_view(t), optional_host_view(w),
                                                              reduction, ignore_index);
                  store(o, loss);
                  store(tw, total);
                });
}

mluRet_t mluOpNllLoss2dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* target,
                                const mluTensor_t* weight, int64_t reduction, int64_t ignore_index,
                                const mluTensor_t* total_weight, const mluTensor_t* out) {
  return launch("mluOpNllLoss2dBackward", q, {grad, x, target, weight, total_weight, out},
                [g = *grad, x = *x, t = *target, w = *weight, reduction, ignore_index, tw = *total_weight, o = *out] {
                  store(o, at::nll_loss2d_backward(host_view(g), host_view(x), host_view(t), optional_host_view(w),
                                                   reduction, ignore_index, host_view(tw)));
                });
}

mluRet_t mluOpMultiMarginLoss(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* target, mluScalar_t p,
                              mluScalar_t margin, const mluTensor_t* weight, int64_t reduction,
                              const mluTensor_t* out) {
  return launch("mluOpMultiMarginLoss", q, {x, target, weight, out},
                [x = *x, t = *target, p, margin, w = *weight, reduction, o = *out] {
                  store(o, at::multi_margin_loss(host_view(x), host_view(t), aten_scalar(p), aten_scalar(margin),
                                                 optional_host_view(w), reduction));
                });
}

mluRet_t mluOpMultiMarginLossBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                      const mluTensor_t* target, mluScalar_t p, mluScalar_t margin,
                                      const mluTensor_t* weight, int64_t reduction, const mluTensor_t* out) {
  return launch("mluOpMultiMarginLossBackward", q, {grad, x, target, weight, out},
                [g = *grad, x = *x, t = *target, p, margin, w = *weight, reduction, o = *out] {
                  store(o, at::multi_margin_loss_backward(host_view(g), host_view(x), host_view(t), aten_scalar(p),
                                                          aten_scalar(margin), optional_host_view(w), reduction));
                });
}

mluRet_t mluOpMultilabelMarginLoss(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* target, int64_t reduction,
                                   const mluTensor_t* out, const mluTensor_t* is_target) {
  return launch("mluOpMultilabelMarginLoss", q, {x, target, out, is_target},
                [x = *x, t = *target, reduction, o = *out, it = *is_target] {
                  auto [loss, marks] = at::multilabel_margin_loss_forward(host_view(x), host_view(t), reduction);
                  store(o, loss);
                  store(it, marks);
                });
}

mluRet_t mluOpMultilabelMarginLossBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                           const mluTensor_t* target, int64_t reduction, const mluTensor_t* is_target,
                                           const mluTensor_t* out) {
  return launch("mluOpMultilabelMarginLossBackward", q, {grad, x, target, is_target, out},
                [g = *grad, x = *x, t = *target, reduction, it = *is_target, o = *out] {
                  store(o, at::multilabel_margin_loss_backward(host_view(g), host_view(x), host_view(t), reduction,
                                                               host_view(it)));
                });
}

}  // extern "C"
