// Matrix products on CLBlast, queued on the stream's own command queue with
// buffer offsets in elements: the opaque addresses never reach CLBlast.
#include <clblast.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <set>
#include <string>

#include "ocl_exit_drain.h"
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

// The first CLBlast call of its kind. CLBlast picks its kernels by precision,
// transposes and size (a direct kernel for small products, padding and
// transposing ones around the main kernel for large), and PoCL compiles each at
// its first run: the exit drain must be registered after it (ocl_exit_drain.h).
bool first_of_its_kind(ElementType type, const Operand& a, const Operand& b, size_t m, size_t n, size_t k) {
  int magnitude = 0;  // log2 of the product's size, enough to tell CLBlast's size classes apart
  for (double work = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k); work >= 2;
       work /= 2) {
    ++magnitude;
  }
  const int kind = (static_cast<int>(type) << 12) | (static_cast<int>(a.transpose == clblast::Transpose::kYes) << 11) |
                   (static_cast<int>(b.transpose == clblast::Transpose::kYes) << 10) | magnitude;
  static std::mutex mutex;
  static auto* seen = new std::set<int>();  // never destroyed: GEMMs may run during exit
  std::lock_guard<std::mutex> lock(mutex);
  return seen->insert(kind).second;
}

// CLBlast fills its tuning database, a static std::vector (clblast::Database::database), in
// the first clblast::Database it constructs, with no lock (1.5.3 here, and upstream still).
// Two threads making their first CLBlast call at once (nn.DataParallel's replicas, one
// thread per device) race on it: one copies the vector while the other assigns it, and
// the process dies in Database::Database (SIGSEGV) or the call throws std::bad_alloc.
// So calls run one at a time until one has succeeded: a successful call constructed a
// Database (or found one cached, made after the vector was filled), and from then on
// CLBlast only reads the vector, which threads may do together.
template <typename Call>
clblast::StatusCode first_calls_one_at_a_time(Call call) {
  static std::atomic<bool> database_filled{false};
  if (database_filled.load(std::memory_order_acquire)) return call();
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  const clblast::StatusCode status = call();
  if (status == clblast::StatusCode::kSuccess) database_filled.store(true, std::memory_order_release);
  return status;
}

template <typename T>
clblast::StatusCode gemm(oclopsStream_t stream, size_t m, size_t n, size_t k, double alpha, const oclopsTensor_t& a,
                         Operand pa, const oclopsTensor_t& b, Operand pb, double beta, const oclopsTensor_t& out,
                         cl_event* event) {
  cl_command_queue queue = stream->queue();
  return first_calls_one_at_a_time([&] {
    return clblast::Gemm<T>(clblast::Layout::kRowMajor, pa.transpose, pb.transpose, m, n, k, static_cast<T>(alpha),
                            a.buffer, static_cast<size_t>(a.offset), pa.ld, b.buffer, static_cast<size_t>(b.offset),
                            pb.ld, static_cast<T>(beta), out.buffer, static_cast<size_t>(out.offset),
                            static_cast<size_t>(out.stride[0]), &queue, event);
  });
}

// A float32 row-major matrix of `like`'s shape in a new buffer of the stream's
// context, holding `like`'s values when `fill` (the caller releases the buffer
// once its work is queued: OpenCL keeps it until the queued commands are done).
oclopsStatus_t float_matrix(oclopsStream_t stream, const oclopsTensor_t& like, bool fill, oclopsTensor_t* matrix) {
  *matrix = oclopsTensor_t{};
  matrix->dtype = ElementType::kF32;
  matrix->dim = 2;
  matrix->shape[0] = like.shape[0];
  matrix->shape[1] = like.shape[1];
  matrix->stride[0] = like.shape[1];
  matrix->stride[1] = 1;
  const size_t count = static_cast<size_t>(std::max<int64_t>(like.shape[0] * like.shape[1], 1));
  cl_int error = CL_SUCCESS;
  matrix->buffer = clCreateBuffer(stream->context(), CL_MEM_READ_WRITE, count * sizeof(float), nullptr, &error);
  if (error != CL_SUCCESS) return from_driver(error);
  return fill ? oclopsUnary(stream, OCLOPS_IDENTITY, &like, matrix) : OCLOPS_SUCCESS;
}

// float16 and bfloat16 products as PyTorch computes them: operands widened to
// float32, accumulated in float32 by CLBlast's SGEMM, rounded once into out.
// (CLBlast has no bfloat16, and its HGEMM needs cl_khr_fp16, which PoCL lacks.)
oclopsStatus_t gemm_through_float(oclopsStream_t stream, const oclopsTensor_t& a, const oclopsTensor_t& b,
                                  const oclopsTensor_t* c, oclopsScalar_t beta, oclopsScalar_t alpha,
                                  const oclopsTensor_t& out) {
  oclopsTensor_t wide_a, wide_b, wide_out;
  oclopsStatus_t status = float_matrix(stream, a, true, &wide_a);
  if (status == OCLOPS_SUCCESS) status = float_matrix(stream, b, true, &wide_b);
  if (status == OCLOPS_SUCCESS) status = float_matrix(stream, out, false, &wide_out);
  if (status == OCLOPS_SUCCESS) status = oclopsGemm(stream, &wide_a, &wide_b, c, beta, alpha, &wide_out);
  if (status == OCLOPS_SUCCESS) status = oclopsUnary(stream, OCLOPS_IDENTITY, &wide_out, &out);
  for (cl_mem buffer : {wide_a.buffer, wide_b.buffer, wide_out.buffer}) {
    if (buffer) clReleaseMemObject(buffer);
  }
  return status;
}

}  // namespace

// Matrix `index` of a batch (the last two dims of a 3-D tensor); a batch of one
// (or a 2-D tensor) is broadcast to every index.
oclopsTensor_t matrix_of(const oclopsTensor_t& t, int64_t index) {
  if (t.dim != 3) return t;
  oclopsTensor_t m = t;
  m.dim = 2;
  m.offset = t.offset + (t.shape[0] == 1 ? 0 : index * t.stride[0]);
  m.shape[0] = t.shape[1], m.shape[1] = t.shape[2];
  m.stride[0] = t.stride[1], m.stride[1] = t.stride[2];
  return m;
}

bool oclopsGemmTakesOperand(const oclopsTensor_t* operand) {
  Operand layout;
  return (operand->dim == 2 || operand->dim == 3) && as_operand(matrix_of(*operand, 0), &layout);
}

oclopsStatus_t oclopsBatchedGemm(oclopsStream_t stream, const oclopsTensor_t* a, const oclopsTensor_t* b,
                                 const oclopsTensor_t* c, oclopsScalar_t beta, oclopsScalar_t alpha,
                                 const oclopsTensor_t* out) {
  if (!a || !b || !out || a->dim != 3 || b->dim != 3 || out->dim != 3) {
    return invalid("oclopsBatchedGemm: a, b and out must be batches of matrices");
  }
  const int64_t batch = out->shape[0];
  if (a->shape[0] != batch || b->shape[0] != batch) return invalid("oclopsBatchedGemm: batch sizes differ");
  const bool with_c = c != nullptr && c->buffer != nullptr;
  if (with_c && c->dim == 3 && c->shape[0] != batch && c->shape[0] != 1) {
    return invalid("oclopsBatchedGemm: c does not broadcast to out's batch");
  }
  // One CLBlast call per matrix: the batches of the models here are small, and
  // each matrix keeps oclopsGemm's layouts (transposed operands, broadcast c).
  for (int64_t i = 0; i < batch; ++i) {
    const oclopsTensor_t ai = matrix_of(*a, i), bi = matrix_of(*b, i), oi = matrix_of(*out, i);
    const oclopsTensor_t ci = with_c ? matrix_of(*c, i) : oclopsTensor_t{};
    if (const oclopsStatus_t status = oclopsGemm(stream, &ai, &bi, with_c ? &ci : nullptr, beta, alpha, &oi)) {
      return status;
    }
  }
  return OCLOPS_SUCCESS;
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
  const bool narrow = type == ElementType::kF16 || type == ElementType::kBF16;
  if (narrow && a->dtype == type && b->dtype == type) {
    if (m == 0 || n == 0) return OCLOPS_SUCCESS;
    return gemm_through_float(stream, *a, *b, c, beta_scalar, alpha_scalar, *out);
  }
  if ((type != ElementType::kF32 && type != ElementType::kF64) || a->dtype != type || b->dtype != type) {
    return not_supported(std::string("oclopsGemm: ") + element_name(a->dtype) + " @ " + element_name(b->dtype) +
                         " -> " + element_name(type) + " (float32, float64, and float16 or bfloat16 through float32)");
  }
  if (m == 0 || n == 0) return OCLOPS_SUCCESS;
  if ((out->stride[1] != 1 && n > 1) || out->stride[0] < n) return invalid("oclopsGemm: out must be row-major");
  const bool with_c = c != nullptr && c->buffer != nullptr && beta != 0.0;
  if (k == 0) {  // no products (CLBlast refuses k = 0): out = 0 + beta * c
    if (const oclopsStatus_t status = oclopsFill(stream, out, oclopsScalar_t{0.0, 0, false})) return status;
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
  if (first_of_its_kind(type, pa, pb, m, n, k)) finish_compiling_launch(event);  // before track() owns the event
  stream->track(event);
  return OCLOPS_SUCCESS;
}
