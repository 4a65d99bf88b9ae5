// Elementwise ops: one kernel per (op, dtypes), specialised by macros and built
// once through the driver's program cache.
#include <string>

#include "ocl_launch.h"
#include "ocl_ops_internal.h"

namespace torch_fl::ocl::ops {
namespace {

const char* binary_expression(oclopsBinaryOp_t op) {
  switch (op) {
    case OCLOPS_ADD: return "((x) + (alpha) * (y))";
    case OCLOPS_SUB: return "((x) - (alpha) * (y))";
    case OCLOPS_MUL: return "((x) * (y))";
    case OCLOPS_DIV: return "((x) / (y))";
  }
  return nullptr;
}

const char* unary_expression(oclopsUnaryOp_t op) {
  switch (op) {
    case OCLOPS_RELU: return "((x) < 0 ? (W)0 : (x))";  // NaN stays NaN, as in PyTorch
    case OCLOPS_NEG: return "(-(x))";
    case OCLOPS_IDENTITY: return "(x)";
  }
  return nullptr;
}

// The macros that make kernels/ocl_elementwise.cl one kernel: W, the operands' element macros, the op.
std::string specialise(const std::string& compute, const oclopsTensor_t& out, const oclopsTensor_t* a,
                       const oclopsTensor_t* b, const std::string& op_macro) {
  std::string macros = fp64_pragma(compute, {out.dtype, a ? a->dtype : out.dtype, b ? b->dtype : out.dtype});
  macros += "#define W " + compute + "\n" + element_macros("OUT", out.dtype, compute);
  if (a) macros += element_macros("A", a->dtype, compute);
  if (b) macros += element_macros("B", b->dtype, compute);
  return macros + op_macro + "\n" + kIndexingSource + kElementwiseSource;
}

// The scalar as the kernel's W argument.
template <typename Launcher>
Launcher& push_scalar(Launcher& launch, const std::string& compute, oclopsScalar_t value) {
  if (compute == "double") return launch.value(static_cast<cl_double>(value.floating));
  if (compute == "float") return launch.value(static_cast<cl_float>(value.floating));
  return launch.value(static_cast<cl_long>(value.integer));
}

oclopsStatus_t check_out(const oclopsTensor_t* out, const char* op) {
  if (!out || out->dim > OCLOPS_MAX_DIMS) return invalid(std::string(op) + ": out must be a tensor of at most 12 dims");
  return OCLOPS_SUCCESS;
}

}  // namespace
}  // namespace torch_fl::ocl::ops

using namespace torch_fl::ocl;
using namespace torch_fl::ocl::ops;

oclopsStatus_t oclopsBinary(oclopsStream_t stream, oclopsBinaryOp_t op, const oclopsTensor_t* a,
                            const oclopsTensor_t* b, oclopsScalar_t alpha, const oclopsTensor_t* out) {
  if (const oclopsStatus_t status = check_out(out, "oclopsBinary")) return status;
  if (!a || !b || !binary_expression(op)) return invalid("oclopsBinary: missing operand or unknown op");
  Geometry geometry = make_geometry(out->dim, out->shape);
  if (geometry.numel == 0) return OCLOPS_SUCCESS;
  set_operand(&geometry, 0, out->stride, out->offset);
  if (!broadcast_into(&geometry, 1, *a) || !broadcast_into(&geometry, 2, *b)) {
    return invalid("oclopsBinary: operands do not broadcast to out's shape");
  }
  const std::string compute = compute_type({out->dtype, a->dtype, b->dtype}, device_of(stream).fp64);
  if (compute.empty()) {
    return not_supported(std::string("oclopsBinary: dtypes ") + element_name(a->dtype) + ", " +
                         element_name(b->dtype) + " -> " + element_name(out->dtype) + " on " + device_of(stream).name);
  }
  const std::string source =
      specialise(compute, *out, a, b, std::string("#define BINARY_OP(x, y, alpha) ") + binary_expression(op));
  Launch launch(*stream, source, "", "binary");
  launch.value(geometry).buffer(out->buffer).buffer(a->buffer).buffer(b->buffer);
  return from_driver(push_scalar(launch, compute, alpha).run(static_cast<uint64_t>(geometry.numel)));
}

oclopsStatus_t oclopsUnary(oclopsStream_t stream, oclopsUnaryOp_t op, const oclopsTensor_t* a,
                           const oclopsTensor_t* out) {
  if (const oclopsStatus_t status = check_out(out, "oclopsUnary")) return status;
  if (!a || !unary_expression(op)) return invalid("oclopsUnary: missing operand or unknown op");
  Geometry geometry = make_geometry(out->dim, out->shape);
  if (geometry.numel == 0) return OCLOPS_SUCCESS;
  set_operand(&geometry, 0, out->stride, out->offset);
  if (!broadcast_into(&geometry, 1, *a)) return invalid("oclopsUnary: the operand does not broadcast to out's shape");
  const std::string compute = compute_type({out->dtype, a->dtype}, device_of(stream).fp64);
  if (compute.empty()) {
    return not_supported(std::string("oclopsUnary: dtype ") + element_name(a->dtype) + " on " + device_of(stream).name);
  }
  const std::string source =
      specialise(compute, *out, a, nullptr, std::string("#define UNARY_OP(x) ") + unary_expression(op));
  return from_driver(Launch(*stream, source, "", "unary")
                         .value(geometry)
                         .buffer(out->buffer)
                         .buffer(a->buffer)
                         .run(static_cast<uint64_t>(geometry.numel)));
}

oclopsStatus_t oclopsFill(oclopsStream_t stream, const oclopsTensor_t* out, oclopsScalar_t value) {
  if (const oclopsStatus_t status = check_out(out, "oclopsFill")) return status;
  Geometry geometry = make_geometry(out->dim, out->shape);
  if (geometry.numel == 0) return OCLOPS_SUCCESS;
  set_operand(&geometry, 0, out->stride, out->offset);
  const std::string compute = compute_type({out->dtype}, device_of(stream).fp64);
  if (compute.empty()) {
    return not_supported(std::string("oclopsFill: dtype ") + element_name(out->dtype) + " on " + device_of(stream).name);
  }
  const std::string source = specialise(compute, *out, nullptr, nullptr, "#define FILL");
  Launch launch(*stream, source, "", "fill");
  launch.value(geometry).buffer(out->buffer);
  return from_driver(push_scalar(launch, compute, value).run(static_cast<uint64_t>(geometry.numel)));
}
