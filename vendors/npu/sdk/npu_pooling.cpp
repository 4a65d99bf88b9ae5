// Pooling, 2-D (max pooling also on NC1HWC0, plane by plane), 3-D, adaptive and
// fractional; max pooling writes int64 indices and reads int32 ones.
#include "npu_ops_internal.h"

#include <optional>

using namespace npu_ops;

namespace {

// Adaptive max pooling, 2-D and 3-D: the values and indices of pool(self, outputSize) land in out and indices.
template <class Pool>
npuError adaptive_max_pool(const char* op, const npuTensor* self, const npuIntArray* outputSize, npuTensor* out,
                           npuTensor* indices, Pool pool, uint64_t* workspace_size, npunnExecutor** executor) {
  return prepare(op, {self, out, indices}, [self = desc(self), outputSize = ints(outputSize), out = desc(out), indices = desc(indices), pool] {
    auto [values, where] = pool(view(self), outputSize);
    alu::store(view(out), values);
    alu::store(view(indices), where);
  }, workspace_size, executor);
}

// Their gradients: out = pool_backward(gradOutput, self, the int32 indices widened to int64).
template <class PoolBackward>
npuError adaptive_max_pool_backward(const char* op, const npuTensor* gradOutput, const npuTensor* self, const npuTensor* indices,
                                    npuTensor* out, PoolBackward pool_backward, uint64_t* workspace_size, npunnExecutor** executor) {
  if (npuError e = require_int32(op, "indices", indices); e != NPU_SUCCESS) return e;
  return prepare(op, {gradOutput, self, indices, out}, [gradOutput = desc(gradOutput), self = desc(self), indices = desc(indices), out = desc(out), pool_backward] {
    alu::store(view(out), pool_backward(view(gradOutput), view(self), view(indices).to(at::kLong)));
  }, workspace_size, executor);
}

}  // namespace

extern "C" {

npuError npunnMaxPool2dWithIndicesGetWorkspaceSize(const npuTensor* self, const npuIntArray* kernel_size,
                                                   const npuIntArray* stride, const npuIntArray* padding,
                                                   const npuIntArray* dilation, bool ceil_mode, npuTensor* out,
                                                   npuTensor* indices, NPUNN_QUERY_ARGS) {
  if (self && out && indices && (self->format != out->format || self->format != indices->format)) {
    return fail(NPU_ERROR_INVALID_PARAM, "npunnMaxPool2dWithIndices: self, out and indices must be in one format");
  }
  return prepare("npunnMaxPool2dWithIndices", {self, out, indices},
                 [x = desc(self), k = ints(kernel_size), s = ints(stride), p = ints(padding), d = ints(dilation),
                  ceil_mode, o = desc(out), i = desc(indices)] {
                   // NC1HWC0: pooled plane by plane, as the channels-last planes it is.
                   const bool blocked = is_blocked(x);
                   auto [values, where] = at::max_pool2d_with_indices(blocked ? planes(view(x)) : view(x), k, s, p, d,
                                                                      ceil_mode);
                   alu::store(blocked ? planes(view(o)) : view(o), values);
                   alu::store(blocked ? planes(view(i)) : view(i), where);
                 }, workspace_size, executor);
}
NPUNN_RUN(MaxPool2dWithIndices)

npuError npunnMaxPool2dWithIndicesBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* self,
                                                           const npuIntArray* kernel_size, const npuIntArray* stride,
                                                           const npuIntArray* padding, const npuIntArray* dilation,
                                                           bool ceil_mode, const npuTensor* indices, npuTensor* out,
                                                           NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnMaxPool2dWithIndicesBackward", "indices", indices); e != NPU_SUCCESS) return e;
  return prepare("npunnMaxPool2dWithIndicesBackward", {grad, self, indices, out},
                 [g = desc(grad), x = desc(self), k = ints(kernel_size), s = ints(stride), p = ints(padding),
                  d = ints(dilation), ceil_mode, i = desc(indices), o = desc(out)] {
                   at::Tensor result = view(o);
                   at::max_pool2d_with_indices_backward_out(result, view(g), view(x), k, s, p, d, ceil_mode,
                                                            view(i).to(at::kLong));
                 }, workspace_size, executor);
}
NPUNN_RUN(MaxPool2dWithIndicesBackward)

npuError npunnAvgPool2dGetWorkspaceSize(const npuTensor* self, const npuIntArray* kernel_size,
                                        const npuIntArray* stride, const npuIntArray* padding, bool ceil_mode,
                                        bool count_include_pad, int64_t divisor_override, npuTensor* out,
                                        NPUNN_QUERY_ARGS) {
  return prepare("npunnAvgPool2d", {self, out},
                 [x = desc(self), k = ints(kernel_size), s = ints(stride), p = ints(padding), ceil_mode,
                  count_include_pad, divisor_override, o = desc(out)] {
                   at::Tensor result = view(o);
                   at::avg_pool2d_out(result, view(x), k, s, p, ceil_mode, count_include_pad,
                                      divisor_override ? std::optional<int64_t>(divisor_override) : std::nullopt);
                 }, workspace_size, executor);
}
NPUNN_RUN(AvgPool2d)

npuError npunnAvgPool2dBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* self,
                                                const npuIntArray* kernel_size, const npuIntArray* stride,
                                                const npuIntArray* padding, bool ceil_mode, bool count_include_pad,
                                                int64_t divisor_override, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnAvgPool2dBackward", {grad, self, out},
                 [g = desc(grad), x = desc(self), k = ints(kernel_size), s = ints(stride), p = ints(padding), ceil_mode,
                  count_include_pad, divisor_override, o = desc(out)] {
                   at::Tensor result = view(o);
                   at::avg_pool2d_backward_out(result, view(g), view(x), k, s, p, ceil_mode, count_include_pad,
                                               divisor_override ? std::optional<int64_t>(divisor_override)
                                                                : std::nullopt);
                 }, workspace_size, executor);
}
NPUNN_RUN(AvgPool2dBackward)

npuError npunnAdaptiveAvgPool2dGetWorkspaceSize(const npuTensor* self, const npuIntArray* output_size, npuTensor* out,
                                                NPUNN_QUERY_ARGS) {
  return prepare("npunnAdaptiveAvgPool2d", {self, out}, [x = desc(self), size = ints(output_size), o = desc(out)] {
    alu::store(view(o), at::_adaptive_avg_pool2d(view(x), size));
  }, workspace_size, executor);
}
NPUNN_RUN(AdaptiveAvgPool2d)

npuError npunnAdaptiveAvgPool2dBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* self, npuTensor* out,
                                                        NPUNN_QUERY_ARGS) {
  return prepare("npunnAdaptiveAvgPool2dBackward", {grad, self, out}, [g = desc(grad), x = desc(self), o = desc(out)] {
    alu::store(view(o), at::_adaptive_avg_pool2d_backward(view(g), view(x)));
  }, workspace_size, executor);
}
NPUNN_RUN(AdaptiveAvgPool2dBackward)

npuError npunnAvgPool3dGetWorkspaceSize(const npuTensor* self, const npuIntArray* kernelSize, const npuIntArray* stride, const npuIntArray* padding, bool ceilMode, bool countIncludePad, int64_t divisorOverride, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnAvgPool3d", {self, out}, [self = desc(self), kernelSize = ints(kernelSize), stride = ints(stride), padding = ints(padding), ceilMode, countIncludePad, divisorOverride, out = desc(out)] {
    alu::store(view(out), at::avg_pool3d(view(self), kernelSize, stride, padding, ceilMode, countIncludePad, divisorOverride ? std::optional<int64_t>(divisorOverride) : std::nullopt));
  }, workspace_size, executor);
}
NPUNN_RUN(AvgPool3d)

npuError npunnAvgPool3dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuIntArray* kernelSize, const npuIntArray* stride, const npuIntArray* padding, bool ceilMode, bool countIncludePad, int64_t divisorOverride, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnAvgPool3dBackward", {gradOutput, self, out}, [gradOutput = desc(gradOutput), self = desc(self), kernelSize = ints(kernelSize), stride = ints(stride), padding = ints(padding), ceilMode, countIncludePad, divisorOverride, out = desc(out)] {
    alu::store(view(out), at::avg_pool3d_backward(view(gradOutput), view(self), kernelSize, stride, padding, ceilMode, countIncludePad, divisorOverride ? std::optional<int64_t>(divisorOverride) : std::nullopt));
  }, workspace_size, executor);
}
NPUNN_RUN(AvgPool3dBackward)

npuError npunnMaxPool3dWithIndicesGetWorkspaceSize(const npuTensor* self, const npuIntArray* kernelSize, const npuIntArray* stride, const npuIntArray* padding, const npuIntArray* dilation, bool ceilMode, npuTensor* out, npuTensor* indices, NPUNN_QUERY_ARGS) {
  return prepare("npunnMaxPool3dWithIndices", {self, out, indices}, [self = desc(self), kernelSize = ints(kernelSize), stride = ints(stride), padding = ints(padding), dilation = ints(dilation), ceilMode, out = desc(out), indices = desc(indices)] {
    auto [values, where] = at::max_pool3d_with_indices(view(self), kernelSize, stride, padding, dilation, ceilMode);
    alu::store(view(out), values);
    alu::store(view(indices), where);
  }, workspace_size, executor);
}
NPUNN_RUN(MaxPool3dWithIndices)

npuError npunnMaxPool3dWithIndicesBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuIntArray* kernelSize, const npuIntArray* stride, const npuIntArray* padding, const npuIntArray* dilation, bool ceilMode, const npuTensor* indices, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnMaxPool3dWithIndicesBackward", "indices", indices); e != NPU_SUCCESS) return e;
  return prepare("npunnMaxPool3dWithIndicesBackward", {gradOutput, self, indices, out}, [gradOutput = desc(gradOutput), self = desc(self), kernelSize = ints(kernelSize), stride = ints(stride), padding = ints(padding), dilation = ints(dilation), ceilMode, indices = desc(indices), out = desc(out)] {
    alu::store(view(out), at::max_pool3d_with_indices_backward(view(gradOutput), view(self), kernelSize, stride, padding, dilation, ceilMode, view(indices).to(at::kLong)));
  }, workspace_size, executor);
}
NPUNN_RUN(MaxPool3dWithIndicesBackward)

npuError npunnAdaptiveMaxPool2dGetWorkspaceSize(const npuTensor* self, const npuIntArray* outputSize, npuTensor* out, npuTensor* indices, NPUNN_QUERY_ARGS) {
  return adaptive_max_pool("npunnAdaptiveMaxPool2d", self, outputSize, out, indices, NPU_CALL(at::adaptive_max_pool2d), workspace_size, executor);
}
NPUNN_RUN(AdaptiveMaxPool2d)

npuError npunnAdaptiveMaxPool3dGetWorkspaceSize(const npuTensor* self, const npuIntArray* outputSize, npuTensor* out, npuTensor* indices, NPUNN_QUERY_ARGS) {
  return adaptive_max_pool("npunnAdaptiveMaxPool3d", self, outputSize, out, indices, NPU_CALL(at::adaptive_max_pool3d), workspace_size, executor);
}
NPUNN_RUN(AdaptiveMaxPool3d)

npuError npunnAdaptiveMaxPool2dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* indices, npuTensor* out, NPUNN_QUERY_ARGS) {
  return adaptive_max_pool_backward("npunnAdaptiveMaxPool2dBackward", gradOutput, self, indices, out, NPU_CALL(at::adaptive_max_pool2d_backward), workspace_size, executor);
}
NPUNN_RUN(AdaptiveMaxPool2dBackward)

npuError npunnAdaptiveMaxPool3dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* indices, npuTensor* out, NPUNN_QUERY_ARGS) {
  return adaptive_max_pool_backward("npunnAdaptiveMaxPool3dBackward", gradOutput, self, indices, out, NPU_CALL(at::adaptive_max_pool3d_backward), workspace_size, executor);
}
NPUNN_RUN(AdaptiveMaxPool3dBackward)

npuError npunnAdaptiveAvgPool3dGetWorkspaceSize(const npuTensor* self, const npuIntArray* outputSize, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnAdaptiveAvgPool3d", {self, out}, [self = desc(self), outputSize = ints(outputSize), out = desc(out)] {
    alu::store(view(out), at::_adaptive_avg_pool3d(view(self), outputSize));
  }, workspace_size, executor);
}
NPUNN_RUN(AdaptiveAvgPool3d)

npuError npunnAdaptiveAvgPool3dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnAdaptiveAvgPool3dBackward", {gradOutput, self, out}, [gradOutput = desc(gradOutput), self = desc(self), out = desc(out)] {
    alu::store(view(out), at::_adaptive_avg_pool3d_backward(view(gradOutput), view(self)));
  }, workspace_size, executor);
}
NPUNN_RUN(AdaptiveAvgPool3dBackward)

npuError npunnFractionalMaxPool2dGetWorkspaceSize(const npuTensor* self, const npuIntArray* kernelSize, const npuIntArray* outputSize, const npuTensor* randomSamples, npuTensor* out, npuTensor* indices, NPUNN_QUERY_ARGS) {
  return prepare("npunnFractionalMaxPool2d", {self, randomSamples, out, indices}, [self = desc(self), kernelSize = ints(kernelSize), outputSize = ints(outputSize), randomSamples = desc(randomSamples), out = desc(out), indices = desc(indices)] {
    auto [values, where] = at::fractional_max_pool2d(view(self), kernelSize, outputSize, view(randomSamples));
    alu::store(view(out), values);
    alu::store(view(indices), where);
  }, workspace_size, executor);
}
NPUNN_RUN(FractionalMaxPool2d)

npuError npunnFractionalMaxPool2dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuIntArray* kernelSize, const npuIntArray* outputSize, const npuTensor* indices, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnFractionalMaxPool2dBackward", "indices", indices); e != NPU_SUCCESS) return e;
  return prepare("npunnFractionalMaxPool2dBackward", {gradOutput, self, indices, out}, [gradOutput = desc(gradOutput), self = desc(self), kernelSize = ints(kernelSize), outputSize = ints(outputSize), indices = desc(indices), out = desc(out)] {
    alu::store(view(out), at::fractional_max_pool2d_backward(view(gradOutput), view(self), kernelSize, outputSize, view(indices).to(at::kLong)));
  }, workspace_size, executor);
}
NPUNN_RUN(FractionalMaxPool2dBackward)

}  // extern "C"
