/*
 * Matrix products and the fully connected layer: one part of the simulated MLU's operator library,
 * mlu_ops.h, which says the library's conventions.
 */
#ifndef MLU_MATMUL_H_
#define MLU_MATMUL_H_

#include "mlu_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* linear algebra */
mluRet_t mluOpMatMul(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpAddmm(mluQueue_t q, const mluTensor_t* bias, const mluTensor_t* a, const mluTensor_t* b, mluScalar_t beta,
                    mluScalar_t alpha, const mluTensor_t* out);

/* fully connected: out = input @ weight^T + bias (bias optional) */
mluRet_t mluOpLinear(mluQueue_t q, const mluTensor_t* input, const mluTensor_t* weight, const mluTensor_t* bias,
                     const mluTensor_t* out);
mluRet_t mluOpBatchMatMul(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out);
mluRet_t mluOpBaddbmm(mluQueue_t q, const mluTensor_t* bias, const mluTensor_t* a, const mluTensor_t* b, mluScalar_t beta,
                      mluScalar_t alpha, const mluTensor_t* out);

#ifdef __cplusplus
}
#endif

#endif /* MLU_MATMUL_H_ */
