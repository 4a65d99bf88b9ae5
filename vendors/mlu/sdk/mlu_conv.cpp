// Convolution (NCHW), forward and backward.
#include "mlu_ops_internal.h"

#include <array>

using namespace mlu_ops;

extern "C" {

mluRet_t mluOpConvolution(mluQueue_t q, const mluTensor_t* input, const mluTensor_t* weight, const mluTensor_t* bias,
                          mluIntList_t stride, mluIntList_t padding, mluIntList_t dilation, bool transposed,
                          mluIntList_t output_padding, int64_t groups, const mluTensor_t* out) {
  return launch("mluOpConvolution", q, {input, weight, bias, out},
                [x = *input, w = *weight, b = *bias, stride, padding, dilation, transposed, output_padding, groups,
                 o = *out] {
                  store(o, at::convolution(host_view(x), host_view(w), optional_host_view(b), ints(stride),
                                           ints(padding), ints(dilation), transposed, ints(output_padding), groups));
                });
}

mluRet_t mluOpConvolutionBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* input,
                                  const mluTensor_t* weight, mluIntList_t stride, mluIntList_t padding,
                                  mluIntList_t dilation, bool transposed, mluIntList_t output_padding, int64_t groups,
                                  const mluTensor_t* grad_input, const mluTensor_t* grad_weight,
                                  const mluTensor_t* grad_bias) {
  return launch("mluOpConvolutionBackward", q, {grad, input, weight, grad_input, grad_weight, grad_bias},
                [g = *grad, x = *input, w = *weight, stride, padding, dilation, transposed, output_padding, groups,
                 gi = *grad_input, gw = *grad_weight, gb = *grad_bias] {
                  const std::array<bool, 3> mask{gi.data != nullptr, gw.data != nullptr, gb.data != nullptr};
                  const at::OptionalIntArrayRef bias_sizes =
                      mask[2] ? at::OptionalIntArrayRef(at::IntArrayRef(gb.shape, 1)) : std::nullopt;
                  auto [dx, dw, db] = at::convolution_backward(host_view(g), host_view(x), host_view(w), bias_sizes,
                                                               ints(stride), ints(padding), ints(dilation), transposed,
                                                               ints(output_padding), groups, mask);
                  if (mask[0]) store(gi, dx);
                  if (mask[1]) store(gw, dw);
                  if (mask[2]) store(gb, db);
                });
}

}  // extern "C"
