// The checks every operator of the simulated MLU's library makes, and its
// out-of-line helpers (mlu_ops_internal.h).
#include "mlu_ops_internal.h"

#include <ATen/native/TensorFactories.h>

namespace mlu_ops {

mluRet_t validate(const char* op, const mluTensor_t* t, bool compute) {
  if (t == nullptr) return fail(MLU_RET_ERR_INVALID_VALUE, std::string(op) + ": null tensor descriptor");
  if (t->data == nullptr) return MLU_RET_SUCCESS;  // an absent optional, or an empty tensor
  if (t->dim < 0 || t->dim > MLU_MAX_DIMS) {
    return fail(MLU_RET_ERR_NOT_SUPPORTED, std::string(op) + ": " + std::to_string(t->dim) + " dims (max " +
                                               std::to_string(MLU_MAX_DIMS) + ")");
  }
  if (aten_dtype(t->dtype) == at::ScalarType::Undefined || (compute && !compute_supports(t->dtype))) {
    return fail(MLU_RET_ERR_NOT_SUPPORTED, std::string(op) + ": dtype " +
                                               std::string(c10::toString(aten_dtype(t->dtype))) +
                                               " is not supported by the MLU compute units");
  }
  const std::string where = alu::residency_error(mlu_sim::chip(), t->data, aten_dtype(t->dtype),
                                                 at::IntArrayRef(t->shape, t->dim), at::IntArrayRef(t->stride, t->dim));
  if (!where.empty()) return fail(MLU_RET_ERR_INVALID_ADDRESS, std::string(op) + ": " + where);
  return MLU_RET_SUCCESS;
}

at::Tensor wrapped(mluScalar_t s) { return at::native::wrapped_scalar_tensor(aten_scalar(s)); }

}  // namespace mlu_ops
