// Convolution: input, weight and grad_output in NC1HWC0; bias and results in ND
// (NCHW), or out in NC1HWC0.
#include "npu_ops_internal.h"

#include <array>
#include <string>
#include <utility>
#include <vector>

using namespace npu_ops;

extern "C" {

npuError npunnConvolutionGetWorkspaceSize(const npuTensor* input, const npuTensor* weight, const npuTensor* bias,
                                          const npuIntArray* stride, const npuIntArray* padding,
                                          const npuIntArray* dilation, int64_t groups, npuTensor* out,
                                          NPUNN_QUERY_ARGS) {
  const char* op = "npunnConvolution";
  if (npuError e = require_format(op, "input", input, NPU_FORMAT_NC1HWC0); e != NPU_SUCCESS) return e;
  if (npuError e = require_format(op, "weight", weight, NPU_FORMAT_NC1HWC0); e != NPU_SUCCESS) return e;
  if (groups != 1) return fail(NPU_ERROR_NOT_SUPPORTED, std::string(op) + ": grouped convolution");
  if (out && out->format == NPU_FORMAT_NC1HWC0 &&
      (out->rank != 5 || out->dim_sizes[1] != (weight->dim_sizes[0] + NPU_C0 - 1) / NPU_C0)) {
    return fail(NPU_ERROR_INVALID_PARAM, std::string(op) + ": an NC1HWC0 out must be (N, ceil(C_out/16), H, W, 16)");
  }
  return prepare(op, {input, weight, bias, out},
                 [x = desc(input), w = desc(weight), b = desc(bias), s = ints(stride), p = ints(padding),
                  d = ints(dilation), o = desc(out)] {
                   // Zero-padded channels contribute nothing to the sums.
                   const at::Tensor result = at::convolution(unblock(view(x)), unblock(view(w)), optional_view(b), s,
                                                             p, d, /*transposed=*/false, {0, 0}, 1);
                   if (is_blocked(o)) {
                     // The padded output channels of the weight are zeros: write the real ones.
                     block_into(view(o), result.narrow(1, 0, w.tensor.dim_sizes[0]));
                   } else {
                     alu::store(view(o), result);
                   }
                 }, workspace_size, executor);
}
NPUNN_RUN(Convolution)

npuError npunnConvolutionBackwardGetWorkspaceSize(const npuTensor* grad_output, const npuTensor* input,
                                                  const npuTensor* weight, const npuIntArray* stride,
                                                  const npuIntArray* padding, const npuIntArray* dilation,
                                                  int64_t groups, npuTensor* grad_input, npuTensor* grad_weight,
                                                  npuTensor* grad_bias, NPUNN_QUERY_ARGS) {
  const char* op = "npunnConvolutionBackward";
  for (auto [what, t] : {std::pair{"grad_output", grad_output}, {"input", input}, {"weight", weight}}) {
    if (npuError e = require_format(op, what, t, NPU_FORMAT_NC1HWC0); e != NPU_SUCCESS) return e;
  }
  if (groups != 1) return fail(NPU_ERROR_NOT_SUPPORTED, std::string(op) + ": grouped convolution");
  return prepare(op, {grad_output, input, weight, grad_input, grad_weight, grad_bias},
                 [g = desc(grad_output), x = desc(input), w = desc(weight), s = ints(stride), p = ints(padding),
                  d = ints(dilation), gi = desc(grad_input), gw = desc(grad_weight), gb = desc(grad_bias)] {
                   // On the caller's channel counts, without the padding: the sums
                   // then run in CPU's order, and float16 gradients round as CPU's.
                   const at::Tensor weight_padded = unblock_nchw(view(w));
                   const int64_t out_channels = weight_padded.size(0);
                   const int64_t in_channels = gi.present ? gi.tensor.dim_sizes[1]
                                               : gw.present ? gw.tensor.dim_sizes[1] : weight_padded.size(1);
                   const at::Tensor grad = unblock_nchw(view(g)).narrow(1, 0, out_channels).contiguous();
                   const at::Tensor input = unblock_nchw(view(x)).narrow(1, 0, in_channels).contiguous();
                   const at::Tensor weight = weight_padded.narrow(1, 0, in_channels).contiguous();
                   const std::array<bool, 3> mask{gi.present, gw.present, gb.present};
                   const std::vector<int64_t> bias_sizes{out_channels};
                   auto [dx, dw, db] = at::convolution_backward(grad, input, weight, bias_sizes, s, p, d,
                                                                /*transposed=*/false, {0, 0}, 1, mask);
                   // Results are ND with the caller's channel count: drop the padding.
                   if (gi.present) alu::store(view(gi), dx.narrow(1, 0, gi.tensor.dim_sizes[1]));
                   if (gw.present) alu::store(view(gw), dw.narrow(1, 0, gw.tensor.dim_sizes[1]));
                   if (gb.present) alu::store(view(gb), db);
                 }, workspace_size, executor);
}
NPUNN_RUN(ConvolutionBackward)

}  // extern "C"
