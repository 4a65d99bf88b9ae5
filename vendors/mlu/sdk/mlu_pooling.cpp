// Pooling, 2-D, 3-D, adaptive and fractional (NC[D]HW or C[D]HW).
#include "mlu_ops_internal.h"

using namespace mlu_ops;

namespace {
// The window every average pooling op takes (2-D, 3-D, forward and backward),
// captured by its worker-thread body as one value.
struct AvgPoolWindow {
  mluIntList_t kernel, stride, padding;
  bool ceil_mode, count_include_pad;
  mluIntList_t divisor_override;
};
}  // namespace

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
  const AvgPoolWindow w{kernel, stride, padding, ceil_mode, count_include_pad, divisor_override};
  return launch("mluOpAvgPool2d", q, {x, out}, [x = *x, w, o = *out] {
    at::avg_pool2d_out(lvalue(host_view(o)), host_view(x), ints(w.kernel), ints(w.stride), ints(w.padding),
                       w.ceil_mode, w.count_include_pad, optional_int(w.divisor_override));
  });
}

mluRet_t mluOpAvgPool2dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluIntList_t kernel,
                                mluIntList_t stride, mluIntList_t padding, bool ceil_mode, bool count_include_pad,
                                mluIntList_t divisor_override, const mluTensor_t* out) {
  const AvgPoolWindow w{kernel, stride, padding, ceil_mode, count_include_pad, divisor_override};
  return launch("mluOpAvgPool2dBackward", q, {grad, x, out}, [g = *grad, x = *x, w, o = *out] {
    at::avg_pool2d_backward_out(lvalue(host_view(o)), host_view(g), host_view(x), ints(w.kernel), ints(w.stride),
                                ints(w.padding), w.ceil_mode, w.count_include_pad, optional_int(w.divisor_override));
  });
}

mluRet_t mluOpAvgPool3d(mluQueue_t q, const mluTensor_t* x, mluIntList_t kernel, mluIntList_t stride,
                        mluIntList_t padding, bool ceil_mode, bool count_include_pad, mluIntList_t divisor_override,
                        const mluTensor_t* out) {
  const AvgPoolWindow w{kernel, stride, padding, ceil_mode, count_include_pad, divisor_override};
  return launch("mluOpAvgPool3d", q, {x, out}, [x = *x, w, o = *out] {
    store(o, at::avg_pool3d(host_view(x), ints(w.kernel), ints(w.stride), ints(w.padding), w.ceil_mode,
                            w.count_include_pad, optional_int(w.divisor_override)));
  });
}

mluRet_t mluOpAvgPool3dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluIntList_t kernel,
                                mluIntList_t stride, mluIntList_t padding, bool ceil_mode, bool count_include_pad,
                                mluIntList_t divisor_override, const mluTensor_t* out) {
  const AvgPoolWindow w{kernel, stride, padding, ceil_mode, count_include_pad, divisor_override};
  return launch("mluOpAvgPool3dBackward", q, {grad, x, out}, [g = *grad, x = *x, w, o = *out] {
    store(o, at::avg_pool3d_backward(host_view(g), host_view(x), ints(w.kernel), ints(w.stride), ints(w.padding),
                                     w.ceil_mode, w.count_include_pad, optional_int(w.divisor_override)));
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

// Adaptive average pooling: the 2-D and 3-D ops differ only in the ATen kernel.
#define MLU_ADAPTIVE_AVG_POOL(NAME, ATEN)                                                                          \
  mluRet_t NAME(mluQueue_t q, const mluTensor_t* x, mluIntList_t output_size, const mluTensor_t* out) {            \
    return launch(#NAME, q, {x, out}, [x = *x, output_size, o = *out] {                                            \
      store(o, at::ATEN(host_view(x), ints(output_size)));                                                         \
    });                                                                                                            \
  }                                                                                                                \
  mluRet_t NAME##Backward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* out) {   \
    return launch(#NAME "Backward", q, {grad, x, out}, [g = *grad, x = *x, o = *out] {                             \
      store(o, at::ATEN##_backward(host_view(g), host_view(x)));                                                   \
    });                                                                                                            \
  }

MLU_ADAPTIVE_AVG_POOL(mluOpAdaptiveAvgPool2d, _adaptive_avg_pool2d)
MLU_ADAPTIVE_AVG_POOL(mluOpAdaptiveAvgPool3d, _adaptive_avg_pool3d)

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
