// Matrix products and the fully connected layer.
#include "mlu_ops_internal.h"

using namespace mlu_ops;

extern "C" {

mluRet_t mluOpMatMul(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out) {
  return launch("mluOpMatMul", q, {a, b, out},
                [a = *a, b = *b, o = *out] { at::mm_out(lvalue(host_view(o)), host_view(a), host_view(b)); });
}

mluRet_t mluOpAddmm(mluQueue_t q, const mluTensor_t* bias, const mluTensor_t* a, const mluTensor_t* b, mluScalar_t beta,
                    mluScalar_t alpha, const mluTensor_t* out) {
  return launch("mluOpAddmm", q, {bias, a, b, out}, [c = *bias, a = *a, b = *b, beta, alpha, o = *out] {
    at::addmm_out(lvalue(host_view(o)), host_view(c), host_view(a), host_view(b), aten_scalar(beta), aten_scalar(alpha));
  });
}

mluRet_t mluOpBatchMatMul(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out) {
  return launch("mluOpBatchMatMul", q, {a, b, out},
                [a = *a, b = *b, o = *out] { at::bmm_out(lvalue(host_view(o)), host_view(a), host_view(b)); });
}

mluRet_t mluOpBaddbmm(mluQueue_t q, const mluTensor_t* bias, const mluTensor_t* a, const mluTensor_t* b, mluScalar_t beta,
                      mluScalar_t alpha, const mluTensor_t* out) {
  return launch("mluOpBaddbmm", q, {bias, a, b, out}, [c = *bias, a = *a, b = *b, beta, alpha, o = *out] {
    at::baddbmm_out(lvalue(host_view(o)), host_view(c), host_view(a), host_view(b), aten_scalar(beta),
                    aten_scalar(alpha));
  });
}

mluRet_t mluOpLinear(mluQueue_t q, const mluTensor_t* input, const mluTensor_t* weight,
                     const mluTensor_t* bias, const mluTensor_t* out) {
  return launch("mluOpLinear", q, {input, weight, bias, out}, [x = *input, w = *weight, b = *bias, o = *out] {
    store(o, at::linear(host_view(x), host_view(w), optional_host_view(b)));
  });
}

}  // extern "C"
