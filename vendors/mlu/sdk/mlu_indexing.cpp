// Shapes and indexing: cat, padding, index_select, gather and scatter, index_add,
// the embedding's gradient.
#include "mlu_ops_internal.h"

#include <vector>

using namespace mlu_ops;

extern "C" {

mluRet_t mluOpCat(mluQueue_t q, mluTensorList_t tensors, int64_t dim, const mluTensor_t* out) {
  if (tensors.count < 0 || (tensors.count > 0 && tensors.tensors == nullptr)) {
    return fail(MLU_RET_ERR_INVALID_VALUE, "mluOpCat: invalid tensor list");
  }
  for (int32_t i = 0; i < tensors.count; ++i) {
    const mluRet_t ret = validate("mluOpCat", &tensors.tensors[i], true);
    if (ret != MLU_RET_SUCCESS) return ret;
  }
  // The list is the caller's: copy the descriptors for the queued work.
  std::vector<mluTensor_t> inputs(tensors.tensors, tensors.tensors + tensors.count);
  return launch("mluOpCat", q, {out}, [inputs = std::move(inputs), dim, o = *out] {
    std::vector<at::Tensor> views;
    views.reserve(inputs.size());
    for (const mluTensor_t& t : inputs) views.push_back(t.data ? host_view(t) : at::empty({0}, aten_dtype(t.dtype)));
    at::cat_out(lvalue(host_view(o)), views, dim);
  });
}

// One padding unit for 1-D, 2-D and 3-D: the padding list's length picks it.
#define MLU_PAD(NAME, ATEN)                                                                                      \
  mluRet_t NAME(mluQueue_t q, const mluTensor_t* x, mluIntList_t padding, const mluTensor_t* out) {              \
    if (padding.count != 2 && padding.count != 4 && padding.count != 6) {                                        \
      return fail(MLU_RET_ERR_INVALID_VALUE, #NAME ": padding must have 2, 4 or 6 entries");                     \
    }                                                                                                            \
    return launch(#NAME, q, {x, out}, [x = *x, padding, o = *out] {                                              \
      const at::Tensor v = host_view(x);                                                                         \
      store(o, padding.count == 2   ? at::ATEN##1d(v, ints(padding))                                             \
               : padding.count == 4 ? at::ATEN##2d(v, ints(padding))                                             \
                                    : at::ATEN##3d(v, ints(padding)));                                           \
    });                                                                                                          \
  }                                                                                                              \
  mluRet_t NAME##Backward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluIntList_t padding,     \
                          const mluTensor_t* out) {                                                              \
    if (padding.count != 2 && padding.count != 4 && padding.count != 6) {                                        \
      return fail(MLU_RET_ERR_INVALID_VALUE, #NAME "Backward: padding must have 2, 4 or 6 entries");             \
    }                                                                                                            \
    return launch(#NAME "Backward", q, {grad, x, out}, [g = *grad, x = *x, padding, o = *out] {                  \
      const at::Tensor dy = host_view(g), v = host_view(x);                                                      \
      store(o, padding.count == 2   ? at::ATEN##1d_backward(dy, v, ints(padding))                                \
               : padding.count == 4 ? at::ATEN##2d_backward(dy, v, ints(padding))                                \
                                    : at::ATEN##3d_backward(dy, v, ints(padding)));                              \
    });                                                                                                          \
  }

MLU_PAD(mluOpReflectionPad, reflection_pad)
MLU_PAD(mluOpReplicationPad, replication_pad)

mluRet_t mluOpIndexSelect(mluQueue_t q, const mluTensor_t* x, int64_t dim, const mluTensor_t* index,
                          const mluTensor_t* out) {
  return launch("mluOpIndexSelect", q, {x, index, out}, [x = *x, dim, i = *index, o = *out] {
    at::index_select_out(lvalue(host_view(o)), host_view(x), dim, host_view(i));
  });
}

mluRet_t mluOpEmbeddingBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* indices, int64_t num_weights,
                                int64_t padding_idx, bool scale_grad_by_freq, const mluTensor_t* out) {
  return launch("mluOpEmbeddingBackward", q, {grad, indices, out},
                [g = *grad, i = *indices, num_weights, padding_idx, scale_grad_by_freq, o = *out] {
                  store(o, at::embedding_dense_backward(host_view(g), host_view(i), num_weights, padding_idx,
                                                        scale_grad_by_freq));
                });
}

mluRet_t mluOpGather(mluQueue_t q, const mluTensor_t* x, int64_t dim, const mluTensor_t* index, const mluTensor_t* out) {
  return launch("mluOpGather", q, {x, index, out}, [x = *x, dim, i = *index, o = *out] {
    at::gather_out(lvalue(host_view(o)), host_view(x), dim, host_view(i));
  });
}

mluRet_t mluOpScatter(mluQueue_t q, const mluTensor_t* x, int64_t dim, const mluTensor_t* index, const mluTensor_t* src,
                      const mluTensor_t* out) {
  return launch("mluOpScatter", q, {x, index, src, out}, [x = *x, dim, i = *index, s = *src, o = *out] {
    store(o, at::scatter(host_view(x), dim, host_view(i), host_view(s)));
  });
}

mluRet_t mluOpScatterValue(mluQueue_t q, const mluTensor_t* x, int64_t dim, const mluTensor_t* index,
                           mluScalar_t value, const mluTensor_t* out) {
  return launch("mluOpScatterValue", q, {x, index, out}, [x = *x, dim, i = *index, value, o = *out] {
    store(o, at::scatter(host_view(x), dim, host_view(i), aten_scalar(value)));
  });
}

mluRet_t mluOpScatterAdd(mluQueue_t q, const mluTensor_t* x, int64_t dim, const mluTensor_t* index,
                         const mluTensor_t* src, const mluTensor_t* out) {
  return launch("mluOpScatterAdd", q, {x, index, src, out}, [x = *x, dim, i = *index, s = *src, o = *out] {
    store(o, at::scatter_add(host_view(x), dim, host_view(i), host_view(s)));
  });
}

mluRet_t mluOpIndexAdd(mluQueue_t q, const mluTensor_t* x, int64_t dim, const mluTensor_t* index,
                       const mluTensor_t* source, mluScalar_t alpha, const mluTensor_t* out) {
  return launch("mluOpIndexAdd", q, {x, index, source, out}, [x = *x, dim, i = *index, s = *source, alpha, o = *out] {
    store(o, at::index_add(host_view(x), dim, host_view(i), host_view(s), aten_scalar(alpha)));
  });
}

}  // extern "C"
