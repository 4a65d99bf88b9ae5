// Matrix products on CLBlast, queued on the stream's own command queue with
// buffer offsets in elements: the opaque addresses never reach CLBlast.
#include <clblast.h>

#include <algorithm>
#include <string>

#include "ocl_ops_internal.h"

using namespace torch_fl::ocl;
using namespace torch_fl::ocl::ops;

namespace {

struct Operand {
  clblast::Transpose transpose;
  size_t ld;
};

// Row-major (unit stride along columns) as it is; column-major as a transposed
// row-major matrix. A dim of size one may have any stride, so its ld is free.
bool as_operand(const oclopsTensor_t& t, Operand* operand) {
  const int64_t rows = t.shape[0], cols = t.shape[1];
  if ((t.stride[1] == 1 || cols == 1) && (t.stride[0] >= std::max<int64_t>(cols, 1) || rows == 1)) {
    *operand = {clblast::Transpose::kNo, static_cast<size_t>(std::max<int64_t>({t.stride[0], cols, 1}))};
    return true;
  }
  if ((t.stride[0] == 1 || rows == 1) && (t.stride[1] >= std::max<int64_t>(rows, 1) || cols == 1)) {
    *operand = {clblast::Transpose::kYes, static_cast<size_t>(std::max<int64_t>({t.stride[1], rows, 1}))};
    return true;
  }
  return false;
}

template <typename T>
clblast::StatusCode gemm(oclopsStream_t stream, size_t m, size_t n, size_t k, double alpha, const oclopsTensor_t& a,
                         Operand pa, const oclopsTensor_t& b, Operand pb, double beta, const oclopsTensor_t& out,
                         cl_event* event) {
  cl_command_queue queue = stream->queue();
  return clblast::Gemm<T>(clblast::Layout::kRowMajor, pa.transpose, pb.transpose, m, n, k, static_cast<T>(alpha),
                          a.buffer, static_cast<size_t>(a.offset), pa.ld, b.buffer, static_cast<size_t>(b.offset),
                          pb.ld, static_cast<T>(beta), out.buffer, static_cast<size_t>(out.offset),
                          static_cast<size_t>(out.stride[0]), &queue, event);
}

}  // namespace

bool oclopsGemmTakesOperand(const oclopsTensor_t* operand) {
  Operand layout;
  return operand->dim == 2 && as_operand(*operand, &layout);
}

oclopsStatus_t oclopsGemm(oclopsStream_t stream, const oclopsTensor_t* a, const oclopsTensor_t* b,
                          const oclopsTensor_t* c, oclopsScalar_t beta_scalar, oclopsScalar_t alpha_scalar,
                          const oclopsTensor_t* out) {
  const double beta = beta_scalar.floating, alpha = alpha_scalar.floating;
  if (!a || !b || !out || a->dim != 2 || b->dim != 2 || out->dim != 2) {
    return invalid("oclopsGemm: a, b and out must be matrices");
  }
  const int64_t m = a->shape[0], k = a->shape[1], n = b->shape[1];
  if (b->shape[0] != k || out->shape[0] != m || out->shape[1] != n) {
    return invalid("oclopsGemm: shapes (" + std::to_string(m) + "x" + std::to_string(k) + ") @ (" +
                   std::to_string(b->shape[0]) + "x" + std::to_string(n) + ") do not give out's");
  }
  const oclopsDtype_t type = out->dtype;
  if ((type != ElementType::kF32 && type != ElementType::kF64) || a->dtype != type || b->dtype != type) {
    return not_supported(std::string("oclopsGemm: ") + element_name(a->dtype) + " @ " + element_name(b->dtype) +
                         " -> " + element_name(type) + " (CLBlast here: float32, float64)");
  }
  if (m == 0 || n == 0) return OCLOPS_SUCCESS;
  if ((out->stride[1] != 1 && n > 1) || out->stride[0] < n) return invalid("oclopsGemm: out must be row-major");
  const bool with_c = c != nullptr && c->buffer != nullptr && beta != 0.0;
  if (k == 0) {  // no products (CLBlast refuses k = 0): out = 0 + beta * c
    if (const oclopsStatus_t status = oclopsFill(stream, out, oclopsScalar_t{0.0, 0})) return status;
    return with_c ? oclopsBinary(stream, OCLOPS_ADD, out, c, beta_scalar, out) : OCLOPS_SUCCESS;
  }
  // c goes into out first; CLBlast then scales it by beta and adds the product.
  if (with_c) {
    if (const oclopsStatus_t status = oclopsUnary(stream, OCLOPS_IDENTITY, c, out)) return status;
  }
  Operand pa, pb;
  if (!as_operand(*a, &pa) || !as_operand(*b, &pb)) {
    return not_supported("oclopsGemm: an operand with no unit stride (make it contiguous first)");
  }
  cl_event event = nullptr;
  const clblast::StatusCode status =
      type == ElementType::kF32
          ? gemm<float>(stream, m, n, k, alpha, *a, pa, *b, pb, with_c ? beta : 0.0, *out, &event)
          : gemm<double>(stream, m, n, k, alpha, *a, pa, *b, pb, with_c ? beta : 0.0, *out, &event);
  if (status != clblast::StatusCode::kSuccess) {
    return clblast_failed("clblast::Gemm: status " + std::to_string(static_cast<int>(status)) + " (m=" +
                          std::to_string(m) + ", n=" + std::to_string(n) + ", k=" + std::to_string(k) + ")");
  }
  stream->track(event);
  return OCLOPS_SUCCESS;
}
