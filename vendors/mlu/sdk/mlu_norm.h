/*
 * Normalization: one part of the simulated MLU's operator library, mlu_ops.h, which says the
 * library's conventions.
 */
#ifndef MLU_NORM_H_
#define MLU_NORM_H_

#include "mlu_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* normalization */
mluRet_t mluOpBatchNorm(mluQueue_t q, const mluTensor_t* input, const mluTensor_t* weight, const mluTensor_t* bias,
                        const mluTensor_t* running_mean, const mluTensor_t* running_var, bool training,
                        double momentum, double eps, const mluTensor_t* out, const mluTensor_t* save_mean,
                        const mluTensor_t* save_invstd);
mluRet_t mluOpBatchNormBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* input,
                                const mluTensor_t* weight, const mluTensor_t* running_mean,
                                const mluTensor_t* running_var, const mluTensor_t* save_mean,
                                const mluTensor_t* save_invstd, bool training, double eps,
                                const mluTensor_t* grad_input, const mluTensor_t* grad_weight,
                                const mluTensor_t* grad_bias);
mluRet_t mluOpLayerNorm(mluQueue_t q, const mluTensor_t* input, mluIntList_t normalized_shape, const mluTensor_t* weight,
                        const mluTensor_t* bias, double eps, const mluTensor_t* out, const mluTensor_t* mean,
                        const mluTensor_t* rstd);
mluRet_t mluOpLayerNormBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* input,
                                mluIntList_t normalized_shape, const mluTensor_t* mean, const mluTensor_t* rstd,
                                const mluTensor_t* weight, const mluTensor_t* bias, const mluTensor_t* grad_input,
                                const mluTensor_t* grad_weight, const mluTensor_t* grad_bias);

/* fused RMS normalization over the last dim: y = x * rsqrt(mean(x^2) + eps) * weight */
mluRet_t mluOpRmsNorm(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* weight, double eps, const mluTensor_t* out);
mluRet_t mluOpRmsNormBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* weight,
                              double eps, const mluTensor_t* grad_x, const mluTensor_t* grad_weight);

/* group normalization over (N, C, HxW) with `group` groups */
mluRet_t mluOpGroupNorm(mluQueue_t q, const mluTensor_t* input, const mluTensor_t* weight, const mluTensor_t* bias,
                        int64_t n, int64_t c, int64_t hxw, int64_t group, double eps, const mluTensor_t* out,
                        const mluTensor_t* mean, const mluTensor_t* rstd);
mluRet_t mluOpGroupNormBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* input,
                                const mluTensor_t* mean, const mluTensor_t* rstd, const mluTensor_t* weight,
                                int64_t n, int64_t c, int64_t hxw, int64_t group, const mluTensor_t* grad_input,
                                const mluTensor_t* grad_weight, const mluTensor_t* grad_bias);

#ifdef __cplusplus
}
#endif

#endif /* MLU_NORM_H_ */
