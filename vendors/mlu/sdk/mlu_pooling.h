/*
 * Pooling: one part of the simulated MLU's operator library, mlu_ops.h, which says the library's
 * conventions.
 */
#ifndef MLU_POOLING_H_
#define MLU_POOLING_H_

#include "mlu_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* max pooling; indices: the input element each output came from */
mluRet_t mluOpMaxPool2d(mluQueue_t q, const mluTensor_t* x, mluIntList_t kernel, mluIntList_t stride,
                        mluIntList_t padding, mluIntList_t dilation, bool ceil_mode, const mluTensor_t* out,
                        const mluTensor_t* indices);
mluRet_t mluOpMaxPool3d(mluQueue_t q, const mluTensor_t* x, mluIntList_t kernel, mluIntList_t stride,
                        mluIntList_t padding, mluIntList_t dilation, bool ceil_mode, const mluTensor_t* out,
                        const mluTensor_t* indices);
mluRet_t mluOpMaxPool2dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluIntList_t kernel,
                                mluIntList_t stride, mluIntList_t padding, mluIntList_t dilation, bool ceil_mode,
                                const mluTensor_t* indices, const mluTensor_t* out);
mluRet_t mluOpMaxPool3dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluIntList_t kernel,
                                mluIntList_t stride, mluIntList_t padding, mluIntList_t dilation, bool ceil_mode,
                                const mluTensor_t* indices, const mluTensor_t* out);

/* average pooling; divisor_override: count 1 for a divisor, -1 for none */
mluRet_t mluOpAvgPool2d(mluQueue_t q, const mluTensor_t* x, mluIntList_t kernel, mluIntList_t stride,
                        mluIntList_t padding, bool ceil_mode, bool count_include_pad, mluIntList_t divisor_override,
                        const mluTensor_t* out);
mluRet_t mluOpAvgPool3d(mluQueue_t q, const mluTensor_t* x, mluIntList_t kernel, mluIntList_t stride,
                        mluIntList_t padding, bool ceil_mode, bool count_include_pad, mluIntList_t divisor_override,
                        const mluTensor_t* out);
mluRet_t mluOpAvgPool2dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluIntList_t kernel,
                                mluIntList_t stride, mluIntList_t padding, bool ceil_mode, bool count_include_pad,
                                mluIntList_t divisor_override, const mluTensor_t* out);
mluRet_t mluOpAvgPool3dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluIntList_t kernel,
                                mluIntList_t stride, mluIntList_t padding, bool ceil_mode, bool count_include_pad,
                                mluIntList_t divisor_override, const mluTensor_t* out);

/* adaptive pooling to output_size */
mluRet_t mluOpAdaptiveAvgPool2d(mluQueue_t q, const mluTensor_t* x, mluIntList_t output_size, const mluTensor_t* out);
mluRet_t mluOpAdaptiveAvgPool3d(mluQueue_t q, const mluTensor_t* x, mluIntList_t output_size, const mluTensor_t* out);
mluRet_t mluOpAdaptiveAvgPool2dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                        const mluTensor_t* out);
mluRet_t mluOpAdaptiveAvgPool3dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                        const mluTensor_t* out);
mluRet_t mluOpAdaptiveMaxPool2d(mluQueue_t q, const mluTensor_t* x, mluIntList_t output_size, const mluTensor_t* out,
                                const mluTensor_t* indices);
mluRet_t mluOpAdaptiveMaxPool3d(mluQueue_t q, const mluTensor_t* x, mluIntList_t output_size, const mluTensor_t* out,
                                const mluTensor_t* indices);
mluRet_t mluOpAdaptiveMaxPool2dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                        const mluTensor_t* indices, const mluTensor_t* out);
mluRet_t mluOpAdaptiveMaxPool3dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                        const mluTensor_t* indices, const mluTensor_t* out);

/* fractional max pooling; samples (N, C, 2): the pooling regions' offsets in [0, 1) */
mluRet_t mluOpFractionalMaxPool2d(mluQueue_t q, const mluTensor_t* x, mluIntList_t kernel, mluIntList_t output_size,
                                  const mluTensor_t* samples, const mluTensor_t* out, const mluTensor_t* indices);
mluRet_t mluOpFractionalMaxPool2dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                          mluIntList_t kernel, mluIntList_t output_size, const mluTensor_t* indices,
                                          const mluTensor_t* out);
#ifdef __cplusplus
}
#endif

#endif /* MLU_POOLING_H_ */
