// Matrix multiplication: half and bfloat16 accumulate in a float32 workspace.
#include "npu_ops_internal.h"

using namespace npu_ops;

extern "C" {

npuError npunnMmGetWorkspaceSize(const npuTensor* self, const npuTensor* mat2, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnMm", {self, mat2, out}, [a = desc(self), b = desc(mat2), o = desc(out)](void* ws) {
    accumulate(ws, o, [&](at::Tensor& acc) { at::mm_out(acc, view(a).to(acc.scalar_type()), view(b).to(acc.scalar_type())); });
  }, workspace_size, executor, float_accumulator_bytes(out));
}
NPUNN_RUN(Mm)

npuError npunnBmmGetWorkspaceSize(const npuTensor* self, const npuTensor* mat2, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnBmm", {self, mat2, out}, [a = desc(self), b = desc(mat2), o = desc(out)](void* ws) {
    accumulate(ws, o, [&](at::Tensor& acc) { at::bmm_out(acc, view(a).to(acc.scalar_type()), view(b).to(acc.scalar_type())); });
  }, workspace_size, executor, float_accumulator_bytes(out));
}
NPUNN_RUN(Bmm)

npuError npunnAddmmGetWorkspaceSize(const npuTensor* self, const npuTensor* mat1, const npuTensor* mat2,
                                    const npuScalar* beta, const npuScalar* alpha, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!beta || !alpha) return fail(NPU_ERROR_INVALID_PARAM, "npunnAddmm: null scalar");
  return prepare("npunnAddmm", {self, mat1, mat2, out},
                 [c = desc(self), a = desc(mat1), b = desc(mat2), beta = *beta, alpha = *alpha, o = desc(out)](void* ws) {
                   accumulate(ws, o, [&](at::Tensor& acc) {
                     const auto t = acc.scalar_type();
                     at::addmm_out(acc, view(c).to(t), view(a).to(t), view(b).to(t), aten_scalar(beta), aten_scalar(alpha));
                   });
                 }, workspace_size, executor, float_accumulator_bytes(out));
}
NPUNN_RUN(Addmm)

npuError npunnBaddbmmGetWorkspaceSize(const npuTensor* self, const npuTensor* batch1, const npuTensor* batch2,
                                      const npuScalar* beta, const npuScalar* alpha, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!beta || !alpha) return fail(NPU_ERROR_INVALID_PARAM, "npunnBaddbmm: null scalar");
  return prepare("npunnBaddbmm", {self, batch1, batch2, out},
                 [c = desc(self), a = desc(batch1), b = desc(batch2), beta = *beta, alpha = *alpha, o = desc(out)](void* ws) {
                   accumulate(ws, o, [&](at::Tensor& acc) {
                     const auto t = acc.scalar_type();
                     at::baddbmm_out(acc, view(c).to(t), view(a).to(t), view(b).to(t), aten_scalar(beta), aten_scalar(alpha));
                   });
                 }, workspace_size, executor, float_accumulator_bytes(out));
}
NPUNN_RUN(Baddbmm)

}  // extern "C"
