// Elementwise operators: copies, arithmetic, comparisons, math functions, bitwise
// and logical ops, ternary and masked ops, triangles, fills and ranges.
#include "mlu_ops_internal.h"

using namespace mlu_ops;

extern "C" {

mluRet_t mluOpCopyStrided(mluQueue_t q, const mluTensor_t* dst, const mluTensor_t* src) {
  return launch("mluOpCopyStrided", q, {dst, src}, [d = *dst, s = *src] { host_view(d).copy_(host_view(s)); },
                /*compute=*/false);
}

#define MLU_BINARY_ALPHA(NAME, ATEN)                                                               \
  mluRet_t NAME(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, mluScalar_t alpha,       \
                const mluTensor_t* out) {                                                          \
    return launch(#NAME, q, {a, b, out}, [a = *a, b = *b, alpha, o = *out] {                       \
      ATEN(lvalue(host_view(o)), host_view(a), host_view(b), aten_scalar(alpha));                          \
    });                                                                                            \
  }                                                                                                \
  mluRet_t NAME##Scalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, mluScalar_t alpha,      \
                        const mluTensor_t* out) {                                                  \
    return launch(#NAME "Scalar", q, {a, out}, [a = *a, b, alpha, o = *out] {                      \
      ATEN(lvalue(host_view(o)), host_view(a), wrapped(b), aten_scalar(alpha));                            \
    });                                                                                            \
  }

#define MLU_BINARY(NAME, ATEN)                                                                       \
  mluRet_t NAME(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out) {  \
    return launch(#NAME, q, {a, b, out},                                                             \
                  [a = *a, b = *b, o = *out] { ATEN(lvalue(host_view(o)), host_view(a), host_view(b)); });   \
  }                                                                                                  \
  mluRet_t NAME##Scalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, const mluTensor_t* out) { \
    return launch(#NAME "Scalar", q, {a, out},                                                       \
                  [a = *a, b, o = *out] { ATEN(lvalue(host_view(o)), host_view(a), wrapped(b)); });          \
  }

MLU_BINARY_ALPHA(mluOpAdd, at::add_out)
MLU_BINARY_ALPHA(mluOpSub, at::sub_out)
MLU_BINARY(mluOpMul, at::mul_out)
MLU_BINARY(mluOpDiv, at::div_out)
MLU_BINARY(mluOpEq, at::eq_out)
MLU_BINARY(mluOpNe, at::ne_out)
MLU_BINARY(mluOpLt, at::lt_out)
MLU_BINARY(mluOpGt, at::gt_out)

MLU_BINARY(mluOpBitwiseAnd, at::bitwise_and_out)
MLU_BINARY(mluOpBitwiseOr, at::bitwise_or_out)
MLU_BINARY(mluOpBitwiseXor, at::bitwise_xor_out)
MLU_BINARY(mluOpFmod, at::fmod_out)
MLU_BINARY(mluOpRemainder, at::remainder_out)

#define MLU_BINARY_TENSOR(NAME, ATEN)                                                                    \
  mluRet_t NAME(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out) {      \
    return launch(#NAME, q, {a, b, out},                                                                 \
                  [a = *a, b = *b, o = *out] { ATEN(lvalue(host_view(o)), host_view(a), host_view(b)); }); \
  }

MLU_BINARY_TENSOR(mluOpLogicalAnd, at::logical_and_out)
MLU_BINARY_TENSOR(mluOpLogicalOr, at::logical_or_out)
MLU_BINARY_TENSOR(mluOpLogicalXor, at::logical_xor_out)
MLU_BINARY_TENSOR(mluOpAtan2, at::atan2_out)
MLU_BINARY_TENSOR(mluOpHypot, at::hypot_out)
MLU_BINARY_TENSOR(mluOpCopysign, at::copysign_out)
MLU_BINARY_TENSOR(mluOpXlogy, at::xlogy_out)
MLU_BINARY_TENSOR(mluOpLogAddExp, at::logaddexp_out)
MLU_BINARY_TENSOR(mluOpLogAddExp2, at::logaddexp2_out)
MLU_BINARY_TENSOR(mluOpFmax, at::fmax_out)
MLU_BINARY_TENSOR(mluOpFmin, at::fmin_out)

MLU_BINARY(mluOpLe, at::le_out)
MLU_BINARY(mluOpGe, at::ge_out)

mluRet_t mluOpMaximum(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out) {
  return launch("mluOpMaximum", q, {a, b, out},
                [a = *a, b = *b, o = *out] { at::maximum_out(lvalue(host_view(o)), host_view(a), host_view(b)); });
}

mluRet_t mluOpMinimum(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out) {
  return launch("mluOpMinimum", q, {a, b, out},
                [a = *a, b = *b, o = *out] { at::minimum_out(lvalue(host_view(o)), host_view(a), host_view(b)); });
}

mluRet_t mluOpPow(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out) {
  return launch("mluOpPow", q, {a, b, out},
                [a = *a, b = *b, o = *out] { at::pow_out(lvalue(host_view(o)), host_view(a), host_view(b)); });
}

mluRet_t mluOpPowScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t exponent, const mluTensor_t* out) {
  return launch("mluOpPowScalar", q, {a, out}, [a = *a, exponent, o = *out] {
    at::pow_out(lvalue(host_view(o)), host_view(a), aten_scalar(exponent));
  });
}

#define MLU_UNARY(NAME, ATEN)                                                                             \
  mluRet_t NAME(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out) {                             \
    return launch(#NAME, q, {x, out}, [x = *x, o = *out] { ATEN(lvalue(host_view(o)), host_view(x)); });          \
  }

MLU_UNARY(mluOpNeg, at::neg_out)
MLU_UNARY(mluOpExp, at::exp_out)
MLU_UNARY(mluOpLog, at::log_out)
MLU_UNARY(mluOpSqrt, at::sqrt_out)
MLU_UNARY(mluOpSigmoid, at::sigmoid_out)
MLU_UNARY(mluOpTanh, at::tanh_out)

MLU_UNARY(mluOpAbs, at::abs_out)
MLU_UNARY(mluOpSin, at::sin_out)
MLU_UNARY(mluOpCos, at::cos_out)
MLU_UNARY(mluOpRsqrt, at::rsqrt_out)
MLU_UNARY(mluOpReciprocal, at::reciprocal_out)
MLU_UNARY(mluOpFloor, at::floor_out)
MLU_UNARY(mluOpCeil, at::ceil_out)
MLU_UNARY(mluOpTrunc, at::trunc_out)
MLU_UNARY(mluOpRound, at::round_out)
MLU_UNARY(mluOpErf, at::erf_out)
MLU_UNARY(mluOpExpm1, at::expm1_out)
MLU_UNARY(mluOpLog1p, at::log1p_out)
MLU_UNARY(mluOpLog2, at::log2_out)
MLU_UNARY(mluOpSign, at::sign_out)
MLU_UNARY(mluOpSilu, at::silu_out)
MLU_UNARY(mluOpLogicalNot, at::logical_not_out)

MLU_UNARY(mluOpTan, at::tan_out)
MLU_UNARY(mluOpAsin, at::asin_out)
MLU_UNARY(mluOpAcos, at::acos_out)
MLU_UNARY(mluOpAtan, at::atan_out)
MLU_UNARY(mluOpSinh, at::sinh_out)
MLU_UNARY(mluOpCosh, at::cosh_out)
MLU_UNARY(mluOpAsinh, at::asinh_out)
MLU_UNARY(mluOpAcosh, at::acosh_out)
MLU_UNARY(mluOpAtanh, at::atanh_out)
MLU_UNARY(mluOpExp2, at::exp2_out)
MLU_UNARY(mluOpLog10, at::log10_out)
MLU_UNARY(mluOpFrac, at::frac_out)
MLU_UNARY(mluOpErfc, at::erfc_out)
MLU_UNARY(mluOpErfinv, at::erfinv_out)
MLU_UNARY(mluOpLgamma, at::lgamma_out)
MLU_UNARY(mluOpDigamma, at::digamma_out)
MLU_UNARY(mluOpSinc, at::sinc_out)
MLU_UNARY(mluOpBitwiseNot, at::bitwise_not_out)
MLU_UNARY(mluOpSignbit, at::signbit_out)
MLU_UNARY(mluOpIsPosInf, at::isposinf_out)

mluRet_t mluOpIsNegInf(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out) {
  return launch("mluOpIsNegInf", q, {x, out}, [x = *x, o = *out] { at::isneginf_out(lvalue(host_view(o)), host_view(x)); });
}

MLU_UNARY(mluOpSgn, at::sgn_out)

mluRet_t mluOpClamp(mluQueue_t q, const mluTensor_t* x, mluScalar_t min, mluScalar_t max, const mluTensor_t* out) {
  return launch("mluOpClamp", q, {x, out}, [x = *x, min, max, o = *out] {
    at::clamp_out(lvalue(host_view(o)), host_view(x), optional_scalar(min), optional_scalar(max));
  });
}

mluRet_t mluOpClampMin(mluQueue_t q, const mluTensor_t* x, mluScalar_t min, const mluTensor_t* out) {
  return launch("mluOpClampMin", q, {x, out},
                [x = *x, min, o = *out] { store(o, at::clamp_min(host_view(x), aten_scalar(min))); });
}

mluRet_t mluOpWhere(mluQueue_t q, const mluTensor_t* condition, const mluTensor_t* a, const mluTensor_t* b,
                    const mluTensor_t* out) {
  return launch("mluOpWhere", q, {condition, a, b, out}, [c = *condition, a = *a, b = *b, o = *out] {
    at::where_out(lvalue(host_view(o)), host_view(c), host_view(a), host_view(b));
  });
}

mluRet_t mluOpMaskedFill(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* mask, mluScalar_t value) {
  return launch("mluOpMaskedFill", q, {x, mask},
                [x = *x, m = *mask, value] { host_view(x).masked_fill_(host_view(m), aten_scalar(value)); });
}

mluRet_t mluOpAddcmul(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* a, const mluTensor_t* b, mluScalar_t value,
                      const mluTensor_t* out) {
  return launch("mluOpAddcmul", q, {x, a, b, out}, [x = *x, a = *a, b = *b, value, o = *out] {
    at::addcmul_out(lvalue(host_view(o)), host_view(x), host_view(a), host_view(b), aten_scalar(value));
  });
}

mluRet_t mluOpAddcdiv(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* a, const mluTensor_t* b, mluScalar_t value,
                      const mluTensor_t* out) {
  return launch("mluOpAddcdiv", q, {x, a, b, out}, [x = *x, a = *a, b = *b, value, o = *out] {
    at::addcdiv_out(lvalue(host_view(o)), host_view(x), host_view(a), host_view(b), aten_scalar(value));
  });
}

mluRet_t mluOpLerp(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* end, mluScalar_t weight,
                   const mluTensor_t* out) {
  return launch("mluOpLerp", q, {x, end, out}, [x = *x, e = *end, weight, o = *out] {
    at::lerp_out(lvalue(host_view(o)), host_view(x), host_view(e), aten_scalar(weight));
  });
}

mluRet_t mluOpTril(mluQueue_t q, const mluTensor_t* x, int64_t diagonal, const mluTensor_t* out) {
  return launch("mluOpTril", q, {x, out},
                [x = *x, diagonal, o = *out] { at::tril_out(lvalue(host_view(o)), host_view(x), diagonal); });
}

mluRet_t mluOpTriu(mluQueue_t q, const mluTensor_t* x, int64_t diagonal, const mluTensor_t* out) {
  return launch("mluOpTriu", q, {x, out},
                [x = *x, diagonal, o = *out] { at::triu_out(lvalue(host_view(o)), host_view(x), diagonal); });
}

mluRet_t mluOpFill(mluQueue_t q, const mluTensor_t* x, mluScalar_t value) {
  return launch("mluOpFill", q, {x}, [x = *x, value] { host_view(x).fill_(aten_scalar(value)); });
}

mluRet_t mluOpZero(mluQueue_t q, const mluTensor_t* x) {
  return launch("mluOpZero", q, {x}, [x = *x] { host_view(x).zero_(); });
}

mluRet_t mluOpArange(mluQueue_t q, mluScalar_t start, mluScalar_t end, mluScalar_t step, const mluTensor_t* out) {
  return launch("mluOpArange", q, {out}, [start, end, step, o = *out] {
    at::arange_out(lvalue(host_view(o)), aten_scalar(start), aten_scalar(end), aten_scalar(step));
  });
}

}  // extern "C"
