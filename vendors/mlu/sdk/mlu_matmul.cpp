// Matrix products and the fully connected layer.
#include "mlu_ops_internal.h"

using namespace mlu_ops;

namespace {

// mm and bmm, addmm and baddbmm: the batched op is the same call on operands
// with one more dim, so each pair shares its launch and differs in the kernel.
using Product = at::Tensor& (*)(at::Tensor&, const at::Tensor&, const at::Tensor&);
using ScaledSum = at::Tensor& (*)(at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&,
                                  const at::Scalar&, const at::Scalar&);

// out = a @ b
mluRet_t product(const char* op, Product kernel, mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b,
                 const mluTensor_t* out) {
  return launch(op, q, {a, b, out},
                [kernel, a = *a, b = *b, o = *out] { kernel(lvalue(host_view(o)), host_view(a), host_view(b)); });
}

// out = beta * bias + alpha * (a @ b)
mluRet_t scaled_sum(const char* op, ScaledSum kernel, mluQueue_t q, const mluTensor_t* bias, const mluTensor_t* a,
                    const mluTensor_t* b, mluScalar_t beta, mluScalar_t alpha, const mluTensor_t* out) {
  return launch(op, q, {bias, a, b, out}, [kernel, c = *bias, a = *a, b = *b, beta, alpha, o = *out] {
    kernel(lvalue(host_view(o)), host_view(c), host_view(a), host_view(b), aten_scalar(beta), aten_scalar(alpha));
  });
}

}  // namespace

extern "C" {

mluRet_t mluOpMatMul(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out) {
  return product("mluOpMatMul", at::mm_out, q, a, b, out);
}

mluRet_t mluOpBatchMatMul(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out) {
  return product("mluOpBatchMatMul", at::bmm_out, q, a, b, out);
}

mluRet_t mluOpAddmm(mluQueue_t q, const mluTensor_t* bias, const mluTensor_t* a, const mluTensor_t* b, mluScalar_t beta,
                    mluScalar_t alpha, const mluTensor_t* out) {
  return scaled_sum("mluOpAddmm", at::addmm_out, q, bias, a, b, beta, alpha, out);
}

mluRet_t mluOpBaddbmm(mluQueue_t q, const mluTensor_t* bias, const mluTensor_t* a, const mluTensor_t* b,
                      mluScalar_t beta, mluScalar_t alpha, const mluTensor_t* out) {
  return scaled_sum("mluOpBaddbmm", at::baddbmm_out, q, bias, a, b, beta, alpha, out);
}

mluRet_t mluOpLinear(mluQueue_t q, const mluTensor_t* input, const mluTensor_t* weight,
                     const mluTensor_t* bias, const mluTensor_t* out) {
  return launch("mluOpLinear", q, {input, weight, bias, out}, [x = *input, w = *weight, b = *bias, o = *out] {
    store(o, at::linear(host_view(x), host_view(w), optional_host_view(b)));
  });
}

}  // extern "C"
