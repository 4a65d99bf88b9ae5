// Reductions, cumulative sums and products, norms and softmax.
#include "mlu_ops_internal.h"

#include <ATen/ops/_log_softmax_backward_data_native.h>

using namespace mlu_ops;

extern "C" {

mluRet_t mluOpReduceSum(mluQueue_t q, const mluTensor_t* x, mluIntList_t dims, bool keepdim, const mluTensor_t* out) {
  return launch("mluOpReduceSum", q, {x, out}, [x = *x, dims, keepdim, o = *out] {
    at::Tensor result = host_view(o);
    at::sum_out(result, host_view(x), dims_of(dims), keepdim, result.scalar_type());
  });
}

mluRet_t mluOpReduceMean(mluQueue_t q, const mluTensor_t* x, mluIntList_t dims, bool keepdim, const mluTensor_t* out) {
  return launch("mluOpReduceMean", q, {x, out}, [x = *x, dims, keepdim, o = *out] {
    at::Tensor result = host_view(o);
    at::mean_out(result, host_view(x), dims_of(dims), keepdim, result.scalar_type());
  });
}

mluRet_t mluOpReduceMax(mluQueue_t q, const mluTensor_t* x, mluIntList_t dims, bool keepdim, const mluTensor_t* out) {
  return launch("mluOpReduceMax", q, {x, out}, [x = *x, dims, keepdim, o = *out] {
    at::amax_out(lvalue(host_view(o)), host_view(x), ints(dims), keepdim);
  });
}

mluRet_t mluOpReduceMin(mluQueue_t q, const mluTensor_t* x, mluIntList_t dims, bool keepdim, const mluTensor_t* out) {
  return launch("mluOpReduceMin", q, {x, out}, [x = *x, dims, keepdim, o = *out] {
    at::amin_out(lvalue(host_view(o)), host_view(x), ints(dims), keepdim);
  });
}

mluRet_t mluOpArgMax(mluQueue_t q, const mluTensor_t* x, mluIntList_t dim, bool keepdim, const mluTensor_t* out) {
  return launch("mluOpArgMax", q, {x, out}, [x = *x, dim, keepdim, o = *out] {
    at::argmax_out(lvalue(host_view(o)), host_view(x), optional_int(dim), keepdim);
  });
}

mluRet_t mluOpAll(mluQueue_t q, const mluTensor_t* x, mluIntList_t dim, bool keepdim, const mluTensor_t* out) {
  return launch("mluOpAll", q, {x, out}, [x = *x, dim, keepdim, o = *out] {
    if (dim.count < 1) {
      at::all_out(lvalue(host_view(o)), host_view(x));
    } else {
      at::all_out(lvalue(host_view(o)), host_view(x), dim.values[0], keepdim);
    }
  });
}

mluRet_t mluOpAny(mluQueue_t q, const mluTensor_t* x, mluIntList_t dim, bool keepdim, const mluTensor_t* out) {
  return launch("mluOpAny", q, {x, out}, [x = *x, dim, keepdim, o = *out] {
    store(o, dim.count < 1 ? at::any(host_view(x)) : at::any(host_view(x), dim.values[0], keepdim));
  });
}

mluRet_t mluOpAnyAll(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out) {
  return launch("mluOpAnyAll", q, {x, out}, [x = *x, o = *out] { store(o, at::any(host_view(x))); });
}

mluRet_t mluOpReduceProd(mluQueue_t q, const mluTensor_t* x, int64_t dim, bool keepdim, const mluTensor_t* out) {
  return launch("mluOpReduceProd", q, {x, out}, [x = *x, dim, keepdim, o = *out] {
    store(o, at::prod(host_view(x), dim, keepdim, aten_dtype(o.dtype)));
  });
}

mluRet_t mluOpArgMin(mluQueue_t q, const mluTensor_t* x, mluIntList_t dim, bool keepdim, const mluTensor_t* out) {
  return launch("mluOpArgMin", q, {x, out}, [x = *x, dim, keepdim, o = *out] {
    store(o, at::argmin(host_view(x), optional_int(dim), keepdim));
  });
}

mluRet_t mluOpLogSumExp(mluQueue_t q, const mluTensor_t* x, mluIntList_t dims, bool keepdim, const mluTensor_t* out) {
  return launch("mluOpLogSumExp", q, {x, out},
                [x = *x, dims, keepdim, o = *out] { store(o, at::logsumexp(host_view(x), ints(dims), keepdim)); });
}

mluRet_t mluOpCumprod(mluQueue_t q, const mluTensor_t* x, int64_t dim, const mluTensor_t* out) {
  return launch("mluOpCumprod", q, {x, out},
                [x = *x, dim, o = *out] { store(o, at::cumprod(host_view(x), dim, aten_dtype(o.dtype))); });
}

#define MLU_REDUCE_WITH_INDICES(NAME, ATEN)                                                                    \
  mluRet_t NAME(mluQueue_t q, const mluTensor_t* x, int64_t dim, bool keepdim, const mluTensor_t* values,      \
                const mluTensor_t* indices) {                                                                  \
    return launch(#NAME, q, {x, values, indices}, [x = *x, dim, keepdim, v = *values, i = *indices] {           \
      auto [value, index] = ATEN(host_view(x), dim, keepdim);                                                  \
      store(v, value);                                                                                         \
      store(i, index);                                                                                         \
    });                                                                                                        \
  }

MLU_REDUCE_WITH_INDICES(mluOpMaxDim, at::max)
MLU_REDUCE_WITH_INDICES(mluOpMinDim, at::min)

mluRet_t mluOpVectorNorm(mluQueue_t q, const mluTensor_t* x, mluScalar_t p, mluIntList_t dims, bool keepdim,
                         const mluTensor_t* out) {
  return launch("mluOpVectorNorm", q, {x, out}, [x = *x, p, dims, keepdim, o = *out] {
    const at::Scalar ord = p.kind == MLU_SCALAR_NONE ? at::Scalar(2.0) : aten_scalar(p);
    store(o, at::linalg_vector_norm(host_view(x), ord, dims_of(dims), keepdim, aten_dtype(o.dtype)));
  });
}

// The scratch buffer holds the running sums in float32, whatever the output dtype.
mluRet_t mluOpCumsumGetWorkspaceSize(const mluTensor_t* x, int64_t, const mluTensor_t*, size_t* bytes) {
  if (x == nullptr || bytes == nullptr) return fail(MLU_RET_ERR_INVALID_VALUE, "mluOpCumsumGetWorkspaceSize: null argument");
  *bytes = static_cast<size_t>(numel(*x)) * sizeof(float);
  return MLU_RET_SUCCESS;
}

mluRet_t mluOpCumsum(mluQueue_t q, const mluTensor_t* x, int64_t dim, void* workspace, size_t workspace_bytes,
                     const mluTensor_t* out) {
  const size_t needed = static_cast<size_t>(numel(*x)) * sizeof(float);
  if (needed > 0) {
    if (workspace_bytes < needed || !mlu_sim::chip().resident(workspace, needed)) {
      return fail(MLU_RET_ERR_INVALID_VALUE, "mluOpCumsum: the workspace must be " + std::to_string(needed) +
                                                 " bytes of device memory (see mluOpCumsumGetWorkspaceSize)");
    }
  }
  return launch("mluOpCumsum", q, {x, out}, [x = *x, dim, workspace, o = *out] {
    if (numel(x) == 0) return;
    at::Tensor sums = at::from_blob(workspace, at::IntArrayRef(x.shape, x.dim), at::TensorOptions().dtype(at::kFloat));
    at::cumsum_out(sums, host_view(x), dim, at::kFloat);
    host_view(o).copy_(sums);
  });
}

// ---- softmax ----------------------------------------------------------------

// softmax and log_softmax take the same arguments and differ only in the ATen
// kernels; half_to_float when out is wider than x (a half input, a float result).
#define MLU_SOFTMAX(NAME, ATEN)                                                                                    \
  mluRet_t NAME(mluQueue_t q, const mluTensor_t* x, int64_t dim, const mluTensor_t* out) {                         \
    return launch(#NAME, q, {x, out}, [x = *x, dim, o = *out] {                                                    \
      at::ATEN##_out(lvalue(host_view(o)), host_view(x), dim, /*half_to_float=*/x.dtype != o.dtype);               \
    });                                                                                                            \
  }                                                                                                                \
  mluRet_t NAME##Backward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* y, int64_t dim,                \
                          const mluTensor_t* out) {                                                                \
    return launch(#NAME "Backward", q, {grad, y, out}, [g = *grad, y = *y, dim, o = *out] {                        \
      at::ATEN##_backward_data_out(lvalue(host_view(o)), host_view(g), host_view(y), dim, aten_dtype(o.dtype));    \
    });                                                                                                            \
  }

MLU_SOFTMAX(mluOpSoftmax, _softmax)
MLU_SOFTMAX(mluOpLogSoftmax, _log_softmax)

}  // extern "C"
