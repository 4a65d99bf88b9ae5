/*
 * Shapes and indexing (cat, padding, index_select, gather and scatter): one part of the simulated
 * MLU's operator library, mlu_ops.h, which says the library's conventions.
 */
#ifndef MLU_INDEXING_H_
#define MLU_INDEXING_H_

#include "mlu_types.h"

#ifdef __cplusplus
extern "C" {
#endif

mluRet_t mluOpCat(mluQueue_t q, mluTensorList_t tensors, int64_t dim, const mluTensor_t* out);

/* indexing */
mluRet_t mluOpIndexSelect(mluQueue_t q, const mluTensor_t* x, int64_t dim, const mluTensor_t* index,
                          const mluTensor_t* out);
mluRet_t mluOpEmbeddingBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* indices, int64_t num_weights,
                                int64_t padding_idx, bool scale_grad_by_freq, const mluTensor_t* out);
/* padding: 2, 4 or 6 entries (last dim first) */
mluRet_t mluOpReflectionPad(mluQueue_t q, const mluTensor_t* x, mluIntList_t padding, const mluTensor_t* out);
mluRet_t mluOpReflectionPadBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluIntList_t padding,
                                    const mluTensor_t* out);
mluRet_t mluOpReplicationPad(mluQueue_t q, const mluTensor_t* x, mluIntList_t padding, const mluTensor_t* out);
mluRet_t mluOpReplicationPadBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                     mluIntList_t padding, const mluTensor_t* out);

/* gather and scatter along dim (int64 indices) */
mluRet_t mluOpGather(mluQueue_t q, const mluTensor_t* x, int64_t dim, const mluTensor_t* index, const mluTensor_t* out);
mluRet_t mluOpScatter(mluQueue_t q, const mluTensor_t* x, int64_t dim, const mluTensor_t* index, const mluTensor_t* src,
                      const mluTensor_t* out);
mluRet_t mluOpScatterValue(mluQueue_t q, const mluTensor_t* x, int64_t dim, const mluTensor_t* index,
                           mluScalar_t value, const mluTensor_t* out);
mluRet_t mluOpScatterAdd(mluQueue_t q, const mluTensor_t* x, int64_t dim, const mluTensor_t* index,
                         const mluTensor_t* src, const mluTensor_t* out);
mluRet_t mluOpIndexAdd(mluQueue_t q, const mluTensor_t* x, int64_t dim, const mluTensor_t* index,
                       const mluTensor_t* source, mluScalar_t alpha, const mluTensor_t* out);

#ifdef __cplusplus
}
#endif

#endif /* MLU_INDEXING_H_ */
