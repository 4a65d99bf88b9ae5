// Elementwise operators: arithmetic, comparisons, math functions, bitwise and
// logical ops, ternary and masked ops, triangles, fills and ranges (the
// families are macros of npu_ops_internal.h).
#include "npu_ops_internal.h"

using namespace npu_ops;

extern "C" {

// ---- binary (broadcasting; out's dtype is the result type) and comparisons ----

NPU_BINARY_ALPHA(Add, at::add_out)
NPU_BINARY_ALPHA(Sub, at::sub_out)
NPU_BINARY_SCALAR_ALPHA(Adds, at::add_out)
NPU_BINARY_SCALAR_ALPHA(Subs, at::sub_out)
NPU_BINARY(Mul, at::mul_out)
NPU_BINARY(Div, at::div_out)
NPU_BINARY(Maximum, at::maximum_out)
NPU_BINARY(Minimum, at::minimum_out)
NPU_BINARY(EqTensor, at::eq_out)
NPU_BINARY(NeTensor, at::ne_out)
NPU_BINARY(LtTensor, at::lt_out)
NPU_BINARY(GtTensor, at::gt_out)
NPU_BINARY_SCALAR(Muls, at::mul_out)
NPU_BINARY_SCALAR(Divs, at::div_out)
NPU_BINARY_SCALAR(EqScalar, at::eq_out)
NPU_BINARY_SCALAR(NeScalar, at::ne_out)
NPU_BINARY_SCALAR(LtScalar, at::lt_out)
NPU_BINARY_SCALAR(GtScalar, at::gt_out)

NPU_BINARY(BitwiseAndTensor, at::bitwise_and_out)
NPU_BINARY(BitwiseOrTensor, at::bitwise_or_out)
NPU_BINARY(BitwiseXorTensor, at::bitwise_xor_out)
NPU_BINARY(LogicalAnd, at::logical_and_out)
NPU_BINARY(LogicalOr, at::logical_or_out)
NPU_BINARY(LogicalXor, at::logical_xor_out)
NPU_BINARY(Atan2, at::atan2_out)
NPU_BINARY(FmodTensor, at::fmod_out)
NPU_BINARY(RemainderTensorTensor, at::remainder_out)
NPU_BINARY(Hypot, at::hypot_out)
NPU_BINARY(Copysign, at::copysign_out)
NPU_BINARY(XLogYTensor, at::xlogy_out)
NPU_BINARY(LogAddExp, at::logaddexp_out)
NPU_BINARY(LogAddExp2, at::logaddexp2_out)
NPU_BINARY(Fmax, at::fmax_out)
NPU_BINARY(Fmin, at::fmin_out)

NPU_BINARY_SCALAR(BitwiseAndScalar, at::bitwise_and_out)
NPU_BINARY_SCALAR(BitwiseOrScalar, at::bitwise_or_out)
NPU_BINARY_SCALAR(BitwiseXorScalar, at::bitwise_xor_out)
NPU_BINARY_SCALAR(FmodScalar, at::fmod_out)
NPU_BINARY_SCALAR(RemainderTensorScalar, at::remainder_out)

// ---- unary -----------------------------------------------------------------

NPU_UNARY(Neg, at::neg_out)
NPU_UNARY(Exp, at::exp_out)
NPU_UNARY(Log, at::log_out)
NPU_UNARY(Sqrt, at::sqrt_out)
NPU_UNARY(Rsqrt, at::rsqrt_out)
NPU_UNARY(Tanh, at::tanh_out)
NPU_UNARY(Sigmoid, at::sigmoid_out)
NPU_UNARY(Abs, at::abs_out)
NPU_UNARY(Sin, at::sin_out)
NPU_UNARY(Cos, at::cos_out)
NPU_UNARY(Reciprocal, at::reciprocal_out)
NPU_UNARY(Silu, at::silu_out)
NPU_UNARY(Erf, at::erf_out)
NPU_UNARY(IsNegInf, at::isneginf_out)

NPU_UNARY(Tan, at::tan_out)
NPU_UNARY(Asin, at::asin_out)
NPU_UNARY(Acos, at::acos_out)
NPU_UNARY(Atan, at::atan_out)
NPU_UNARY(Sinh, at::sinh_out)
NPU_UNARY(Cosh, at::cosh_out)
NPU_UNARY(Asinh, at::asinh_out)
NPU_UNARY(Acosh, at::acosh_out)
NPU_UNARY(Atanh, at::atanh_out)
NPU_UNARY(Exp2, at::exp2_out)
NPU_UNARY(Log10, at::log10_out)
NPU_UNARY(Frac, at::frac_out)
NPU_UNARY(Erfc, at::erfc_out)
NPU_UNARY(Erfinv, at::erfinv_out)
NPU_UNARY(Lgamma, at::lgamma_out)
NPU_UNARY(Digamma, at::digamma_out)
NPU_UNARY(Sinc, at::sinc_out)
NPU_UNARY(BitwiseNot, at::bitwise_not_out)
NPU_UNARY(Signbit, at::signbit_out)
NPU_UNARY(IsPosInf, at::isposinf_out)

NPU_UNARY(Sgn, at::sgn_out)

npuError npunnPowTensorScalarGetWorkspaceSize(const npuTensor* self, const npuScalar* exponent, npuTensor* out, NPUNN_QUERY_ARGS) {
  return compute_into("npunnPowTensorScalar", {self}, out, NPU_OUT(at::pow_out), workspace_size, executor, NamedScalar{"exponent", exponent});
}
NPUNN_RUN(PowTensorScalar)

npuError npunnClampGetWorkspaceSize(const npuTensor* self, const npuScalar* min, const npuScalar* max, npuTensor* out,
                                    NPUNN_QUERY_ARGS) {
  std::optional<npuScalar> low = min ? std::optional<npuScalar>(*min) : std::nullopt;
  std::optional<npuScalar> high = max ? std::optional<npuScalar>(*max) : std::nullopt;
  return prepare("npunnClamp", {self, out}, [x = desc(self), low, high, o = desc(out)] {
    at::Tensor result = view(o);
    at::clamp_out(result, view(x), low ? std::optional<at::Scalar>(aten_scalar(*low)) : std::nullopt,
                  high ? std::optional<at::Scalar>(aten_scalar(*high)) : std::nullopt);
  }, workspace_size, executor);
}
NPUNN_RUN(Clamp)

npuError npunnClampMinGetWorkspaceSize(const npuTensor* self, const npuScalar* min, npuTensor* out, NPUNN_QUERY_ARGS) {
  return compute_into("npunnClampMin", {self}, out, NPU_STORED(at::clamp_min), workspace_size, executor, NamedScalar{"min", min});
}
NPUNN_RUN(ClampMin)

// ---- ternary and masked ---------------------------------------------------

npuError npunnAddcmulGetWorkspaceSize(const npuTensor* self, const npuTensor* tensor1, const npuTensor* tensor2, const npuScalar* value, npuTensor* out, NPUNN_QUERY_ARGS) {
  return compute_into("npunnAddcmul", {self, tensor1, tensor2}, out, NPU_OUT(at::addcmul_out), workspace_size, executor, NamedScalar{"value", value});
}
NPUNN_RUN(Addcmul)

npuError npunnAddcdivGetWorkspaceSize(const npuTensor* self, const npuTensor* tensor1, const npuTensor* tensor2, const npuScalar* value, npuTensor* out, NPUNN_QUERY_ARGS) {
  return compute_into("npunnAddcdiv", {self, tensor1, tensor2}, out, NPU_OUT(at::addcdiv_out), workspace_size, executor, NamedScalar{"value", value});
}
NPUNN_RUN(Addcdiv)

npuError npunnLerpsGetWorkspaceSize(const npuTensor* self, const npuTensor* end, const npuScalar* weight, npuTensor* out, NPUNN_QUERY_ARGS) {
  return compute_into("npunnLerps", {self, end}, out, NPU_OUT(at::lerp_out), workspace_size, executor, NamedScalar{"weight", weight});
}
NPUNN_RUN(Lerps)

npuError npunnWhereGetWorkspaceSize(const npuTensor* condition, const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS) {
  return compute_into("npunnWhere", {condition, self, other}, out, NPU_OUT(at::where_out), workspace_size, executor);
}
NPUNN_RUN(Where)

npuError npunnInplaceMaskedFillScalarGetWorkspaceSize(npuTensor* self, const npuTensor* mask, const npuScalar* value,
                                                      NPUNN_QUERY_ARGS) {
  if (!value) return fail(NPU_ERROR_INVALID_PARAM, "npunnInplaceMaskedFillScalar: null value");
  return prepare("npunnInplaceMaskedFillScalar", {self, mask}, [x = desc(self), m = desc(mask), v = *value] {
    view(x).masked_fill_(view(m), aten_scalar(v));
  }, workspace_size, executor);
}
NPUNN_RUN(InplaceMaskedFillScalar)

npuError npunnTrilGetWorkspaceSize(const npuTensor* self, int64_t diagonal, npuTensor* out, NPUNN_QUERY_ARGS) {
  return compute_into("npunnTril", {self}, out, [diagonal](at::Tensor& result, const at::Tensor& self) { at::tril_out(result, self, diagonal); }, workspace_size, executor);
}
NPUNN_RUN(Tril)

npuError npunnTriuGetWorkspaceSize(const npuTensor* self, int64_t diagonal, npuTensor* out, NPUNN_QUERY_ARGS) {
  return compute_into("npunnTriu", {self}, out, [diagonal](at::Tensor& result, const at::Tensor& self) { at::triu_out(result, self, diagonal); }, workspace_size, executor);
}
NPUNN_RUN(Triu)

// ---- fills and ranges -----------------------------------------------------

npuError npunnInplaceFillScalarGetWorkspaceSize(npuTensor* self, const npuScalar* value, NPUNN_QUERY_ARGS) {
  if (!value) return fail(NPU_ERROR_INVALID_PARAM, "npunnInplaceFillScalar: null value");
  return prepare("npunnInplaceFillScalar", {self}, [x = desc(self), v = *value] { view(x).fill_(aten_scalar(v)); },
                 workspace_size, executor);
}
NPUNN_RUN(InplaceFillScalar)

npuError npunnInplaceZeroGetWorkspaceSize(npuTensor* self, NPUNN_QUERY_ARGS) {
  return prepare("npunnInplaceZero", {self}, [x = desc(self)] { view(x).zero_(); }, workspace_size, executor);
}
NPUNN_RUN(InplaceZero)

npuError npunnArangeGetWorkspaceSize(const npuScalar* start, const npuScalar* end, const npuScalar* step,
                                     npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!start || !end || !step) return fail(NPU_ERROR_INVALID_PARAM, "npunnArange: null scalar");
  return prepare("npunnArange", {out}, [a = *start, b = *end, s = *step, o = desc(out)] {
    at::Tensor result = view(o);
    at::arange_out(result, aten_scalar(a), aten_scalar(b), aten_scalar(s));
  }, workspace_size, executor);
}
NPUNN_RUN(Arange)

}  // extern "C"
