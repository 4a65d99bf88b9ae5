/*
 * Reductions, cumulative sums and products, norms and softmax: one part of the simulated MLU's
 * operator library, mlu_ops.h, which says the library's conventions.
 */
#ifndef MLU_REDUCTIONS_H_
#define MLU_REDUCTIONS_H_

#include "mlu_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* all(x != 0) over dim (count 1) or all dims (count -1) */
mluRet_t mluOpAll(mluQueue_t q, const mluTensor_t* x, mluIntList_t dim, bool keepdim, const mluTensor_t* out);

/* cumulative sum along dim: a two-phase call (query the scratch size, then run with it) */
mluRet_t mluOpCumsumGetWorkspaceSize(const mluTensor_t* x, int64_t dim, const mluTensor_t* out, size_t* bytes);
mluRet_t mluOpCumsum(mluQueue_t q, const mluTensor_t* x, int64_t dim, void* workspace, size_t workspace_bytes,
                     const mluTensor_t* out);

/* reductions over `dims` (count -1: all) */
mluRet_t mluOpReduceMax(mluQueue_t q, const mluTensor_t* x, mluIntList_t dims, bool keepdim, const mluTensor_t* out);
mluRet_t mluOpReduceMin(mluQueue_t q, const mluTensor_t* x, mluIntList_t dims, bool keepdim, const mluTensor_t* out);
/* argmax over one dim (dims.count 1) or all (count -1) */
mluRet_t mluOpArgMax(mluQueue_t q, const mluTensor_t* x, mluIntList_t dim, bool keepdim, const mluTensor_t* out);
mluRet_t mluOpReduceSum(mluQueue_t q, const mluTensor_t* x, mluIntList_t dims, bool keepdim, const mluTensor_t* out);
mluRet_t mluOpReduceMean(mluQueue_t q, const mluTensor_t* x, mluIntList_t dims, bool keepdim, const mluTensor_t* out);

/* softmax and log_softmax over dim; their gradients take y, the forward's result */
mluRet_t mluOpSoftmax(mluQueue_t q, const mluTensor_t* x, int64_t dim, const mluTensor_t* out);
mluRet_t mluOpLogSoftmax(mluQueue_t q, const mluTensor_t* x, int64_t dim, const mluTensor_t* out);
mluRet_t mluOpSoftmaxBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* y, int64_t dim,
                              const mluTensor_t* out);
mluRet_t mluOpLogSoftmaxBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* y, int64_t dim,
                                 const mluTensor_t* out);
/* any(x != 0) over dim (count 1) or all dims (count -1) */
mluRet_t mluOpAny(mluQueue_t q, const mluTensor_t* x, mluIntList_t dim, bool keepdim, const mluTensor_t* out);
mluRet_t mluOpAnyAll(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);

/* more reductions; the result dtype is out's */
mluRet_t mluOpReduceProd(mluQueue_t q, const mluTensor_t* x, int64_t dim, bool keepdim, const mluTensor_t* out);
/* argmin over one dim (count 1) or all (count -1) */
mluRet_t mluOpArgMin(mluQueue_t q, const mluTensor_t* x, mluIntList_t dim, bool keepdim, const mluTensor_t* out);
mluRet_t mluOpLogSumExp(mluQueue_t q, const mluTensor_t* x, mluIntList_t dims, bool keepdim, const mluTensor_t* out);
mluRet_t mluOpCumprod(mluQueue_t q, const mluTensor_t* x, int64_t dim, const mluTensor_t* out);
mluRet_t mluOpMaxDim(mluQueue_t q, const mluTensor_t* x, int64_t dim, bool keepdim, const mluTensor_t* values,
                     const mluTensor_t* indices);
mluRet_t mluOpMinDim(mluQueue_t q, const mluTensor_t* x, int64_t dim, bool keepdim, const mluTensor_t* values,
                     const mluTensor_t* indices);
/* p-norm over dims (count -1: all); an absent p is 2 */
mluRet_t mluOpVectorNorm(mluQueue_t q, const mluTensor_t* x, mluScalar_t p, mluIntList_t dims, bool keepdim,
                         const mluTensor_t* out);

#ifdef __cplusplus
}
#endif

#endif /* MLU_REDUCTIONS_H_ */
