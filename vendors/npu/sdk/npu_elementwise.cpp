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

npuError npunnPowTensorScalarGetWorkspaceSize(const npuTensor* self, const npuScalar* exponent, npuTensor* out,
                                              NPUNN_QUERY_ARGS) {
  if (!exponent) return fail(NPU_ERROR_INVALID_PARAM, "npunnPowTensorScalar: null exponent");
  return prepare("npunnPowTensorScalar", {self, out}, [x = desc(self), e = *exponent, o = desc(out)] {
    at::Tensor result = view(o);
    at::pow_out(result, view(x), aten_scalar(e));
  }, workspace_size, executor);
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
  if (!min) return fail(NPU_ERROR_INVALID_PARAM, "npunnClampMin: null min");
  return prepare("npunnClampMin", {self, out}, [self = desc(self), min = *min, out = desc(out)] {
    alu::store(view(out), at::clamp_min(view(self), aten_scalar(min)));
  }, workspace_size, executor);
}
NPUNN_RUN(ClampMin)

// ---- ternary and masked ---------------------------------------------------

#define NPU_POINTWISE3(NAME, ATEN)                                                                                \
  npuError npunn##NAME##GetWorkspaceSize(const npuTensor* self, const npuTensor* tensor1, const npuTensor* tensor2, \
                                         const npuScalar* value, npuTensor* out, NPUNN_QUERY_ARGS) {               \
    if (!value) return fail(NPU_ERROR_INVALID_PARAM, "npunn" #NAME ": null value");                                \
    return prepare("npunn" #NAME, {self, tensor1, tensor2, out},                                                   \
                   [x = desc(self), a = desc(tensor1), b = desc(tensor2), v = *value, o = desc(out)] {              \
                     at::Tensor result = view(o);                                                                  \
                     ATEN(result, view(x), view(a), view(b), aten_scalar(v));                                      \
                   }, workspace_size, executor);                                                                   \
  }                                                                                                                \
  NPUNN_RUN(NAME)

NPU_POINTWISE3(Addcmul, at::addcmul_out)
NPU_POINTWISE3(Addcdiv, at::addcdiv_out)

npuError npunnLerpsGetWorkspaceSize(const npuTensor* self, const npuTensor* end, const npuScalar* weight,
                                    npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!weight) return fail(NPU_ERROR_INVALID_PARAM, "npunnLerps: null weight");
  return prepare("npunnLerps", {self, end, out}, [x = desc(self), e = desc(end), w = *weight, o = desc(out)] {
    at::Tensor result = view(o);
    at::lerp_out(result, view(x), view(e), aten_scalar(w));
  }, workspace_size, executor);
}
NPUNN_RUN(Lerps)

npuError npunnWhereGetWorkspaceSize(const npuTensor* condition, const npuTensor* self, const npuTensor* other,
                                    npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnWhere", {condition, self, other, out},
                 [c = desc(condition), a = desc(self), b = desc(other), o = desc(out)] {
                   at::Tensor result = view(o);
                   at::where_out(result, view(c), view(a), view(b));
                 }, workspace_size, executor);
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
  return prepare("npunnTril", {self, out}, [x = desc(self), diagonal, o = desc(out)] {
    at::Tensor result = view(o);
    at::tril_out(result, view(x), diagonal);
  }, workspace_size, executor);
}
NPUNN_RUN(Tril)

npuError npunnTriuGetWorkspaceSize(const npuTensor* self, int64_t diagonal, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnTriu", {self, out}, [x = desc(self), diagonal, o = desc(out)] {
    at::Tensor result = view(o);
    at::triu_out(result, view(x), diagonal);
  }, workspace_size, executor);
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
