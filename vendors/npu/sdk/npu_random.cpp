// Random numbers from a counter-based state: results depend only on (seed, offset).
#include "npu_ops_internal.h"

using namespace npu_ops;

extern "C" {

npuError npunnInplaceNormalGetWorkspaceSize(npuTensor* self, double mean, double std, npuRandState state,
                                            NPUNN_QUERY_ARGS) {
  if (!(std >= 0.0)) return fail(NPU_ERROR_INVALID_PARAM, "npunnInplaceNormal: std must be >= 0");
  return prepare("npunnInplaceNormal", {self}, [x = desc(self), mean, std, state] {
    view(x).normal_(mean, std, alu::counter_generator(state.seed, state.offset));
  }, workspace_size, executor);
}
NPUNN_RUN(InplaceNormal)

npuError npunnInplaceUniformGetWorkspaceSize(npuTensor* self, double from, double to, npuRandState state,
                                             NPUNN_QUERY_ARGS) {
  if (!(from <= to)) return fail(NPU_ERROR_INVALID_PARAM, "npunnInplaceUniform: from must be <= to");
  return prepare("npunnInplaceUniform", {self}, [x = desc(self), from, to, state] {
    view(x).uniform_(from, to, alu::counter_generator(state.seed, state.offset));
  }, workspace_size, executor);
}
NPUNN_RUN(InplaceUniform)

npuError npunnDropoutGetWorkspaceSize(const npuTensor* input, double p, bool train, npuRandState state, npuTensor* out,
                                      npuTensor* mask, NPUNN_QUERY_ARGS) {
  if (!(p >= 0.0 && p <= 1.0)) return fail(NPU_ERROR_INVALID_PARAM, "npunnDropout: p must be in [0, 1]");
  return prepare("npunnDropout", {input, out, mask}, [x = desc(input), p, train, state, o = desc(out), m = desc(mask)] {
    alu::dropout(view(x), p, train, state.seed, state.offset, view(o), view(m));
  }, workspace_size, executor);
}
NPUNN_RUN(Dropout)

npuError npunnDropoutBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* mask, double scale,
                                              npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnDropoutBackward", {grad, mask, out}, [g = desc(grad), m = desc(mask), scale, o = desc(out)] {
    at::Tensor result = view(o);
    at::native_dropout_backward_out(result, view(g), view(m), scale);
  }, workspace_size, executor);
}
NPUNN_RUN(DropoutBackward)

}  // extern "C"
