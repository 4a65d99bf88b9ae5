/*
 * Activations and their gradients: one part of the simulated MLU's operator library, mlu_ops.h,
 * which says the library's conventions.
 */
#ifndef MLU_ACTIVATIONS_H_
#define MLU_ACTIVATIONS_H_

#include "mlu_types.h"

#ifdef __cplusplus
extern "C" {
#endif

mluRet_t mluOpRelu(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpTanhBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* y, const mluTensor_t* out);
mluRet_t mluOpSigmoidBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* y, const mluTensor_t* out);
mluRet_t mluOpThresholdBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluScalar_t threshold,
                                const mluTensor_t* out);
mluRet_t mluOpGelu(mluQueue_t q, const mluTensor_t* x, mluGeluApproximation_t approximation, const mluTensor_t* out);
mluRet_t mluOpGeluBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                           mluGeluApproximation_t approximation, const mluTensor_t* out);
mluRet_t mluOpSiluBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* out);

/* activations and their gradients (the ATen argument meanings) */
mluRet_t mluOpElu(mluQueue_t q, const mluTensor_t* x, mluScalar_t alpha, mluScalar_t scale, mluScalar_t input_scale,
                  const mluTensor_t* out);
mluRet_t mluOpEluBackward(mluQueue_t q, const mluTensor_t* grad, mluScalar_t alpha, mluScalar_t scale,
                          mluScalar_t input_scale, bool is_result, const mluTensor_t* x_or_y, const mluTensor_t* out);
mluRet_t mluOpHardtanh(mluQueue_t q, const mluTensor_t* x, mluScalar_t min, mluScalar_t max, const mluTensor_t* out);
mluRet_t mluOpHardtanhBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluScalar_t min,
                               mluScalar_t max, const mluTensor_t* out);
mluRet_t mluOpLeakyRelu(mluQueue_t q, const mluTensor_t* x, mluScalar_t slope, const mluTensor_t* out);
mluRet_t mluOpLeakyReluBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluScalar_t slope,
                                bool x_is_result, const mluTensor_t* out);
mluRet_t mluOpSoftplus(mluQueue_t q, const mluTensor_t* x, mluScalar_t beta, mluScalar_t threshold,
                       const mluTensor_t* out);
mluRet_t mluOpSoftplusBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluScalar_t beta,
                               mluScalar_t threshold, const mluTensor_t* out);
mluRet_t mluOpSoftshrink(mluQueue_t q, const mluTensor_t* x, mluScalar_t lambd, const mluTensor_t* out);
mluRet_t mluOpSoftshrinkBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluScalar_t lambd,
                                 const mluTensor_t* out);
mluRet_t mluOpHardshrink(mluQueue_t q, const mluTensor_t* x, mluScalar_t lambd, const mluTensor_t* out);
mluRet_t mluOpHardshrinkBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluScalar_t lambd,
                                 const mluTensor_t* out);
mluRet_t mluOpHardswish(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpHardswishBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpHardsigmoid(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpHardsigmoidBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* out);
/* buffer: the forward's saved intermediate, same shape as x */
mluRet_t mluOpLogSigmoid(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out, const mluTensor_t* buffer);
mluRet_t mluOpLogSigmoidBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                 const mluTensor_t* buffer, const mluTensor_t* out);
mluRet_t mluOpMish(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out);
mluRet_t mluOpThreshold(mluQueue_t q, const mluTensor_t* x, mluScalar_t threshold, mluScalar_t value,
                        const mluTensor_t* out);
mluRet_t mluOpGlu(mluQueue_t q, const mluTensor_t* x, int64_t dim, const mluTensor_t* out);
mluRet_t mluOpGluBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, int64_t dim,
                          const mluTensor_t* out);
mluRet_t mluOpPrelu(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* weight, const mluTensor_t* out);
mluRet_t mluOpPreluBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* weight,
                            const mluTensor_t* grad_x, const mluTensor_t* grad_weight);

#ifdef __cplusplus
}
#endif

#endif /* MLU_ACTIVATIONS_H_ */
