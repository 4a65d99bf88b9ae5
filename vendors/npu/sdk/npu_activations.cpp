// Activations and their gradients (the ATen argument meanings).
#include "npu_ops_internal.h"

#include <optional>
#include <string>

using namespace npu_ops;

extern "C" {

npuError npunnReluGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS) {
  // Elementwise: ND or NC1HWC0 (relu keeps the padding's zeros), both the same.
  if (self && out && self->format != out->format) {
    return fail(NPU_ERROR_INVALID_PARAM, "npunnRelu: self and out must be in the same format");
  }
  return prepare("npunnRelu", {self, out}, [x = desc(self), o = desc(out)] {
    at::Tensor result = view(o);
    at::clamp_min_out(result, view(x), 0);
  }, workspace_size, executor);
}
NPUNN_RUN(Relu)

npuError npunnGeluGetWorkspaceSize(const npuTensor* self, const char* approximate, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!approximate) return fail(NPU_ERROR_INVALID_PARAM, "npunnGelu: null approximate");
  return prepare("npunnGelu", {self, out}, [x = desc(self), mode = std::string(approximate), o = desc(out)] {
    at::Tensor result = view(o);
    at::gelu_out(result, view(x), mode);
  }, workspace_size, executor);
}
NPUNN_RUN(Gelu)

npuError npunnGeluBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* self, const char* approximate,
                                           npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!approximate) return fail(NPU_ERROR_INVALID_PARAM, "npunnGeluBackward: null approximate");
  return prepare("npunnGeluBackward", {grad, self, out},
                 [g = desc(grad), x = desc(self), mode = std::string(approximate), o = desc(out)] {
                   at::Tensor result = view(o);
                   at::gelu_backward_out(result, view(g), view(x), mode);
                 }, workspace_size, executor);
}
NPUNN_RUN(GeluBackward)

npuError npunnThresholdBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* self,
                                                const npuScalar* threshold, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!threshold) return fail(NPU_ERROR_INVALID_PARAM, "npunnThresholdBackward: null threshold");
  return prepare("npunnThresholdBackward", {grad, self, out},
                 [g = desc(grad), x = desc(self), t = *threshold, o = desc(out)] {
                   at::Tensor result = view(o);
                   at::threshold_backward_out(result, view(g), view(x), aten_scalar(t));
                 }, workspace_size, executor);
}
NPUNN_RUN(ThresholdBackward)

NPU_BINARY(TanhBackward, at::tanh_backward_out)
NPU_BINARY(SigmoidBackward, at::sigmoid_backward_out)
NPU_BINARY(SiluBackward, at::silu_backward_out)

npuError npunnEluGetWorkspaceSize(const npuTensor* self, const npuScalar* alpha, const npuScalar* scale, const npuScalar* inputScale, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!alpha) return fail(NPU_ERROR_INVALID_PARAM, "npunnElu: null alpha");
  if (!scale) return fail(NPU_ERROR_INVALID_PARAM, "npunnElu: null scale");
  if (!inputScale) return fail(NPU_ERROR_INVALID_PARAM, "npunnElu: null inputScale");
  return prepare("npunnElu", {self, out}, [self = desc(self), alpha = *alpha, scale = *scale, inputScale = *inputScale, out = desc(out)] {
    alu::store(view(out), at::elu(view(self), aten_scalar(alpha), aten_scalar(scale), aten_scalar(inputScale)));
  }, workspace_size, executor);
}
NPUNN_RUN(Elu)

npuError npunnEluBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuScalar* alpha, const npuScalar* scale, const npuScalar* inputScale, bool isResult, const npuTensor* selfOrResult, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!alpha) return fail(NPU_ERROR_INVALID_PARAM, "npunnEluBackward: null alpha");
  if (!scale) return fail(NPU_ERROR_INVALID_PARAM, "npunnEluBackward: null scale");
  if (!inputScale) return fail(NPU_ERROR_INVALID_PARAM, "npunnEluBackward: null inputScale");
  return prepare("npunnEluBackward", {gradOutput, selfOrResult, out}, [gradOutput = desc(gradOutput), alpha = *alpha, scale = *scale, inputScale = *inputScale, isResult, selfOrResult = desc(selfOrResult), out = desc(out)] {
    alu::store(view(out), at::elu_backward(view(gradOutput), aten_scalar(alpha), aten_scalar(scale), aten_scalar(inputScale), isResult, view(selfOrResult)));
  }, workspace_size, executor);
}
NPUNN_RUN(EluBackward)

npuError npunnHardtanhGetWorkspaceSize(const npuTensor* self, const npuScalar* minVal, const npuScalar* maxVal, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!minVal) return fail(NPU_ERROR_INVALID_PARAM, "npunnHardtanh: null minVal");
  if (!maxVal) return fail(NPU_ERROR_INVALID_PARAM, "npunnHardtanh: null maxVal");
  return prepare("npunnHardtanh", {self, out}, [self = desc(self), minVal = *minVal, maxVal = *maxVal, out = desc(out)] {
    alu::store(view(out), at::hardtanh(view(self), aten_scalar(minVal), aten_scalar(maxVal)));
  }, workspace_size, executor);
}
NPUNN_RUN(Hardtanh)

npuError npunnHardtanhBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuScalar* minVal, const npuScalar* maxVal, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!minVal) return fail(NPU_ERROR_INVALID_PARAM, "npunnHardtanhBackward: null minVal");
  if (!maxVal) return fail(NPU_ERROR_INVALID_PARAM, "npunnHardtanhBackward: null maxVal");
  return prepare("npunnHardtanhBackward", {gradOutput, self, out}, [gradOutput = desc(gradOutput), self = desc(self), minVal = *minVal, maxVal = *maxVal, out = desc(out)] {
    alu::store(view(out), at::hardtanh_backward(view(gradOutput), view(self), aten_scalar(minVal), aten_scalar(maxVal)));
  }, workspace_size, executor);
}
NPUNN_RUN(HardtanhBackward)

npuError npunnLeakyReluGetWorkspaceSize(const npuTensor* self, const npuScalar* negativeSlope, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!negativeSlope) return fail(NPU_ERROR_INVALID_PARAM, "npunnLeakyRelu: null negativeSlope");
  return prepare("npunnLeakyRelu", {self, out}, [self = desc(self), negativeSlope = *negativeSlope, out = desc(out)] {
    alu::store(view(out), at::leaky_relu(view(self), aten_scalar(negativeSlope)));
  }, workspace_size, executor);
}
NPUNN_RUN(LeakyRelu)

npuError npunnLeakyReluBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuScalar* negativeSlope, bool selfIsResult, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!negativeSlope) return fail(NPU_ERROR_INVALID_PARAM, "npunnLeakyReluBackward: null negativeSlope");
  return prepare("npunnLeakyReluBackward", {gradOutput, self, out}, [gradOutput = desc(gradOutput), self = desc(self), negativeSlope = *negativeSlope, selfIsResult, out = desc(out)] {
    alu::store(view(out), at::leaky_relu_backward(view(gradOutput), view(self), aten_scalar(negativeSlope), selfIsResult));
  }, workspace_size, executor);
}
NPUNN_RUN(LeakyReluBackward)

npuError npunnSoftplusGetWorkspaceSize(const npuTensor* self, const npuScalar* beta, const npuScalar* threshold, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!beta) return fail(NPU_ERROR_INVALID_PARAM, "npunnSoftplus: null beta");
  if (!threshold) return fail(NPU_ERROR_INVALID_PARAM, "npunnSoftplus: null threshold");
  return prepare("npunnSoftplus", {self, out}, [self = desc(self), beta = *beta, threshold = *threshold, out = desc(out)] {
    alu::store(view(out), at::softplus(view(self), aten_scalar(beta), aten_scalar(threshold)));
  }, workspace_size, executor);
}
NPUNN_RUN(Softplus)

npuError npunnSoftplusBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuScalar* beta, const npuScalar* threshold, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!beta) return fail(NPU_ERROR_INVALID_PARAM, "npunnSoftplusBackward: null beta");
  if (!threshold) return fail(NPU_ERROR_INVALID_PARAM, "npunnSoftplusBackward: null threshold");
  return prepare("npunnSoftplusBackward", {gradOutput, self, out}, [gradOutput = desc(gradOutput), self = desc(self), beta = *beta, threshold = *threshold, out = desc(out)] {
    alu::store(view(out), at::softplus_backward(view(gradOutput), view(self), aten_scalar(beta), aten_scalar(threshold)));
  }, workspace_size, executor);
}
NPUNN_RUN(SoftplusBackward)

npuError npunnSoftshrinkGetWorkspaceSize(const npuTensor* self, const npuScalar* lambd, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!lambd) return fail(NPU_ERROR_INVALID_PARAM, "npunnSoftshrink: null lambd");
  return prepare("npunnSoftshrink", {self, out}, [self = desc(self), lambd = *lambd, out = desc(out)] {
    alu::store(view(out), at::softshrink(view(self), aten_scalar(lambd)));
  }, workspace_size, executor);
}
NPUNN_RUN(Softshrink)

npuError npunnSoftshrinkBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuScalar* lambd, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!lambd) return fail(NPU_ERROR_INVALID_PARAM, "npunnSoftshrinkBackward: null lambd");
  return prepare("npunnSoftshrinkBackward", {gradOutput, self, out}, [gradOutput = desc(gradOutput), self = desc(self), lambd = *lambd, out = desc(out)] {
    alu::store(view(out), at::softshrink_backward(view(gradOutput), view(self), aten_scalar(lambd)));
  }, workspace_size, executor);
}
NPUNN_RUN(SoftshrinkBackward)

npuError npunnHardshrinkGetWorkspaceSize(const npuTensor* self, const npuScalar* lambd, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!lambd) return fail(NPU_ERROR_INVALID_PARAM, "npunnHardshrink: null lambd");
  return prepare("npunnHardshrink", {self, out}, [self = desc(self), lambd = *lambd, out = desc(out)] {
    alu::store(view(out), at::hardshrink(view(self), aten_scalar(lambd)));
  }, workspace_size, executor);
}
NPUNN_RUN(Hardshrink)

npuError npunnHardshrinkBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuScalar* lambd, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!lambd) return fail(NPU_ERROR_INVALID_PARAM, "npunnHardshrinkBackward: null lambd");
  return prepare("npunnHardshrinkBackward", {gradOutput, self, out}, [gradOutput = desc(gradOutput), self = desc(self), lambd = *lambd, out = desc(out)] {
    alu::store(view(out), at::hardshrink_backward(view(gradOutput), view(self), aten_scalar(lambd)));
  }, workspace_size, executor);
}
NPUNN_RUN(HardshrinkBackward)

NPU_UNARY(Hardswish, at::hardswish_out)

npuError npunnHardswishBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnHardswishBackward", {gradOutput, self, out}, [gradOutput = desc(gradOutput), self = desc(self), out = desc(out)] {
    alu::store(view(out), at::hardswish_backward(view(gradOutput), view(self)));
  }, workspace_size, executor);
}
NPUNN_RUN(HardswishBackward)

NPU_UNARY(Hardsigmoid, at::hardsigmoid_out)

npuError npunnHardsigmoidBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, npuTensor* out,
                                                  NPUNN_QUERY_ARGS) {
  return prepare("npunnHardsigmoidBackward", {gradOutput, self, out},
                 [g = desc(gradOutput), x = desc(self), o = desc(out)] {
                   alu::store(view(o), at::hardsigmoid_backward(view(g), view(x)));
                 }, workspace_size, executor);
}
NPUNN_RUN(HardsigmoidBackward)

npuError npunnLogSigmoidGetWorkspaceSize(const npuTensor* self, npuTensor* out, npuTensor* buffer, NPUNN_QUERY_ARGS) {
  return prepare("npunnLogSigmoid", {self, out, buffer}, [self = desc(self), out = desc(out), buffer = desc(buffer)] {
    auto [y, saved] = at::log_sigmoid_forward(view(self));
    alu::store(view(out), y);
    alu::store(view(buffer), saved);
  }, workspace_size, executor);
}
NPUNN_RUN(LogSigmoid)

npuError npunnLogSigmoidBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* buffer, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnLogSigmoidBackward", {gradOutput, self, buffer, out}, [gradOutput = desc(gradOutput), self = desc(self), buffer = desc(buffer), out = desc(out)] {
    alu::store(view(out), at::log_sigmoid_backward(view(gradOutput), view(self), view(buffer)));
  }, workspace_size, executor);
}
NPUNN_RUN(LogSigmoidBackward)

NPU_UNARY(Mish, at::mish_out)

npuError npunnThresholdGetWorkspaceSize(const npuTensor* self, const npuScalar* threshold, const npuScalar* value, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!threshold) return fail(NPU_ERROR_INVALID_PARAM, "npunnThreshold: null threshold");
  if (!value) return fail(NPU_ERROR_INVALID_PARAM, "npunnThreshold: null value");
  return prepare("npunnThreshold", {self, out}, [self = desc(self), threshold = *threshold, value = *value, out = desc(out)] {
    alu::store(view(out), at::threshold(view(self), aten_scalar(threshold), aten_scalar(value)));
  }, workspace_size, executor);
}
NPUNN_RUN(Threshold)

npuError npunnGluGetWorkspaceSize(const npuTensor* self, int64_t dim, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnGlu", {self, out}, [self = desc(self), dim, out = desc(out)] {
    alu::store(view(out), at::glu(view(self), dim));
  }, workspace_size, executor);
}
NPUNN_RUN(Glu)

npuError npunnGluBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, int64_t dim, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnGluBackward", {gradOutput, self, out}, [gradOutput = desc(gradOutput), self = desc(self), dim, out = desc(out)] {
    alu::store(view(out), at::glu_backward(view(gradOutput), view(self), dim));
  }, workspace_size, executor);
}
NPUNN_RUN(GluBackward)

npuError npunnPreluGetWorkspaceSize(const npuTensor* self, const npuTensor* weight, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnPrelu", {self, weight, out}, [self = desc(self), weight = desc(weight), out = desc(out)] {
    alu::store(view(out), at::_prelu_kernel(view(self), view(weight)));
  }, workspace_size, executor);
}
NPUNN_RUN(Prelu)

npuError npunnPreluBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* weight, npuTensor* gradInput, npuTensor* gradWeight, NPUNN_QUERY_ARGS) {
  return prepare("npunnPreluBackward", {gradOutput, self, weight, gradInput, gradWeight}, [gradOutput = desc(gradOutput), self = desc(self), weight = desc(weight), gradInput = desc(gradInput), gradWeight = desc(gradWeight)] {
    auto [dx, dw] = at::_prelu_kernel_backward(view(gradOutput), view(self), view(weight));
    alu::store(view(gradInput), dx);
    alu::store(view(gradWeight), dw);
  }, workspace_size, executor);
}
NPUNN_RUN(PreluBackward)

}  // extern "C"
