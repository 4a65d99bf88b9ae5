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

NPU_BINARY(TanhBackward, at::tanh_backward_out)
NPU_BINARY(SigmoidBackward, at::sigmoid_backward_out)
NPU_BINARY(SiluBackward, at::silu_backward_out)

NPU_UNARY(Hardswish, at::hardswish_out)
NPU_UNARY(Hardsigmoid, at::hardsigmoid_out)
NPU_UNARY(Mish, at::mish_out)

npuError npunnLogSigmoidGetWorkspaceSize(const npuTensor* self, npuTensor* out, npuTensor* buffer, NPUNN_QUERY_ARGS) {
  return prepare("npunnLogSigmoid", {self, out, buffer}, [self = desc(self), out = desc(out), buffer = desc(buffer)] {
    auto [y, saved] = at::log_sigmoid_forward(view(self));
    alu::store(view(out), y);
    alu::store(view(buffer), saved);
  }, workspace_size, executor);
}
NPUNN_RUN(LogSigmoid)

// ---- self and named scalars (out = the functional ATen op, stored) -----------

npuError npunnEluGetWorkspaceSize(const npuTensor* self, const npuScalar* alpha, const npuScalar* scale, const npuScalar* inputScale, npuTensor* out, NPUNN_QUERY_ARGS) {
  return compute_into("npunnElu", {self}, out, NPU_STORED(at::elu), workspace_size, executor, NamedScalar{"alpha", alpha}, NamedScalar{"scale", scale}, NamedScalar{"inputScale", inputScale});
}
NPUNN_RUN(Elu)

npuError npunnHardtanhGetWorkspaceSize(const npuTensor* self, const npuScalar* minVal, const npuScalar* maxVal, npuTensor* out, NPUNN_QUERY_ARGS) {
  return compute_into("npunnHardtanh", {self}, out, NPU_STORED(at::hardtanh), workspace_size, executor, NamedScalar{"minVal", minVal}, NamedScalar{"maxVal", maxVal});
}
NPUNN_RUN(Hardtanh)

npuError npunnSoftplusGetWorkspaceSize(const npuTensor* self, const npuScalar* beta, const npuScalar* threshold, npuTensor* out, NPUNN_QUERY_ARGS) {
  return compute_into("npunnSoftplus", {self}, out, NPU_STORED(at::softplus), workspace_size, executor, NamedScalar{"beta", beta}, NamedScalar{"threshold", threshold});
}
NPUNN_RUN(Softplus)

npuError npunnThresholdGetWorkspaceSize(const npuTensor* self, const npuScalar* threshold, const npuScalar* value, npuTensor* out, NPUNN_QUERY_ARGS) {
  return compute_into("npunnThreshold", {self}, out, NPU_STORED(at::threshold), workspace_size, executor, NamedScalar{"threshold", threshold}, NamedScalar{"value", value});
}
NPUNN_RUN(Threshold)

npuError npunnLeakyReluGetWorkspaceSize(const npuTensor* self, const npuScalar* negativeSlope, npuTensor* out, NPUNN_QUERY_ARGS) {
  return compute_into("npunnLeakyRelu", {self}, out, NPU_STORED(at::leaky_relu), workspace_size, executor, NamedScalar{"negativeSlope", negativeSlope});
}
NPUNN_RUN(LeakyRelu)

npuError npunnSoftshrinkGetWorkspaceSize(const npuTensor* self, const npuScalar* lambd, npuTensor* out, NPUNN_QUERY_ARGS) {
  return compute_into("npunnSoftshrink", {self}, out, NPU_STORED(at::softshrink), workspace_size, executor, NamedScalar{"lambd", lambd});
}
NPUNN_RUN(Softshrink)

npuError npunnHardshrinkGetWorkspaceSize(const npuTensor* self, const npuScalar* lambd, npuTensor* out, NPUNN_QUERY_ARGS) {
  return compute_into("npunnHardshrink", {self}, out, NPU_STORED(at::hardshrink), workspace_size, executor, NamedScalar{"lambd", lambd});
}
NPUNN_RUN(Hardshrink)

npuError npunnGluGetWorkspaceSize(const npuTensor* self, int64_t dim, npuTensor* out, NPUNN_QUERY_ARGS) {
  return compute_into("npunnGlu", {self}, out, [dim](at::Tensor& result, const at::Tensor& self) { alu::store(result, at::glu(self, dim)); }, workspace_size, executor);
}
NPUNN_RUN(Glu)

npuError npunnPreluGetWorkspaceSize(const npuTensor* self, const npuTensor* weight, npuTensor* out, NPUNN_QUERY_ARGS) {
  return compute_into("npunnPrelu", {self, weight}, out, NPU_STORED(at::_prelu_kernel), workspace_size, executor);
}
NPUNN_RUN(Prelu)

// ---- gradients of the above ---------------------------------------------------

npuError npunnEluBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuScalar* alpha, const npuScalar* scale, const npuScalar* inputScale, bool isResult, const npuTensor* selfOrResult, npuTensor* out, NPUNN_QUERY_ARGS) {
  return compute_into("npunnEluBackward", {gradOutput, selfOrResult}, out, [isResult](at::Tensor& result, const at::Tensor& gradOutput, const at::Tensor& selfOrResult, const at::Scalar& alpha, const at::Scalar& scale, const at::Scalar& inputScale) {
    alu::store(result, at::elu_backward(gradOutput, alpha, scale, inputScale, isResult, selfOrResult));
  }, workspace_size, executor, NamedScalar{"alpha", alpha}, NamedScalar{"scale", scale}, NamedScalar{"inputScale", inputScale});
}
NPUNN_RUN(EluBackward)

npuError npunnHardtanhBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuScalar* minVal, const npuScalar* maxVal, npuTensor* out, NPUNN_QUERY_ARGS) {
  return compute_into("npunnHardtanhBackward", {gradOutput, self}, out, NPU_STORED(at::hardtanh_backward), workspace_size, executor, NamedScalar{"minVal", minVal}, NamedScalar{"maxVal", maxVal});
}
NPUNN_RUN(HardtanhBackward)

npuError npunnSoftplusBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuScalar* beta, const npuScalar* threshold, npuTensor* out, NPUNN_QUERY_ARGS) {
  return compute_into("npunnSoftplusBackward", {gradOutput, self}, out, NPU_STORED(at::softplus_backward), workspace_size, executor, NamedScalar{"beta", beta}, NamedScalar{"threshold", threshold});
}
NPUNN_RUN(SoftplusBackward)

npuError npunnLeakyReluBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuScalar* negativeSlope, bool selfIsResult, npuTensor* out, NPUNN_QUERY_ARGS) {
  return compute_into("npunnLeakyReluBackward", {gradOutput, self}, out, [selfIsResult](at::Tensor& result, const at::Tensor& gradOutput, const at::Tensor& self, const at::Scalar& negativeSlope) {
    alu::store(result, at::leaky_relu_backward(gradOutput, self, negativeSlope, selfIsResult));
  }, workspace_size, executor, NamedScalar{"negativeSlope", negativeSlope});
}
NPUNN_RUN(LeakyReluBackward)

npuError npunnSoftshrinkBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuScalar* lambd, npuTensor* out, NPUNN_QUERY_ARGS) {
  return compute_into("npunnSoftshrinkBackward", {gradOutput, self}, out, NPU_STORED(at::softshrink_backward), workspace_size, executor, NamedScalar{"lambd", lambd});
}
NPUNN_RUN(SoftshrinkBackward)

npuError npunnHardshrinkBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuScalar* lambd, npuTensor* out, NPUNN_QUERY_ARGS) {
  return compute_into("npunnHardshrinkBackward", {gradOutput, self}, out, NPU_STORED(at::hardshrink_backward), workspace_size, executor, NamedScalar{"lambd", lambd});
}
NPUNN_RUN(HardshrinkBackward)

npuError npunnThresholdBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* self, const npuScalar* threshold, npuTensor* out, NPUNN_QUERY_ARGS) {
  return compute_into("npunnThresholdBackward", {grad, self}, out, NPU_OUT(at::threshold_backward_out), workspace_size, executor, NamedScalar{"threshold", threshold});
}
NPUNN_RUN(ThresholdBackward)

npuError npunnHardswishBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS) {
  return compute_into("npunnHardswishBackward", {gradOutput, self}, out, NPU_STORED(at::hardswish_backward), workspace_size, executor);
}
NPUNN_RUN(HardswishBackward)

npuError npunnHardsigmoidBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS) {
  return compute_into("npunnHardsigmoidBackward", {gradOutput, self}, out, NPU_STORED(at::hardsigmoid_backward), workspace_size, executor);
}
NPUNN_RUN(HardsigmoidBackward)

npuError npunnLogSigmoidBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* buffer, npuTensor* out, NPUNN_QUERY_ARGS) {
  return compute_into("npunnLogSigmoidBackward", {gradOutput, self, buffer}, out, NPU_STORED(at::log_sigmoid_backward), workspace_size, executor);
}
NPUNN_RUN(LogSigmoidBackward)

npuError npunnGluBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, int64_t dim, npuTensor* out, NPUNN_QUERY_ARGS) {
  return compute_into("npunnGluBackward", {gradOutput, self}, out, [dim](at::Tensor& result, const at::Tensor& gradOutput, const at::Tensor& self) { alu::store(result, at::glu_backward(gradOutput, self, dim)); }, workspace_size, executor);
}
NPUNN_RUN(GluBackward)

npuError npunnPreluBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* weight, npuTensor* gradInput, npuTensor* gradWeight, NPUNN_QUERY_ARGS) {
  return prepare("npunnPreluBackward", {gradOutput, self, weight, gradInput, gradWeight}, [gradOutput = desc(gradOutput), self = desc(self), weight = desc(weight), gradInput = desc(gradInput), gradWeight = desc(gradWeight)] {
    auto [dx, dw] = at::_prelu_kernel_backward(view(gradOutput), view(self), view(weight));
    alu::store(view(gradInput), dx);
    alu::store(view(gradWeight), dw);
  }, workspace_size, executor);
}
NPUNN_RUN(PreluBackward)

}  // extern "C"
