/*
 * Elementwise operators (copies, arithmetic, comparisons, math functions, bitwise and logical ops,
 * ternary and masked ops, triangles, fills and ranges): one part of the simulated MLU's operator
 * library, mlu_ops.h, which says the library's conventions.
 */
#ifndef MLU_ELEMENTWISE_H_
#define MLU_ELEMENTWISE_H_

#include "mlu_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* copies */
mluRet_t mluOpCopyStrided(mluQueue_t q, const mluTensor_t* dst, const mluTensor_t* src);

/* with alpha: out = a op alpha * b (broadcasting, type promotion into out's dtype) */
mluRet_t mluOpAdd(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, mluScalar_t alpha, const mluTensor_t* out);
mluRet_t mluOpSub(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, mluScalar_t alpha, const mluTensor_t* out);
mluRet_t mluOpAddScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, mluScalar_t alpha, const mluTensor_t* out);
mluRet_t mluOpSubScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, mluScalar_t alpha, const mluTensor_t* out);

/* unary: out = f(x) (trigonometric, hyperbolic, special functions, rounding, tests) */
mluRet_t mluOpNeg(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpExp(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpLog(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpSqrt(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpSigmoid(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpTanh(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpAbs(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpSin(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpCos(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpRsqrt(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpReciprocal(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpFloor(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpCeil(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpTrunc(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpRound(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpErf(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpExpm1(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpLog1p(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpLog2(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpSign(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpSilu(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpLogicalNot(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpIsNegInf(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpSgn(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpTan(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpAsin(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpAcos(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpAtan(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpSinh(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpCosh(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpAsinh(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpAcosh(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpAtanh(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpExp2(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpLog10(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpFrac(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpErfc(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpErfinv(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpLgamma(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpDigamma(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpSinc(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpBitwiseNot(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpSignbit(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpIsPosInf(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);

/* binary: out = a op b (broadcasting, type promotion into out's dtype) */
mluRet_t mluOpMul(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpDiv(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpMaximum(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpMinimum(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpPow(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpBitwiseAnd(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpBitwiseOr(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpBitwiseXor(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpLogicalAnd(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpLogicalOr(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpLogicalXor(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpAtan2(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpFmod(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpRemainder(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpHypot(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpCopysign(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpXlogy(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpLogAddExp(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpLogAddExp2(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpFmax(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpFmin(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);

/* comparisons: out (bool) = a cmp b */
mluRet_t mluOpEq(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpNe(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpLt(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpLe(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpGt(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpGe(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);

/* binary with a scalar operand: out = a op b */
mluRet_t mluOpMulScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, const mluTensor_t* out);
mluRet_t mluOpDivScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, const mluTensor_t* out);
mluRet_t mluOpPowScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t exponent, const mluTensor_t* out);
mluRet_t mluOpBitwiseAndScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, const mluTensor_t* out);
mluRet_t mluOpBitwiseOrScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, const mluTensor_t* out);
mluRet_t mluOpBitwiseXorScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, const mluTensor_t* out);
mluRet_t mluOpFmodScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, const mluTensor_t* out);
mluRet_t mluOpRemainderScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, const mluTensor_t* out);

/* comparisons with a scalar: out (bool) = a cmp b */
mluRet_t mluOpEqScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, const mluTensor_t* out);
mluRet_t mluOpNeScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, const mluTensor_t* out);
mluRet_t mluOpLtScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, const mluTensor_t* out);
mluRet_t mluOpLeScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, const mluTensor_t* out);
mluRet_t mluOpGtScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, const mluTensor_t* out);
mluRet_t mluOpGeScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, const mluTensor_t* out);

/* ternary, masked, clamped and triangular ops */
mluRet_t mluOpClamp(mluQueue_t q, const mluTensor_t* x, mluScalar_t min, mluScalar_t max, const mluTensor_t* out);
mluRet_t mluOpClampMin(mluQueue_t q, const mluTensor_t* x, mluScalar_t min, const mluTensor_t* out);
mluRet_t mluOpWhere(mluQueue_t q, const mluTensor_t* condition, const mluTensor_t* a, const mluTensor_t* b,
                    const mluTensor_t* out);
mluRet_t mluOpMaskedFill(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* mask, mluScalar_t value);
mluRet_t mluOpAddcmul(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* a, const mluTensor_t* b, mluScalar_t value,
                      const mluTensor_t* out);
mluRet_t mluOpAddcdiv(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* a, const mluTensor_t* b, mluScalar_t value,
                      const mluTensor_t* out);
mluRet_t mluOpLerp(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* end, mluScalar_t weight,
                   const mluTensor_t* out);
mluRet_t mluOpTril(mluQueue_t q, const mluTensor_t* x, int64_t diagonal, const mluTensor_t* out);
mluRet_t mluOpTriu(mluQueue_t q, const mluTensor_t* x, int64_t diagonal, const mluTensor_t* out);

/* fills and ranges */
mluRet_t mluOpFill(mluQueue_t q, const mluTensor_t* x, mluScalar_t value);
mluRet_t mluOpZero(mluQueue_t q, const mluTensor_t* x);
mluRet_t mluOpArange(mluQueue_t q, mluScalar_t start, mluScalar_t end, mluScalar_t step, const mluTensor_t* out);

#ifdef __cplusplus
}
#endif

#endif /* MLU_ELEMENTWISE_H_ */
