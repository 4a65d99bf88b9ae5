// Matrix multiplication: half and bfloat16 accumulate in a float32 workspace.
#include "npu_ops_internal.h"

#include <string>

using namespace npu_ops;

namespace {

// Mm and Bmm: aten(acc, self, mat2), both operands in the accumulator's dtype.
template <class Aten>
npuError product(const char* op, const npuTensor* self, const npuTensor* mat2, npuTensor* out, Aten aten,
                 uint64_t* workspace_size, npunnExecutor** executor) {
  return prepare(op, {self, mat2, out}, [a = desc(self), b = desc(mat2), o = desc(out), aten](void* ws) {
    accumulate(ws, o, [&](at::Tensor& acc) { aten(acc, view(a).to(acc.scalar_type()), view(b).to(acc.scalar_type())); });
  }, workspace_size, executor, float_accumulator_bytes(out));
}

// Addmm and Baddbmm: aten(acc, self, first, second, beta, alpha), the tensors in the accumulator's dtype.
template <class Aten>
npuError scaled_product_sum(const char* op, const npuTensor* self, const npuTensor* first, const npuTensor* second,
                            const npuScalar* beta, const npuScalar* alpha, npuTensor* out, Aten aten,
                            uint64_t* workspace_size, npunnExecutor** executor) {
  if (!beta || !alpha) return fail(NPU_ERROR_INVALID_PARAM, std::string(op) + ": null scalar");
  return prepare(op, {self, first, second, out},
                 [c = desc(self), a = desc(first), b = desc(second), beta = *beta, alpha = *alpha, o = desc(out), aten](void* ws) {
                   accumulate(ws, o, [&](at::Tensor& acc) {
                     const auto t = acc.scalar_type();
                     aten(acc, view(c).to(t), view(a).to(t), view(b).to(t), aten_scalar(beta), aten_scalar(alpha));
                   });
                 }, workspace_size, executor, float_accumulator_bytes(out));
}

}  // namespace

extern "C" {

npuError npunnMmGetWorkspaceSize(const npuTensor* self, const npuTensor* mat2, npuTensor* out, NPUNN_QUERY_ARGS) {
  return product("npunnMm", self, mat2, out, NPU_OUT(at::mm_out), workspace_size, executor);
}
NPUNN_RUN(Mm)

npuError npunnBmmGetWorkspaceSize(const npuTensor* self, const npuTensor* mat2, npuTensor* out, NPUNN_QUERY_ARGS) {
  return product("npunnBmm", self, mat2, out, NPU_OUT(at::bmm_out), workspace_size, executor);
}
NPUNN_RUN(Bmm)

npuError npunnAddmmGetWorkspaceSize(const npuTensor* self, const npuTensor* mat1, const npuTensor* mat2,
                                    const npuScalar* beta, const npuScalar* alpha, npuTensor* out, NPUNN_QUERY_ARGS) {
  return scaled_product_sum("npunnAddmm", self, mat1, mat2, beta, alpha, out, NPU_OUT(at::addmm_out), workspace_size, executor);
}
NPUNN_RUN(Addmm)

npuError npunnBaddbmmGetWorkspaceSize(const npuTensor* self, const npuTensor* batch1, const npuTensor* batch2,
                                      const npuScalar* beta, const npuScalar* alpha, npuTensor* out, NPUNN_QUERY_ARGS) {
  return scaled_product_sum("npunnBaddbmm", self, batch1, batch2, beta, alpha, out, NPU_OUT(at::baddbmm_out), workspace_size, executor);
}
NPUNN_RUN(Baddbmm)

}  // extern "C"
