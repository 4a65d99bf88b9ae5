/*
 * Losses: one part of the simulated MLU's operator library, mlu_ops.h, which says the library's
 * conventions.
 */
#ifndef MLU_LOSSES_H_
#define MLU_LOSSES_H_

#include "mlu_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* reduction: 0 none, 1 mean, 2 sum */
mluRet_t mluOpNllLoss(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* target, const mluTensor_t* weight,
                      int64_t reduction, int64_t ignore_index, const mluTensor_t* out, const mluTensor_t* total_weight);
mluRet_t mluOpNllLossBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* target,
                              const mluTensor_t* weight, int64_t reduction, int64_t ignore_index,
                              const mluTensor_t* total_weight, const mluTensor_t* out);

mluRet_t mluOpMseLoss(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* target, int64_t reduction,
                      const mluTensor_t* out);
mluRet_t mluOpMseLossBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* target,
                              int64_t reduction, const mluTensor_t* out);
mluRet_t mluOpSmoothL1Loss(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* target, int64_t reduction,
                           double beta, const mluTensor_t* out);
mluRet_t mluOpSmoothL1LossBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                   const mluTensor_t* target, int64_t reduction, double beta, const mluTensor_t* out);
mluRet_t mluOpHuberLoss(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* target, int64_t reduction, double delta,
                        const mluTensor_t* out);
mluRet_t mluOpHuberLossBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* target,
                                int64_t reduction, double delta, const mluTensor_t* out);
mluRet_t mluOpBinaryCrossEntropy(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* target,
                                 const mluTensor_t* weight, int64_t reduction, const mluTensor_t* out);
mluRet_t mluOpBinaryCrossEntropyBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                         const mluTensor_t* target, const mluTensor_t* weight, int64_t reduction,
                                         const mluTensor_t* out);
/* x (N, C, H, W), target (N, H, W) int64 class indices */
mluRet_t mluOpNllLoss2d(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* target, const mluTensor_t* weight,
                        int64_t reduction, int64_t ignore_index, const mluTensor_t* out,
                        const mluTensor_t* total_weight);
mluRet_t mluOpNllLoss2dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* target,
                                const mluTensor_t* weight, int64_t reduction, int64_t ignore_index,
                                const mluTensor_t* total_weight, const mluTensor_t* out);
mluRet_t mluOpMultiMarginLoss(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* target, mluScalar_t p,
                              mluScalar_t margin, const mluTensor_t* weight, int64_t reduction,
                              const mluTensor_t* out);
mluRet_t mluOpMultiMarginLossBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                      const mluTensor_t* target, mluScalar_t p, mluScalar_t margin,
                                      const mluTensor_t* weight, int64_t reduction, const mluTensor_t* out);
mluRet_t mluOpMultilabelMarginLoss(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* target, int64_t reduction,
                                   const mluTensor_t* out, const mluTensor_t* is_target);
mluRet_t mluOpMultilabelMarginLossBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                           const mluTensor_t* target, int64_t reduction, const mluTensor_t* is_target,
                                           const mluTensor_t* out);

#ifdef __cplusplus
}
#endif

#endif /* MLU_LOSSES_H_ */
