/*
 * Convolution: one part of the simulated MLU's operator library, mlu_ops.h, which says the
 * library's conventions.
 */
#ifndef MLU_CONV_H_
#define MLU_CONV_H_

#include "mlu_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* NCHW; output_mask bit i: compute output i */
mluRet_t mluOpConvolution(mluQueue_t q, const mluTensor_t* input, const mluTensor_t* weight, const mluTensor_t* bias,
                          mluIntList_t stride, mluIntList_t padding, mluIntList_t dilation, bool transposed,
                          mluIntList_t output_padding, int64_t groups, const mluTensor_t* out);
mluRet_t mluOpConvolutionBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* input,
                                  const mluTensor_t* weight, mluIntList_t stride, mluIntList_t padding,
                                  mluIntList_t dilation, bool transposed, mluIntList_t output_padding, int64_t groups,
                                  const mluTensor_t* grad_input, const mluTensor_t* grad_weight,
                                  const mluTensor_t* grad_bias);

#ifdef __cplusplus
}
#endif

#endif /* MLU_CONV_H_ */
