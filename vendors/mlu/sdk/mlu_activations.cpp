// Activations and their gradients (the ATen argument meanings).
#include "mlu_ops_internal.h"

using namespace mlu_ops;

extern "C" {

mluRet_t mluOpRelu(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out) {
  return launch("mluOpRelu", q, {x, out}, [x = *x, o = *out] { at::clamp_min_out(lvalue(host_view(o)), host_view(x), 0); });
}

mluRet_t mluOpTanhBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* y, const mluTensor_t* out) {
  return launch("mluOpTanhBackward", q, {grad, y, out}, [g = *grad, y = *y, o = *out] {
    at::tanh_backward_out(lvalue(host_view(o)), host_view(g), host_view(y));
  });
}

mluRet_t mluOpSigmoidBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* y, const mluTensor_t* out) {
  return launch("mluOpSigmoidBackward", q, {grad, y, out}, [g = *grad, y = *y, o = *out] {
    at::sigmoid_backward_out(lvalue(host_view(o)), host_view(g), host_view(y));
  });
}

mluRet_t mluOpThresholdBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluScalar_t threshold,
                                const mluTensor_t* out) {
  return launch("mluOpThresholdBackward", q, {grad, x, out}, [g = *grad, x = *x, threshold, o = *out] {
    at::threshold_backward_out(lvalue(host_view(o)), host_view(g), host_view(x), aten_scalar(threshold));
  });
}

mluRet_t mluOpGelu(mluQueue_t q, const mluTensor_t* x, mluGeluApproximation_t approximation, const mluTensor_t* out) {
  return launch("mluOpGelu", q, {x, out}, [x = *x, approximation, o = *out] {
    at::gelu_out(lvalue(host_view(o)), host_view(x), approximation_name(approximation));
  });
}

mluRet_t mluOpGeluBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                           mluGeluApproximation_t approximation, const mluTensor_t* out) {
  return launch("mluOpGeluBackward", q, {grad, x, out}, [g = *grad, x = *x, approximation, o = *out] {
    at::gelu_backward_out(lvalue(host_view(o)), host_view(g), host_view(x), approximation_name(approximation));
  });
}

mluRet_t mluOpSiluBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* out) {
  return launch("mluOpSiluBackward", q, {grad, x, out}, [g = *grad, x = *x, o = *out] {
    at::silu_backward_out(lvalue(host_view(o)), host_view(g), host_view(x));
  });
}

mluRet_t mluOpElu(mluQueue_t q, const mluTensor_t* x, mluScalar_t alpha, mluScalar_t scale, mluScalar_t input_scale,
                  const mluTensor_t* out) {
  return launch("mluOpElu", q, {x, out}, [x = *x, alpha, scale, input_scale, o = *out] {
    store(o, at::elu(host_view(x), aten_scalar(alpha), aten_scalar(scale), aten_scalar(input_scale)));
  });
}

mluRet_t mluOpEluBackward(mluQueue_t q, const mluTensor_t* grad, mluScalar_t alpha, mluScalar_t scale,
                          mluScalar_t input_scale, bool is_result, const mluTensor_t* x_or_y, const mluTensor_t* out) {
  return launch("mluOpEluBackward", q, {grad, x_or_y, out},
                [g = *grad, alpha, scale, input_scale, is_result, x = *x_or_y, o = *out] {
                  store(o, at::elu_backward(host_view(g), aten_scalar(alpha), aten_scalar(scale),
                                            aten_scalar(input_scale), is_result, host_view(x)));
                });
}

mluRet_t mluOpLeakyRelu(mluQueue_t q, const mluTensor_t* x, mluScalar_t slope, const mluTensor_t* out) {
  return launch("mluOpLeakyRelu", q, {x, out},
                [x = *x, slope, o = *out] { store(o, at::leaky_relu(host_view(x), aten_scalar(slope))); });
}

mluRet_t mluOpLeakyReluBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluScalar_t slope,
                                bool x_is_result, const mluTensor_t* out) {
  return launch("mluOpLeakyReluBackward", q, {grad, x, out}, [g = *grad, x = *x, slope, x_is_result, o = *out] {
    store(o, at::leaky_relu_backward(host_view(g), host_view(x), aten_scalar(slope), x_is_result));
  });
}

// hardtanh (min, max) and softplus (beta, threshold): x and two scalars forward,
// (grad, x, the same scalars) backward, in ATen's order.
#define MLU_TWO_SCALAR_ACTIVATION(NAME, ATEN)                                                                    \
  mluRet_t NAME(mluQueue_t q, const mluTensor_t* x, mluScalar_t first, mluScalar_t second,                       \
                const mluTensor_t* out) {                                                                        \
    return launch(#NAME, q, {x, out}, [x = *x, first, second, o = *out] {                                        \
      store(o, at::ATEN(host_view(x), aten_scalar(first), aten_scalar(second)));                                 \
    });                                                                                                          \
  }                                                                                                              \
  mluRet_t NAME##Backward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluScalar_t first,        \
                          mluScalar_t second, const mluTensor_t* out) {                                          \
    return launch(#NAME "Backward", q, {grad, x, out}, [g = *grad, x = *x, first, second, o = *out] {            \
      store(o, at::ATEN##_backward(host_view(g), host_view(x), aten_scalar(first), aten_scalar(second)));        \
    });                                                                                                          \
  }

MLU_TWO_SCALAR_ACTIVATION(mluOpHardtanh, hardtanh)
MLU_TWO_SCALAR_ACTIVATION(mluOpSoftplus, softplus)

#define MLU_SHRINK(NAME, ATEN)                                                                                   \
  mluRet_t NAME(mluQueue_t q, const mluTensor_t* x, mluScalar_t lambd, const mluTensor_t* out) {                 \
    return launch(#NAME, q, {x, out},                                                                            \
                  [x = *x, lambd, o = *out] { store(o, at::ATEN(host_view(x), aten_scalar(lambd))); });          \
  }                                                                                                              \
  mluRet_t NAME##Backward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluScalar_t lambd,        \
                          const mluTensor_t* out) {                                                              \
    return launch(#NAME "Backward", q, {grad, x, out}, [g = *grad, x = *x, lambd, o = *out] {                    \
      store(o, at::ATEN##_backward(host_view(g), host_view(x), aten_scalar(lambd)));                             \
    });                                                                                                          \
  }

MLU_SHRINK(mluOpSoftshrink, softshrink)
MLU_SHRINK(mluOpHardshrink, hardshrink)

mluRet_t mluOpHardswish(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out) {
  return launch("mluOpHardswish", q, {x, out}, [x = *x, o = *out] { store(o, at::hardswish(host_view(x))); });
}

mluRet_t mluOpHardswishBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* out) {
  return launch("mluOpHardswishBackward", q, {grad, x, out},
                [g = *grad, x = *x, o = *out] { store(o, at::hardswish_backward(host_view(g), host_view(x))); });
}

mluRet_t mluOpHardsigmoid(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out) {
  return launch("mluOpHardsigmoid", q, {x, out}, [x = *x, o = *out] { store(o, at::hardsigmoid(host_view(x))); });
}

mluRet_t mluOpHardsigmoidBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* out) {
  return launch("mluOpHardsigmoidBackward", q, {grad, x, out},
                [g = *grad, x = *x, o = *out] { store(o, at::hardsigmoid_backward(host_view(g), host_view(x))); });
}

mluRet_t mluOpLogSigmoid(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out, const mluTensor_t* buffer) {
  return launch("mluOpLogSigmoid", q, {x, out, buffer}, [x = *x, o = *out, b = *buffer] {
    auto [y, saved] = at::log_sigmoid_forward(host_view(x));
    store(o, y);
    store(b, saved);
  });
}

mluRet_t mluOpLogSigmoidBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                 const mluTensor_t* buffer, const mluTensor_t* out) {
  return launch("mluOpLogSigmoidBackward", q, {grad, x, buffer, out}, [g = *grad, x = *x, b = *buffer, o = *out] {
    store(o, at::log_sigmoid_backward(host_view(g), host_view(x), host_view(b)));
  });
}

mluRet_t mluOpMish(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out) {
  return launch("mluOpMish", q, {x, out}, [x = *x, o = *out] { store(o, at::mish(host_view(x))); });
}

mluRet_t mluOpThreshold(mluQueue_t q, const mluTensor_t* x, mluScalar_t threshold, mluScalar_t value,
                        const mluTensor_t* out) {
  return launch("mluOpThreshold", q, {x, out}, [x = *x, threshold, value, o = *out] {
    store(o, at::threshold(host_view(x), aten_scalar(threshold), aten_scalar(value)));
  });
}

mluRet_t mluOpGlu(mluQueue_t q, const mluTensor_t* x, int64_t dim, const mluTensor_t* out) {
  return launch("mluOpGlu", q, {x, out}, [x = *x, dim, o = *out] { store(o, at::glu(host_view(x), dim)); });
}

mluRet_t mluOpGluBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, int64_t dim,
                          const mluTensor_t* out) {
  return launch("mluOpGluBackward", q, {grad, x, out}, [g = *grad, x = *x, dim, o = *out] {
    store(o, at::glu_backward(host_view(g), host_view(x), dim));
  });
}

mluRet_t mluOpPrelu(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* weight, const mluTensor_t* out) {
  return launch("mluOpPrelu", q, {x, weight, out},
                [x = *x, w = *weight, o = *out] { store(o, at::_prelu_kernel(host_view(x), host_view(w))); });
}

mluRet_t mluOpPreluBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* weight,
                            const mluTensor_t* grad_x, const mluTensor_t* grad_weight) {
  return launch("mluOpPreluBackward", q, {grad, x, weight, grad_x, grad_weight},
                [g = *grad, x = *x, w = *weight, gx = *grad_x, gw = *grad_weight] {
                  auto [dx, dw] = at::_prelu_kernel_backward(host_view(g), host_view(x), host_view(w));
                  store(gx, dx);
                  store(gw, dw);
                });
}

}  // extern "C"
