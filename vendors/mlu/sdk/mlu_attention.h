/*
 * Fused scaled-dot-product attention: one part of the simulated MLU's operator
 * library, mlu_ops.h, which says the library's conventions.
 *
 * q (B, H, L, E), k (B, H, S, E), v (B, H, S, Ev); bias (optional) broadcasts to
 * (B, H, L, S) and is added to the scores (a bool bias keeps where true).
 * scale: MLU_SCALAR_NONE for 1/sqrt(E). Causal masking keeps key j <= query i.
 * The chip accumulates in float32 and writes out in q's dtype and the row
 * log-sum-exp (B, H, L) in float32; the backward recomputes the probabilities
 * instead of keeping them. A row whose keys are all masked gives zeros.
 */
#ifndef MLU_ATTENTION_H_
#define MLU_ATTENTION_H_

#include "mlu_types.h"

#ifdef __cplusplus
extern "C" {
#endif

mluRet_t mluOpFusedAttention(mluQueue_t q, const mluTensor_t* query, const mluTensor_t* key,
                             const mluTensor_t* value, const mluTensor_t* bias, bool is_causal, mluScalar_t scale,
                             const mluTensor_t* out, const mluTensor_t* logsumexp);

/* Any of grad_query, grad_key, grad_value, grad_bias may be absent (data == NULL). */
mluRet_t mluOpFusedAttentionBackward(mluQueue_t q, const mluTensor_t* grad_out, const mluTensor_t* query,
                                     const mluTensor_t* key, const mluTensor_t* value, const mluTensor_t* bias,
                                     const mluTensor_t* logsumexp, bool is_causal, mluScalar_t scale,
                                     const mluTensor_t* grad_query, const mluTensor_t* grad_key,
                                     const mluTensor_t* grad_value, const mluTensor_t* grad_bias);

#ifdef __cplusplus
}
#endif

#endif /* MLU_ATTENTION_H_ */
