/*
 * The simulated MLU operator library (in the style of a vendor's op SDK: C
 * functions on tensor descriptors, queued on a device queue, each returning
 * the chip's status code). Every function validates its arguments at once and
 * runs asynchronously on the queue; a failure during execution is reported by
 * the next mluQueueSync.
 *
 * The chip computes in float32, float16, bfloat16 and integer/bool types; it
 * has no float64 or complex units (MLU_RET_ERR_NOT_SUPPORTED).
 */
#ifndef MLU_OPS_H_
#define MLU_OPS_H_

#include <stdint.h>

#include "mlu_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MLU_MAX_DIMS 8

typedef enum {
  MLU_DTYPE_BOOL, MLU_DTYPE_UINT8, MLU_DTYPE_INT8, MLU_DTYPE_INT16, MLU_DTYPE_INT32, MLU_DTYPE_INT64,
  MLU_DTYPE_HALF, MLU_DTYPE_BFLOAT16, MLU_DTYPE_FLOAT, MLU_DTYPE_DOUBLE, MLU_DTYPE_COMPLEX_FLOAT,
  MLU_DTYPE_COMPLEX_DOUBLE, MLU_DTYPE_INVALID = -1
} mluDataType_t;

/* A tensor in device memory; data == NULL means "absent" for optional tensors. */
typedef struct {
  void* data;
  mluDataType_t dtype;
  int32_t dim;
  int64_t shape[MLU_MAX_DIMS];
  int64_t stride[MLU_MAX_DIMS]; /* in elements */
} mluTensor_t;

typedef enum { MLU_SCALAR_FLOAT, MLU_SCALAR_INT, MLU_SCALAR_BOOL } mluScalarKind_t;
typedef struct {
  mluScalarKind_t kind;
  double f;
  int64_t i;
} mluScalar_t;

/* count == -1: "all dimensions" (an absent optional list). */
typedef struct {
  int32_t count;
  int64_t values[MLU_MAX_DIMS];
} mluIntList_t;

/* Counter-based random state: results depend only on (seed, offset). */
typedef struct {
  uint64_t seed;
  uint64_t offset;
} mluRandState_t;

/* copies */
mluRet_t mluOpCopyStrided(mluQueue_t q, const mluTensor_t* dst, const mluTensor_t* src);

/* elementwise binary: out = a op b (broadcasting, type promotion into out's dtype) */
mluRet_t mluOpAdd(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, mluScalar_t alpha, const mluTensor_t* out);
mluRet_t mluOpSub(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, mluScalar_t alpha, const mluTensor_t* out);
mluRet_t mluOpMul(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpDiv(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpAddScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, mluScalar_t alpha, const mluTensor_t* out);
mluRet_t mluOpSubScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, mluScalar_t alpha, const mluTensor_t* out);
mluRet_t mluOpMulScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, const mluTensor_t* out);
mluRet_t mluOpDivScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, const mluTensor_t* out);

/* comparisons: out (bool) = a cmp b */
mluRet_t mluOpEq(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpNe(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpLt(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpGt(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpEqScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, const mluTensor_t* out);
mluRet_t mluOpNeScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, const mluTensor_t* out);
mluRet_t mluOpLtScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, const mluTensor_t* out);
mluRet_t mluOpGtScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, const mluTensor_t* out);

/* elementwise unary */
mluRet_t mluOpNeg(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpExp(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpLog(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpSqrt(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpRelu(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpSigmoid(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpTanh(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpTanhBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* y, const mluTensor_t* out);
mluRet_t mluOpSigmoidBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* y, const mluTensor_t* out);
mluRet_t mluOpThresholdBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluScalar_t threshold,
                                const mluTensor_t* out);

/* fill */
mluRet_t mluOpFill(mluQueue_t q, const mluTensor_t* x, mluScalar_t value);
mluRet_t mluOpZero(mluQueue_t q, const mluTensor_t* x);

/* linear algebra */
mluRet_t mluOpMatMul(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpAddmm(mluQueue_t q, const mluTensor_t* bias, const mluTensor_t* a, const mluTensor_t* b, mluScalar_t beta,
                    mluScalar_t alpha, const mluTensor_t* out);

/* reductions over `dims` (count -1: all) */
mluRet_t mluOpReduceSum(mluQueue_t q, const mluTensor_t* x, mluIntList_t dims, bool keepdim, const mluTensor_t* out);
mluRet_t mluOpReduceMean(mluQueue_t q, const mluTensor_t* x, mluIntList_t dims, bool keepdim, const mluTensor_t* out);

/* softmax and loss */
mluRet_t mluOpLogSoftmax(mluQueue_t q, const mluTensor_t* x, int64_t dim, const mluTensor_t* out);
mluRet_t mluOpLogSoftmaxBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* y, int64_t dim,
                                 const mluTensor_t* out);
mluRet_t mluOpNllLoss(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* target, const mluTensor_t* weight,
                      int64_t reduction, int64_t ignore_index, const mluTensor_t* out, const mluTensor_t* total_weight);
mluRet_t mluOpNllLossBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* target,
                              const mluTensor_t* weight, int64_t reduction, int64_t ignore_index,
                              const mluTensor_t* total_weight, const mluTensor_t* out);

/* random */
mluRet_t mluOpRandNormal(mluQueue_t q, const mluTensor_t* x, double mean, double std, mluRandState_t state);
mluRet_t mluOpRandUniform(mluQueue_t q, const mluTensor_t* x, double low, double high, mluRandState_t state);

#ifdef __cplusplus
}
#endif

#endif /* MLU_OPS_H_ */
