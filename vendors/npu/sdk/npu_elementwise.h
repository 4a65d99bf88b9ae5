/*
 * Elementwise operators (arithmetic, comparisons, math functions, bitwise and logical ops, ternary
 * and masked ops, triangles, fills and ranges): one part of the simulated NPU's operator library,
 * npu_ops.h, which says the library's conventions.
 */
#ifndef NPU_ELEMENTWISE_H_
#define NPU_ELEMENTWISE_H_

#include "npu_handles.h"

#ifdef __cplusplus
extern "C" {
#endif

/* elementwise binary (broadcasting; out's dtype is the result type) */
npuError npunnAddGetWorkspaceSize(const npuTensor* self, const npuTensor* other, const npuScalar* alpha, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSubGetWorkspaceSize(const npuTensor* self, const npuTensor* other, const npuScalar* alpha, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnMulGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnDivGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAddsGetWorkspaceSize(const npuTensor* self, const npuScalar* other, const npuScalar* alpha, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSubsGetWorkspaceSize(const npuTensor* self, const npuScalar* other, const npuScalar* alpha, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnMulsGetWorkspaceSize(const npuTensor* self, const npuScalar* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnDivsGetWorkspaceSize(const npuTensor* self, const npuScalar* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnMaximumGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnMinimumGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);

/* comparisons (bool out) */
npuError npunnEqTensorGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnNeTensorGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnLtTensorGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnGtTensorGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnEqScalarGetWorkspaceSize(const npuTensor* self, const npuScalar* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnNeScalarGetWorkspaceSize(const npuTensor* self, const npuScalar* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnLtScalarGetWorkspaceSize(const npuTensor* self, const npuScalar* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnGtScalarGetWorkspaceSize(const npuTensor* self, const npuScalar* other, npuTensor* out, NPUNN_QUERY_ARGS);

/* elementwise unary */
npuError npunnNegGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnExpGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnLogGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSqrtGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnRsqrtGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnTanhGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSigmoidGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAbsGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSinGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnCosGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnReciprocalGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSiluGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnErfGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnIsNegInfGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
/* min and max may be null (no bound) */
npuError npunnClampGetWorkspaceSize(const npuTensor* self, const npuScalar* min, const npuScalar* max, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnClampMinGetWorkspaceSize(const npuTensor* self, const npuScalar* min, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnPowTensorScalarGetWorkspaceSize(const npuTensor* self, const npuScalar* exponent, npuTensor* out, NPUNN_QUERY_ARGS);

/* ternary and masked */
npuError npunnAddcmulGetWorkspaceSize(const npuTensor* self, const npuTensor* tensor1, const npuTensor* tensor2, const npuScalar* value, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAddcdivGetWorkspaceSize(const npuTensor* self, const npuTensor* tensor1, const npuTensor* tensor2, const npuScalar* value, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnLerpsGetWorkspaceSize(const npuTensor* self, const npuTensor* end, const npuScalar* weight, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnWhereGetWorkspaceSize(const npuTensor* condition, const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnInplaceMaskedFillScalarGetWorkspaceSize(npuTensor* self, const npuTensor* mask, const npuScalar* value, NPUNN_QUERY_ARGS);
npuError npunnTrilGetWorkspaceSize(const npuTensor* self, int64_t diagonal, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnTriuGetWorkspaceSize(const npuTensor* self, int64_t diagonal, npuTensor* out, NPUNN_QUERY_ARGS);

/* fills and ranges */
npuError npunnInplaceFillScalarGetWorkspaceSize(npuTensor* self, const npuScalar* value, NPUNN_QUERY_ARGS);
npuError npunnInplaceZeroGetWorkspaceSize(npuTensor* self, NPUNN_QUERY_ARGS);
npuError npunnArangeGetWorkspaceSize(const npuScalar* start, const npuScalar* end, const npuScalar* step, npuTensor* out, NPUNN_QUERY_ARGS);

/* more elementwise unary: trigonometric, hyperbolic, special functions */
npuError npunnTanGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAsinGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAcosGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAtanGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSinhGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnCoshGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAsinhGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAcoshGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAtanhGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnExp2GetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnLog10GetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnFracGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnErfcGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnErfinvGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnLgammaGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnDigammaGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSincGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnBitwiseNotGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSignbitGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnIsPosInfGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnSgnGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS);

/* more elementwise binary (broadcasting; out's dtype is the result type) */
npuError npunnBitwiseAndTensorGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnBitwiseOrTensorGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnBitwiseXorTensorGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnLogicalAndGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnLogicalOrGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnLogicalXorGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAtan2GetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnFmodTensorGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnRemainderTensorTensorGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnHypotGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnCopysignGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnXLogYTensorGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnLogAddExpGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnLogAddExp2GetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnFmaxGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnFminGetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnBitwiseAndScalarGetWorkspaceSize(const npuTensor* self, const npuScalar* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnBitwiseOrScalarGetWorkspaceSize(const npuTensor* self, const npuScalar* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnBitwiseXorScalarGetWorkspaceSize(const npuTensor* self, const npuScalar* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnFmodScalarGetWorkspaceSize(const npuTensor* self, const npuScalar* other, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnRemainderTensorScalarGetWorkspaceSize(const npuTensor* self, const npuScalar* other, npuTensor* out, NPUNN_QUERY_ARGS);

/* phase two of each operator above, in the same order */
npuError npunnAdd(NPUNN_RUN_ARGS);
npuError npunnSub(NPUNN_RUN_ARGS);
npuError npunnMul(NPUNN_RUN_ARGS);
npuError npunnDiv(NPUNN_RUN_ARGS);
npuError npunnAdds(NPUNN_RUN_ARGS);
npuError npunnSubs(NPUNN_RUN_ARGS);
npuError npunnMuls(NPUNN_RUN_ARGS);
npuError npunnDivs(NPUNN_RUN_ARGS);
npuError npunnMaximum(NPUNN_RUN_ARGS);
npuError npunnMinimum(NPUNN_RUN_ARGS);
npuError npunnEqTensor(NPUNN_RUN_ARGS);
npuError npunnNeTensor(NPUNN_RUN_ARGS);
npuError npunnLtTensor(NPUNN_RUN_ARGS);
npuError npunnGtTensor(NPUNN_RUN_ARGS);
npuError npunnEqScalar(NPUNN_RUN_ARGS);
npuError npunnNeScalar(NPUNN_RUN_ARGS);
npuError npunnLtScalar(NPUNN_RUN_ARGS);
npuError npunnGtScalar(NPUNN_RUN_ARGS);
npuError npunnNeg(NPUNN_RUN_ARGS);
npuError npunnExp(NPUNN_RUN_ARGS);
npuError npunnLog(NPUNN_RUN_ARGS);
npuError npunnSqrt(NPUNN_RUN_ARGS);
npuError npunnRsqrt(NPUNN_RUN_ARGS);
npuError npunnTanh(NPUNN_RUN_ARGS);
npuError npunnSigmoid(NPUNN_RUN_ARGS);
npuError npunnAbs(NPUNN_RUN_ARGS);
npuError npunnSin(NPUNN_RUN_ARGS);
npuError npunnCos(NPUNN_RUN_ARGS);
npuError npunnReciprocal(NPUNN_RUN_ARGS);
npuError npunnSilu(NPUNN_RUN_ARGS);
npuError npunnErf(NPUNN_RUN_ARGS);
npuError npunnIsNegInf(NPUNN_RUN_ARGS);
npuError npunnClamp(NPUNN_RUN_ARGS);
npuError npunnClampMin(NPUNN_RUN_ARGS);
npuError npunnPowTensorScalar(NPUNN_RUN_ARGS);
npuError npunnAddcmul(NPUNN_RUN_ARGS);
npuError npunnAddcdiv(NPUNN_RUN_ARGS);
npuError npunnLerps(NPUNN_RUN_ARGS);
npuError npunnWhere(NPUNN_RUN_ARGS);
npuError npunnInplaceMaskedFillScalar(NPUNN_RUN_ARGS);
npuError npunnTril(NPUNN_RUN_ARGS);
npuError npunnTriu(NPUNN_RUN_ARGS);
npuError npunnInplaceFillScalar(NPUNN_RUN_ARGS);
npuError npunnInplaceZero(NPUNN_RUN_ARGS);
npuError npunnArange(NPUNN_RUN_ARGS);
npuError npunnTan(NPUNN_RUN_ARGS);
npuError npunnAsin(NPUNN_RUN_ARGS);
npuError npunnAcos(NPUNN_RUN_ARGS);
npuError npunnAtan(NPUNN_RUN_ARGS);
npuError npunnSinh(NPUNN_RUN_ARGS);
npuError npunnCosh(NPUNN_RUN_ARGS);
npuError npunnAsinh(NPUNN_RUN_ARGS);
npuError npunnAcosh(NPUNN_RUN_ARGS);
npuError npunnAtanh(NPUNN_RUN_ARGS);
npuError npunnExp2(NPUNN_RUN_ARGS);
npuError npunnLog10(NPUNN_RUN_ARGS);
npuError npunnFrac(NPUNN_RUN_ARGS);
npuError npunnErfc(NPUNN_RUN_ARGS);
npuError npunnErfinv(NPUNN_RUN_ARGS);
npuError npunnLgamma(NPUNN_RUN_ARGS);
npuError npunnDigamma(NPUNN_RUN_ARGS);
npuError npunnSinc(NPUNN_RUN_ARGS);
npuError npunnBitwiseNot(NPUNN_RUN_ARGS);
npuError npunnSignbit(NPUNN_RUN_ARGS);
npuError npunnIsPosInf(NPUNN_RUN_ARGS);
npuError npunnSgn(NPUNN_RUN_ARGS);
npuError npunnBitwiseAndTensor(NPUNN_RUN_ARGS);
npuError npunnBitwiseOrTensor(NPUNN_RUN_ARGS);
npuError npunnBitwiseXorTensor(NPUNN_RUN_ARGS);
npuError npunnLogicalAnd(NPUNN_RUN_ARGS);
npuError npunnLogicalOr(NPUNN_RUN_ARGS);
npuError npunnLogicalXor(NPUNN_RUN_ARGS);
npuError npunnAtan2(NPUNN_RUN_ARGS);
npuError npunnFmodTensor(NPUNN_RUN_ARGS);
npuError npunnRemainderTensorTensor(NPUNN_RUN_ARGS);
npuError npunnHypot(NPUNN_RUN_ARGS);
npuError npunnCopysign(NPUNN_RUN_ARGS);
npuError npunnXLogYTensor(NPUNN_RUN_ARGS);
npuError npunnLogAddExp(NPUNN_RUN_ARGS);
npuError npunnLogAddExp2(NPUNN_RUN_ARGS);
npuError npunnFmax(NPUNN_RUN_ARGS);
npuError npunnFmin(NPUNN_RUN_ARGS);
npuError npunnBitwiseAndScalar(NPUNN_RUN_ARGS);
npuError npunnBitwiseOrScalar(NPUNN_RUN_ARGS);
npuError npunnBitwiseXorScalar(NPUNN_RUN_ARGS);
npuError npunnFmodScalar(NPUNN_RUN_ARGS);
npuError npunnRemainderTensorScalar(NPUNN_RUN_ARGS);

#ifdef __cplusplus
}
#endif

#endif /* NPU_ELEMENTWISE_H_ */
