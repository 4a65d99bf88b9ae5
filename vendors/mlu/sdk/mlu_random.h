/*
 * Random numbers and dropout: one part of the simulated MLU's operator library, mlu_ops.h, which
 * says the library's conventions.
 */
#ifndef MLU_RANDOM_H_
#define MLU_RANDOM_H_

#include "mlu_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dropout: mask ~ Bernoulli(1 - p); out = input * mask / (1 - p) */
mluRet_t mluOpDropout(mluQueue_t q, const mluTensor_t* input, double p, bool train, mluRandState_t state,
                      const mluTensor_t* out, const mluTensor_t* mask);
mluRet_t mluOpDropoutBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* mask, double scale,
                              const mluTensor_t* out);

/* random */
mluRet_t mluOpRandNormal(mluQueue_t q, const mluTensor_t* x, double mean, double std, mluRandState_t state);
mluRet_t mluOpRandUniform(mluQueue_t q, const mluTensor_t* x, double low, double high, mluRandState_t state);

#ifdef __cplusplus
}
#endif

#endif /* MLU_RANDOM_H_ */
