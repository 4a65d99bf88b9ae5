// Pooling, 2-D, 3-D, adaptive and fractional (NC[D]HW or C[D]HW).
#include "mlu_ops_internal.h"

using namespace mlu_ops;

extern "C" {

mluRet_t mluOpMaxPool2d(mluQueue_t q, const mluTensor_t* x, mluIntList_t kernel, mluIntList_t stride,
                        mluIntList_t padding, mluIntList_t dilation, bool ceil_mode, const mluTensor_t* out,
                        const mluTensor_t* indices) {
  return launch("mluOpMaxPool2d", q, {x, out, indices},
                [x = *x, kernel, stride, padding, dilation, ceil_mode, o = *out, i = *indices] {
                  at::Tensor values = host_view(o), idx = host_view(i);
                  at::max_pool2d_with_indices_out(values, idx, host_view(x), ints(kernel), ints(stride),
                                                  ints(padding), ints(dilation), ceil_mode);
                });
}

mluRet_t mluOpMaxPool2dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluIntList_t kernel,
                                mluIntList_t stride, mluIntList_t padding, mluIntList_t dilation, bool ceil_mode,
                                const mluTensor_t* indices, const mluTensor_t* out) {
  return launch("mluOpMaxPool2dBackward", q, {grad, x, indices, out},
                [g = *grad, x = *x, kernel, stride, padding, dilation, ceil_mode, i = *indices, o = *out] {
                  at::max_pool2d_with_indices_backward_out(lvalue(host_view(o)), host_view(g), host_view(x),
                                                           ints(kernel), ints(stride), ints(padding), ints(dilation),
                                                           ceil_mode, host_view(i));
                });
}

mluRet_t mluOpAvgPool2d(mluQueue_t q, const mluTensor_t* x, mluIntList_t kernel, mluIntList_t stride,
                        mluIntList_t padding, bool ceil_mode, bool count_include_pad, mluIntList_t divisor_override,
                        const mluTensor_t* out) {
  return launch("mluOpAvgPool2d", q, {x, out},
                [x = *x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override, o = *out] {
                  at::avg_pool2d_out(lvalue(host_view(o)), host_view(x), ints(kernel), ints(stride), ints(padding),
                                     ceil_mode, count_include_pad, optional_int(divisor_override));
                });
}

mluRet_t mluOpAvgPool2dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluIntList_t kernel,
                                mluIntList_t stride, mluIntList_t padding, bool ceil_mode, bool count_include_pad,
                                mluIntList_t divisor_override, const mluTensor_t* out) {
  return launch("mluOpAvgPool2dBackward", q, {grad, x, out},
                [g = *grad, x = *x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override,
                 o = *out] {
                  at::avg_pool2d_backward_out(lvalue(host_view(o)), host_view(g), host_view(x), ints(kernel),
                                              ints(stride), ints(padding), ceil_mode, count_include_pad,
                                              optional_int(divisor_override));
                });
}

mluRet_t mluOpAdaptiveAvgPool2d(mluQueue_t q, const mluTensor_t* x, mluIntList_t output_size, const mluTensor_t* out) {
  return launch("mluOpAdaptiveAvgPool2d", q, {x, out}, [x = *x, output_size, o = *out] {
    store(o, at::_adaptive_avg_pool2d(host_view(x), ints(output_size)));
  });
}

mluRet_t mluOpAdaptiveAvgPool2dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                        const mluTensor_t* out) {
  return launch("mluOpAdaptiveAvgPool2dBackward", q, {grad, x, out}, [g = *grad, x = *x, o = *out] {
    store(o, at::_adaptive_avg_pool2d_backward(host_view(g), host_view(x)));
  });
}

mluRet_t mluOpAvgPool3d(mluQueue_t q, const mluTensor_t* x, mluIntList_t kernel, mluIntList_t stride,
                        mluIntList_t padding, bool ceil_mode, bool count_include_pad, mluIntList_t divisor_override,
                        const mluTensor_t* out) {
  return launch("mluOpAvgPool3d", q, {x, out},
                [x = *x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override, o = *out] {
                  store(o, at::avg_pool3d(host_view(x), ints(kernel), ints(stride), ints(padding), ceil_mode,
                                          count_include_pad, optional_int(divisor_override)));
                });
}

mluRet_t mluOpAvgPool3dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluIntList_t kernel,
                                mluIntList_t stride, mluIntList_t padding, bool ceil_mode, bool count_include_pad,
                                mluIntList_t divisor_override, const mluTensor_t* out) {
  return launch("mluOpAvgPool3dBackward", q, {grad, x, out},
                [g = *grad, x = *x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override,
                 o = *out] {
                  store(o, at::avg_pool3d_backward(host_view(g), host_view(x), ints(kernel), ints(stride),
                                                   ints(padding), ceil_mode, count_include_pad,
                                                   optional_int(divisor_override)));
                });
}

mluRet_t mluOpMaxPool3d(mluQueue_t q, const mluTensor_t* x, mluIntList_t kernel, mluIntList_t stride,
                        mluIntList_t padding, mluIntList_t dilation, bool ceil_mode, const mluTensor_t* out,
                        const mluTensor_t* indices) {
  return launch("mluOpMaxPool3d", q, {x, out, indices},
                [x = *x, kernel, stride, padding, dilation, ceil_mode, o = *out, i = *indices] {
                  auto [values, where] = at::max_pool3d_with_indices(host_view(x), ints(kernel), ints(stride),
                                                                     ints(padding), ints(dilation), ceil_mode);
                  store(o, values);
                  store(i, where);
                });
}

mluRet_t mluOpMaxPool3dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluIntList_t kernel,
                                mluIntList_t stride, mluIntList_t padding, mluIntList_t dilation, bool ceil_mode,
                                const mluTensor_t* indices, const mluTensor_t* out) {
  return launch("mluOpMaxPool3dBackward", q, {grad, x, indices, out},
                [g = *grad, x = *x, kernel, stride, padding, dilation, ceil_mode, i = *indices, o = *out] {
                  store(o, at::max_pool3d_with_indices_backward(host_view(g), host_view(x), ints(kernel),
                                                                ints(stride), ints(padding), ints(dilation), ceil_mode,
                                                                host_view(i)));
                });
}

#define MLU_ADAPTIVE_MAX_POOL(NAME, ATEN)                                                                         \
  mluRet_t NAME(mluQueue_t q, const mluTensor_t* x, mluIntList_t output_size, const mluTensor_t* out,              \
                const mluTensor_t* indices) {                                                                      \
    return launch(#NAME, q, {x, out, indices}, [x = *x, output_size, o = *out, i = *indices] {                     \
      auto [values, where] = at::ATEN(host_view(x), ints(output_size));                                            \
      store(o, values);                                                                                            \
      store(i, where);                                                                                             \
    });                                                                                                            \
  }                                                                                                                \
  mluRet_t NAME##Backward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* indices,  \
                          const mluTensor_t* out) {                                                                \
    return launch(#NAME "Backward", q, {grad, x, indices, out}, [g = *grad, x = *x, i = *indices, o = *out] {      \
      store(o, at::ATEN##_backward(host_view(g), host_view(x), host_view(i)));                                     \
    });                                                                                                            \
  }

MLU_ADAPTIVE_MAX_POOL(mluOpAdaptiveMaxPool2d, adaptive_max_pool2d)
MLU_ADAPTIVE_MAX_POOL(mluOpAdaptiveMaxPool3d, adaptive_max_pool3d)

mluRet_t mluOpAdaptiveAvgPool3d(mluQueue_t q, const mluTensor_t* x, mluIntList_t output_size, const mluTensor_t* out) {
  return launch("mluOpAdaptiveAvgPool3d", q, {x, out}, [x = *x, output_size, o = *out] {
    store(o, at::_adaptive_avg_pool3d(host_view(x), ints(output_size)));
  });
}

mluRet_t mluOpAdaptiveAvgPool3dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                        const mluTensor_t* out) {
  return launch("mluOpAdaptiveAvgPool3dBackward", q, {grad, x, out}, [g = *grad, x = *x, o = *out] {
    store(o, at::_adaptive_avg_pool3d_backward(host_view(g), host_view(x)));
  });
}

mluRet_t mluOpFractionalMaxPool2d(mluQueue_t q, const mluTensor_t* x, mluIntList_t kernel, mluIntList_t output_size,
                                  const mluTensor_t* samples, const mluTensor_t* out, const mluTensor_t* indices) {
  return launch("mluOpFractionalMaxPool2d", q, {x, samples, out, indices},
                [x = *x, kernel, output_size, s = *samples, o = *out, i = *indices] {
                  auto [values, where] =
                      at::fractional_max_pool2d(host_view(x), ints(kernel), ints(output_size), host_view(s));
                  store(o, values);
                  store(i, where);
                });
}

mluRet_t mluOpFractionalMaxPool2dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                          mluIntList_t kernel, mluIntList_t output_size, const mluTensor_t* indices,
                                          const mluTensor_t* out) {
  return launch("mluOpFractionalMaxPool2dBackward", q, {grad, x, indices, out},
                [g = *grad, x = *x, kernel, output_size, i = *indices, o = *out] {
                  store(o, at::fractional_max_pool2d_backward(host_view(g), host_view(x), ints(kernel),
                                                              ints(output_size), host_view(i)));
                });
}

}  // extern "C"
