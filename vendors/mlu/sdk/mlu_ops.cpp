// The simulated MLU's operator library. Arguments are validated on the host at
// once (device memory, extents, dtypes the chip has); the computation runs on
// the queue's worker thread. The simulator's "ALU" is ATen's CPU kernels,
// applied to host views of the simulated device memory.
#include "mlu_ops.h"

#include <ATen/ATen.h>
#include <ATen/ops/_log_softmax_backward_data_native.h>
#include <ATen/native/TensorFactories.h>

#include <string>

#include "alu.h"
#include "alu_torchvision.h"
#include "mlu_device.h"

namespace {

using mlu_sim::fail;
namespace alu = torch_fl::sim::alu;

c10::ScalarType aten_dtype(mluDataType_t dtype) {
  switch (dtype) {
    case MLU_DTYPE_BOOL: return at::kBool;
    case MLU_DTYPE_UINT8: return at::kByte;
    case MLU_DTYPE_INT8: return at::kChar;
    case MLU_DTYPE_INT16: return at::kShort;
    case MLU_DTYPE_INT32: return at::kInt;
    case MLU_DTYPE_INT64: return at::kLong;
    case MLU_DTYPE_HALF: return at::kHalf;
    case MLU_DTYPE_BFLOAT16: return at::kBFloat16;
    case MLU_DTYPE_FLOAT: return at::kFloat;
    case MLU_DTYPE_DOUBLE: return at::kDouble;
    case MLU_DTYPE_COMPLEX_FLOAT: return at::kComplexFloat;
    case MLU_DTYPE_COMPLEX_DOUBLE: return at::kComplexDouble;
    default: return at::ScalarType::Undefined;
  }
}

// The compute units have no float64 or complex arithmetic; the copy engine moves any type.
bool compute_supports(mluDataType_t dtype) {
  return dtype != MLU_DTYPE_DOUBLE && dtype != MLU_DTYPE_COMPLEX_FLOAT && dtype != MLU_DTYPE_COMPLEX_DOUBLE &&
         aten_dtype(dtype) != at::ScalarType::Undefined;
}

int64_t numel(const mluTensor_t& t) {
  int64_t n = 1;
  for (int i = 0; i < t.dim; ++i) n *= t.shape[i];
  return n;
}

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

// A CPU tensor aliasing simulated device memory; only built on the worker thread.
at::Tensor host_view(const mluTensor_t& t) {
  return alu::host_view(t.data, aten_dtype(t.dtype), at::IntArrayRef(t.shape, t.dim), at::IntArrayRef(t.stride, t.dim));
}

std::optional<at::Tensor> optional_host_view(const mluTensor_t& t) {
  if (t.data == nullptr) return std::nullopt;
  return host_view(t);
}

// ATen's *_out functions take the output as a non-const lvalue; a host view
// is a temporary that lives until the end of the full expression.
at::Tensor& lvalue(at::Tensor&& tensor) { return tensor; }

at::Scalar aten_scalar(mluScalar_t s) {
  switch (s.kind) {
    case MLU_SCALAR_INT: return at::Scalar(s.i);
    case MLU_SCALAR_BOOL: return at::Scalar(s.i != 0);
    default: return at::Scalar(s.f);
  }
}

std::optional<at::Scalar> optional_scalar(mluScalar_t s) {
  if (s.kind == MLU_SCALAR_NONE) return std::nullopt;
  return aten_scalar(s);
}

at::IntArrayRef ints(const mluIntList_t& list) { return at::IntArrayRef(list.values, std::max(list.count, 0)); }

std::optional<int64_t> optional_int(const mluIntList_t& list) {
  if (list.count < 1) return std::nullopt;
  return list.values[0];
}

const char* approximation_name(mluGeluApproximation_t a) { return a == MLU_GELU_TANH ? "tanh" : "none"; }

// Copies a result computed into a fresh tensor into the caller's output view.
void store(const mluTensor_t& out, const at::Tensor& result) {
  if (out.data != nullptr) alu::store(host_view(out), result);
}

at::Tensor wrapped(mluScalar_t s) { return at::native::wrapped_scalar_tensor(aten_scalar(s)); }

at::OptionalIntArrayRef dims_of(const mluIntList_t& dims) {
  if (dims.count < 0) return std::nullopt;
  return at::IntArrayRef(dims.values, dims.count);
}

// Validates every tensor now, then queues `body` on q. `compute` is false for
// the copy engine, which moves any dtype.
template <class Body>
mluRet_t launch(const char* op, mluQueue_t q, std::initializer_list<const mluTensor_t*> tensors, Body body,
                bool compute = true) {
  if (q == nullptr) return fail(MLU_RET_ERR_INVALID_VALUE, std::string(op) + ": null queue");
  for (const mluTensor_t* t : tensors) {
    const mluRet_t ret = validate(op, t, compute);
    if (ret != MLU_RET_SUCCESS) return ret;
  }
  mlu_sim::enqueue(q, alu::task(op, std::move(body)));
  return MLU_RET_SUCCESS;
}


}  // namespace

extern "C" {

mluRet_t mluOpCopyStrided(mluQueue_t q, const mluTensor_t* dst, const mluTensor_t* src) {
  return launch("mluOpCopyStrided", q, {dst, src}, [d = *dst, s = *src] { host_view(d).copy_(host_view(s)); },
                /*compute=*/false);
}

#define MLU_BINARY_ALPHA(NAME, ATEN)                                                               \
  mluRet_t NAME(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, mluScalar_t alpha,       \
                const mluTensor_t* out) {                                                          \
    return launch(#NAME, q, {a, b, out}, [a = *a, b = *b, alpha, o = *out] {                       \
      ATEN(lvalue(host_view(o)), host_view(a), host_view(b), aten_scalar(alpha));                          \
    });                                                                                            \
  }                                                                                                \
  mluRet_t NAME##Scalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, mluScalar_t alpha,      \
                        const mluTensor_t* out) {                                                  \
    return launch(#NAME "Scalar", q, {a, out}, [a = *a, b, alpha, o = *out] {                      \
      ATEN(lvalue(host_view(o)), host_view(a), wrapped(b), aten_scalar(alpha));                            \
    });                                                                                            \
  }

#define MLU_BINARY(NAME, ATEN)                                                                       \
  mluRet_t NAME(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out) {  \
    return launch(#NAME, q, {a, b, out},                                                             \
                  [a = *a, b = *b, o = *out] { ATEN(lvalue(host_view(o)), host_view(a), host_view(b)); });   \
  }                                                                                                  \
  mluRet_t NAME##Scalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t b, const mluTensor_t* out) { \
    return launch(#NAME "Scalar", q, {a, out},                                                       \
                  [a = *a, b, o = *out] { ATEN(lvalue(host_view(o)), host_view(a), wrapped(b)); });          \
  }

MLU_BINARY_ALPHA(mluOpAdd, at::add_out)
MLU_BINARY_ALPHA(mluOpSub, at::sub_out)
MLU_BINARY(mluOpMul, at::mul_out)
MLU_BINARY(mluOpDiv, at::div_out)
MLU_BINARY(mluOpEq, at::eq_out)
MLU_BINARY(mluOpNe, at::ne_out)
MLU_BINARY(mluOpLt, at::lt_out)
MLU_BINARY(mluOpGt, at::gt_out)

#define MLU_UNARY(NAME, ATEN)                                                                             \
  mluRet_t NAME(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out) {                             \
    return launch(#NAME, q, {x, out}, [x = *x, o = *out] { ATEN(lvalue(host_view(o)), host_view(x)); });          \
  }

MLU_UNARY(mluOpNeg, at::neg_out)
MLU_UNARY(mluOpExp, at::exp_out)
MLU_UNARY(mluOpLog, at::log_out)
MLU_UNARY(mluOpSqrt, at::sqrt_out)
MLU_UNARY(mluOpSigmoid, at::sigmoid_out)
MLU_UNARY(mluOpTanh, at::tanh_out)

mluRet_t mluOpRelu(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out) {
  return launch("mluOpRelu", q, {x, out}, [x = *x, o = *out] { at::clamp_min_out(lvalue(host_view(o)), host_view(x), 0); });
}

mluRet_t mluOpTanhBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* y, const mluTensor_t* out) {
  return launch("mluOpTanhBackward", q, {grad, y, out}, [g = *grad, y = *y, o = *out] {
    at::tanh_backward_out(lvalue(host_view(o)), host_view(g), host_view(y));
  });
}

mluRet_t mluOpSigmoidBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* y, const mluTensor_t* out) {
  return launch("mluOpSigmoidBackward", q, {grad, y, out}, [g = *grad, y = *y, o = *out] {
    at::sigmoid_backward_out(lvalue(host_view(o)), host_view(g), host_view(y));
  });
}

mluRet_t mluOpThresholdBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluScalar_t threshold,
                                const mluTensor_t* out) {
  return launch("mluOpThresholdBackward", q, {grad, x, out}, [g = *grad, x = *x, threshold, o = *out] {
    at::threshold_backward_out(lvalue(host_view(o)), host_view(g), host_view(x), aten_scalar(threshold));
  });
}

mluRet_t mluOpFill(mluQueue_t q, const mluTensor_t* x, mluScalar_t value) {
  return launch("mluOpFill", q, {x}, [x = *x, value] { host_view(x).fill_(aten_scalar(value)); });
}

mluRet_t mluOpZero(mluQueue_t q, const mluTensor_t* x) {
  return launch("mluOpZero", q, {x}, [x = *x] { host_view(x).zero_(); });
}

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

mluRet_t mluOpLogSoftmax(mluQueue_t q, const mluTensor_t* x, int64_t dim, const mluTensor_t* out) {
  return launch("mluOpLogSoftmax", q, {x, out}, [x = *x, dim, o = *out] {
    at::_log_softmax_out(lvalue(host_view(o)), host_view(x), dim, /*half_to_float=*/x.dtype != o.dtype);
  });
}

mluRet_t mluOpLogSoftmaxBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* y, int64_t dim,
                                 const mluTensor_t* out) {
  return launch("mluOpLogSoftmaxBackward", q, {grad, y, out}, [g = *grad, y = *y, dim, o = *out] {
    at::_log_softmax_backward_data_out(lvalue(host_view(o)), host_view(g), host_view(y), dim, aten_dtype(o.dtype));
  });
}

mluRet_t mluOpNllLoss(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* target, const mluTensor_t* weight,
                      int64_t reduction, int64_t ignore_index, const mluTensor_t* out, const mluTensor_t* total_weight) {
  return launch("mluOpNllLoss", q, {x, target, weight, out, total_weight},
                [x = *x, t = *target, w = *weight, reduction, ignore_index, o = *out, tw = *total_weight] {
                  at::Tensor output = host_view(o);
                  at::Tensor total = host_view(tw);
                  at::nll_loss_forward_out(output, total, host_view(x), host_view(t), optional_host_view(w),
                                           reduction, ignore_index);
                });
}

mluRet_t mluOpNllLossBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* target,
                              const mluTensor_t* weight, int64_t reduction, int64_t ignore_index,
                              const mluTensor_t* total_weight, const mluTensor_t* out) {
  return launch("mluOpNllLossBackward", q, {grad, x, target, weight, total_weight, out},
                [g = *grad, x = *x, t = *target, w = *weight, reduction, ignore_index, tw = *total_weight, o = *out] {
                  at::Tensor result = host_view(o);
                  at::nll_loss_backward_out(result, host_view(g), host_view(x), host_view(t), optional_host_view(w),
                                            reduction, ignore_index, host_view(tw));
                });
}

mluRet_t mluOpRandNormal(mluQueue_t q, const mluTensor_t* x, double mean, double std, mluRandState_t state) {
  if (!(std >= 0.0)) return fail(MLU_RET_ERR_INVALID_VALUE, "mluOpRandNormal: std must be >= 0");
  return launch("mluOpRandNormal", q, {x}, [x = *x, mean, std, state] {
    at::Generator gen = alu::counter_generator(state.seed, state.offset);
    host_view(x).normal_(mean, std, gen);
  });
}

mluRet_t mluOpRandUniform(mluQueue_t q, const mluTensor_t* x, double low, double high, mluRandState_t state) {
  if (!(low <= high)) return fail(MLU_RET_ERR_INVALID_VALUE, "mluOpRandUniform: low must be <= high");
  return launch("mluOpRandUniform", q, {x}, [x = *x, low, high, state] {
    at::Generator gen = alu::counter_generator(state.seed, state.offset);
    host_view(x).uniform_(low, high, gen);
  });
}

}  // extern "C"

extern "C" {

MLU_UNARY(mluOpAbs, at::abs_out)
MLU_UNARY(mluOpSin, at::sin_out)
MLU_UNARY(mluOpCos, at::cos_out)
MLU_UNARY(mluOpRsqrt, at::rsqrt_out)
MLU_UNARY(mluOpReciprocal, at::reciprocal_out)
MLU_UNARY(mluOpFloor, at::floor_out)
MLU_UNARY(mluOpCeil, at::ceil_out)
MLU_UNARY(mluOpTrunc, at::trunc_out)
MLU_UNARY(mluOpRound, at::round_out)
MLU_UNARY(mluOpErf, at::erf_out)
MLU_UNARY(mluOpExpm1, at::expm1_out)
MLU_UNARY(mluOpLog1p, at::log1p_out)
MLU_UNARY(mluOpLog2, at::log2_out)
MLU_UNARY(mluOpSign, at::sign_out)
MLU_UNARY(mluOpSilu, at::silu_out)
MLU_UNARY(mluOpLogicalNot, at::logical_not_out)

MLU_BINARY(mluOpLe, at::le_out)
MLU_BINARY(mluOpGe, at::ge_out)

mluRet_t mluOpMaximum(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out) {
  return launch("mluOpMaximum", q, {a, b, out},
                [a = *a, b = *b, o = *out] { at::maximum_out(lvalue(host_view(o)), host_view(a), host_view(b)); });
}

mluRet_t mluOpMinimum(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out) {
  return launch("mluOpMinimum", q, {a, b, out},
                [a = *a, b = *b, o = *out] { at::minimum_out(lvalue(host_view(o)), host_view(a), host_view(b)); });
}

mluRet_t mluOpPow(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out) {
  return launch("mluOpPow", q, {a, b, out},
                [a = *a, b = *b, o = *out] { at::pow_out(lvalue(host_view(o)), host_view(a), host_view(b)); });
}

mluRet_t mluOpPowScalar(mluQueue_t q, const mluTensor_t* a, mluScalar_t exponent, const mluTensor_t* out) {
  return launch("mluOpPowScalar", q, {a, out}, [a = *a, exponent, o = *out] {
    at::pow_out(lvalue(host_view(o)), host_view(a), aten_scalar(exponent));
  });
}

mluRet_t mluOpGelu(mluQueue_t q, const mluTensor_t* x, mluGeluApproximation_t approximation, const mluTensor_t* out) {
  return launch("mluOpGelu", q, {x, out}, [x = *x, approximation, o = *out] {
    at::gelu_out(lvalue(host_view(o)), host_view(x), approximation_name(approximation));
  });
}

mluRet_t mluOpGeluBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                           mluGeluApproximation_t approximation, const mluTensor_t* out) {
  return launch("mluOpGeluBackward", q, {grad, x, out}, [g = *grad, x = *x, approximation, o = *out] {
    at::gelu_backward_out(lvalue(host_view(o)), host_view(g), host_view(x), approximation_name(approximation));
  });
}

mluRet_t mluOpSiluBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* out) {
  return launch("mluOpSiluBackward", q, {grad, x, out}, [g = *grad, x = *x, o = *out] {
    at::silu_backward_out(lvalue(host_view(o)), host_view(g), host_view(x));
  });
}

mluRet_t mluOpClamp(mluQueue_t q, const mluTensor_t* x, mluScalar_t min, mluScalar_t max, const mluTensor_t* out) {
  return launch("mluOpClamp", q, {x, out}, [x = *x, min, max, o = *out] {
    at::clamp_out(lvalue(host_view(o)), host_view(x), optional_scalar(min), optional_scalar(max));
  });
}

mluRet_t mluOpWhere(mluQueue_t q, const mluTensor_t* condition, const mluTensor_t* a, const mluTensor_t* b,
                    const mluTensor_t* out) {
  return launch("mluOpWhere", q, {condition, a, b, out}, [c = *condition, a = *a, b = *b, o = *out] {
    at::where_out(lvalue(host_view(o)), host_view(c), host_view(a), host_view(b));
  });
}

mluRet_t mluOpMaskedFill(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* mask, mluScalar_t value) {
  return launch("mluOpMaskedFill", q, {x, mask},
                [x = *x, m = *mask, value] { host_view(x).masked_fill_(host_view(m), aten_scalar(value)); });
}

mluRet_t mluOpAddcmul(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* a, const mluTensor_t* b, mluScalar_t value,
                      const mluTensor_t* out) {
  return launch("mluOpAddcmul", q, {x, a, b, out}, [x = *x, a = *a, b = *b, value, o = *out] {
    at::addcmul_out(lvalue(host_view(o)), host_view(x), host_view(a), host_view(b), aten_scalar(value));
  });
}

mluRet_t mluOpAddcdiv(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* a, const mluTensor_t* b, mluScalar_t value,
                      const mluTensor_t* out) {
  return launch("mluOpAddcdiv", q, {x, a, b, out}, [x = *x, a = *a, b = *b, value, o = *out] {
    at::addcdiv_out(lvalue(host_view(o)), host_view(x), host_view(a), host_view(b), aten_scalar(value));
  });
}

mluRet_t mluOpLerp(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* end, mluScalar_t weight,
                   const mluTensor_t* out) {
  return launch("mluOpLerp", q, {x, end, out}, [x = *x, e = *end, weight, o = *out] {
    at::lerp_out(lvalue(host_view(o)), host_view(x), host_view(e), aten_scalar(weight));
  });
}

mluRet_t mluOpTril(mluQueue_t q, const mluTensor_t* x, int64_t diagonal, const mluTensor_t* out) {
  return launch("mluOpTril", q, {x, out},
                [x = *x, diagonal, o = *out] { at::tril_out(lvalue(host_view(o)), host_view(x), diagonal); });
}

mluRet_t mluOpTriu(mluQueue_t q, const mluTensor_t* x, int64_t diagonal, const mluTensor_t* out) {
  return launch("mluOpTriu", q, {x, out},
                [x = *x, diagonal, o = *out] { at::triu_out(lvalue(host_view(o)), host_view(x), diagonal); });
}

mluRet_t mluOpArange(mluQueue_t q, mluScalar_t start, mluScalar_t end, mluScalar_t step, const mluTensor_t* out) {
  return launch("mluOpArange", q, {out}, [start, end, step, o = *out] {
    at::arange_out(lvalue(host_view(o)), aten_scalar(start), aten_scalar(end), aten_scalar(step));
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

mluRet_t mluOpConvolution(mluQueue_t q, const mluTensor_t* input, const mluTensor_t* weight, const mluTensor_t* bias,
                          mluIntList_t stride, mluIntList_t padding, mluIntList_t dilation, bool transposed,
                          mluIntList_t output_padding, int64_t groups, const mluTensor_t* out) {
  return launch("mluOpConvolution", q, {input, weight, bias, out},
                [x = *input, w = *weight, b = *bias, stride, padding, dilation, transposed, output_padding, groups,
                 o = *out] {
                  store(o, at::convolution(host_view(x), host_view(w), optional_host_view(b), ints(stride),
                                           ints(padding), ints(dilation), transposed, ints(output_padding), groups));
                });
}

mluRet_t mluOpConvolutionBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* input,
                                  const mluTensor_t* weight, mluIntList_t stride, mluIntList_t padding,
                                  mluIntList_t dilation, bool transposed, mluIntList_t output_padding, int64_t groups,
                                  const mluTensor_t* grad_input, const mluTensor_t* grad_weight,
                                  const mluTensor_t* grad_bias) {
  return launch("mluOpConvolutionBackward", q, {grad, input, weight, grad_input, grad_weight, grad_bias},
                [g = *grad, x = *input, w = *weight, stride, padding, dilation, transposed, output_padding, groups,
                 gi = *grad_input, gw = *grad_weight, gb = *grad_bias] {
                  const std::array<bool, 3> mask{gi.data != nullptr, gw.data != nullptr, gb.data != nullptr};
                  const at::OptionalIntArrayRef bias_sizes =
                      mask[2] ? at::OptionalIntArrayRef(at::IntArrayRef(gb.shape, 1)) : std::nullopt;
                  auto [dx, dw, db] = at::convolution_backward(host_view(g), host_view(x), host_view(w), bias_sizes,
                                                               ints(stride), ints(padding), ints(dilation), transposed,
                                                               ints(output_padding), groups, mask);
                  if (mask[0]) store(gi, dx);
                  if (mask[1]) store(gw, dw);
                  if (mask[2]) store(gb, db);
                });
}

mluRet_t mluOpMaxPool2d(mluQueue_t q, const mluTensor_t* x, mluIntList_t kernel, mluIntList_t stride,
                        mluIntList_t padding, mluIntList_t dilation, bool ceil_mode, const mluTensor_t* out,
                        const mluTensor_t* indices) {
  return launch("mluOpMaxPool2d", q, {x, out, indices},
                [x = *x, kernel, stride, padding, dilation, ceil_mode, o = *out, i = *indices] {
                  at::Tensor values = host_view(o), idx = host_view(i);
                  at::max_pool2d_with_indices_out(values, idx, host_view(x), ints(kernel), ints(stride),
                                                  ints(padding), ints(dilation), ceil_mode);
                });
}

mluRet_t mluOpMaxPool2dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluIntList_t kernel,
                                mluIntList_t stride, mluIntList_t padding, mluIntList_t dilation, bool ceil_mode,
                                const mluTensor_t* indices, const mluTensor_t* out) {
  return launch("mluOpMaxPool2dBackward", q, {grad, x, indices, out},
                [g = *grad, x = *x, kernel, stride, padding, dilation, ceil_mode, i = *indices, o = *out] {
                  at::max_pool2d_with_indices_backward_out(lvalue(host_view(o)), host_view(g), host_view(x),
                                                           ints(kernel), ints(stride), ints(padding), ints(dilation),
                                                           ceil_mode, host_view(i));
                });
}

mluRet_t mluOpAvgPool2d(mluQueue_t q, const mluTensor_t* x, mluIntList_t kernel, mluIntList_t stride,
                        mluIntList_t padding, bool ceil_mode, bool count_include_pad, mluIntList_t divisor_override,
                        const mluTensor_t* out) {
  return launch("mluOpAvgPool2d", q, {x, out},
                [x = *x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override, o = *out] {
                  at::avg_pool2d_out(lvalue(host_view(o)), host_view(x), ints(kernel), ints(stride), ints(padding),
                                     ceil_mode, count_include_pad, optional_int(divisor_override));
                });
}

mluRet_t mluOpAvgPool2dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluIntList_t kernel,
                                mluIntList_t stride, mluIntList_t padding, bool ceil_mode, bool count_include_pad,
                                mluIntList_t divisor_override, const mluTensor_t* out) {
  return launch("mluOpAvgPool2dBackward", q, {grad, x, out},
                [g = *grad, x = *x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override,
                 o = *out] {
                  at::avg_pool2d_backward_out(lvalue(host_view(o)), host_view(g), host_view(x), ints(kernel),
                                              ints(stride), ints(padding), ceil_mode, count_include_pad,
                                              optional_int(divisor_override));
                });
}

mluRet_t mluOpAdaptiveAvgPool2d(mluQueue_t q, const mluTensor_t* x, mluIntList_t output_size, const mluTensor_t* out) {
  return launch("mluOpAdaptiveAvgPool2d", q, {x, out}, [x = *x, output_size, o = *out] {
    store(o, at::_adaptive_avg_pool2d(host_view(x), ints(output_size)));
  });
}

mluRet_t mluOpAdaptiveAvgPool2dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                        const mluTensor_t* out) {
  return launch("mluOpAdaptiveAvgPool2dBackward", q, {grad, x, out}, [g = *grad, x = *x, o = *out] {
    store(o, at::_adaptive_avg_pool2d_backward(host_view(g), host_view(x)));
  });
}

mluRet_t mluOpBatchNorm(mluQueue_t q, const mluTensor_t* input, const mluTensor_t* weight, const mluTensor_t* bias,
                        const mluTensor_t* running_mean, const mluTensor_t* running_var, bool training,
                        double momentum, double eps, const mluTensor_t* out, const mluTensor_t* save_mean,
                        const mluTensor_t* save_invstd) {
  return launch("mluOpBatchNorm", q, {input, weight, bias, running_mean, running_var, out, save_mean, save_invstd},
                [x = *input, w = *weight, b = *bias, rm = *running_mean, rv = *running_var, training, momentum, eps,
                 o = *out, sm = *save_mean, si = *save_invstd] {
                  // Running statistics are updated in place, in device memory.
                  auto [y, mean, invstd] =
                      at::native_batch_norm(host_view(x), optional_host_view(w), optional_host_view(b),
                                            optional_host_view(rm), optional_host_view(rv), training, momentum, eps);
                  store(o, y);
                  store(sm, mean);
                  store(si, invstd);
                });
}

mluRet_t mluOpBatchNormBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* input,
                                const mluTensor_t* weight, const mluTensor_t* running_mean,
                                const mluTensor_t* running_var, const mluTensor_t* save_mean,
                                const mluTensor_t* save_invstd, bool training, double eps,
                                const mluTensor_t* grad_input, const mluTensor_t* grad_weight,
                                const mluTensor_t* grad_bias) {
  return launch("mluOpBatchNormBackward", q,
                {grad, input, weight, running_mean, running_var, save_mean, save_invstd, grad_input, grad_weight,
                 grad_bias},
                [g = *grad, x = *input, w = *weight, rm = *running_mean, rv = *running_var, sm = *save_mean,
                 si = *save_invstd, training, eps, gi = *grad_input, gw = *grad_weight, gb = *grad_bias] {
                  const std::array<bool, 3> mask{gi.data != nullptr, gw.data != nullptr, gb.data != nullptr};
                  auto [dx, dw, db] = at::native_batch_norm_backward(
                      host_view(g), host_view(x), optional_host_view(w), optional_host_view(rm),
                      optional_host_view(rv), optional_host_view(sm), optional_host_view(si), training, eps, mask);
                  if (mask[0]) store(gi, dx);
                  if (mask[1]) store(gw, dw);
                  if (mask[2]) store(gb, db);
                });
}

mluRet_t mluOpLayerNorm(mluQueue_t q, const mluTensor_t* input, mluIntList_t normalized_shape, const mluTensor_t* weight,
                        const mluTensor_t* bias, double eps, const mluTensor_t* out, const mluTensor_t* mean,
                        const mluTensor_t* rstd) {
  return launch("mluOpLayerNorm", q, {input, weight, bias, out, mean, rstd},
                [x = *input, normalized_shape, w = *weight, b = *bias, eps, o = *out, m = *mean, r = *rstd] {
                  auto [y, mu, rs] = at::native_layer_norm(host_view(x), ints(normalized_shape),
                                                           optional_host_view(w), optional_host_view(b), eps);
                  store(o, y);
                  store(m, mu);
                  store(r, rs);
                });
}

mluRet_t mluOpLayerNormBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* input,
                                mluIntList_t normalized_shape, const mluTensor_t* mean, const mluTensor_t* rstd,
                                const mluTensor_t* weight, const mluTensor_t* bias, const mluTensor_t* grad_input,
                                const mluTensor_t* grad_weight, const mluTensor_t* grad_bias) {
  return launch("mluOpLayerNormBackward", q, {grad, input, mean, rstd, weight, bias, grad_input, grad_weight, grad_bias},
                [g = *grad, x = *input, normalized_shape, m = *mean, r = *rstd, w = *weight, b = *bias,
                 gi = *grad_input, gw = *grad_weight, gb = *grad_bias] {
                  const std::array<bool, 3> mask{gi.data != nullptr, gw.data != nullptr, gb.data != nullptr};
                  auto [dx, dw, db] = at::native_layer_norm_backward(host_view(g), host_view(x), ints(normalized_shape),
                                                                     host_view(m), host_view(r), optional_host_view(w),
                                                                     optional_host_view(b), mask);
                  if (mask[0]) store(gi, dx);
                  if (mask[1]) store(gw, dw);
                  if (mask[2]) store(gb, db);
                });
}

mluRet_t mluOpDropout(mluQueue_t q, const mluTensor_t* input, double p, bool train, mluRandState_t state,
                      const mluTensor_t* out, const mluTensor_t* mask) {
  if (!(p >= 0.0 && p <= 1.0)) return fail(MLU_RET_ERR_INVALID_VALUE, "mluOpDropout: p must be in [0, 1]");
  return launch("mluOpDropout", q, {input, out, mask}, [x = *input, p, train, state, o = *out, m = *mask] {
    alu::dropout(host_view(x), p, train, state.seed, state.offset, host_view(o), host_view(m));
  });
}

mluRet_t mluOpDropoutBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* mask, double scale,
                              const mluTensor_t* out) {
  return launch("mluOpDropoutBackward", q, {grad, mask, out}, [g = *grad, m = *mask, scale, o = *out] {
    at::native_dropout_backward_out(lvalue(host_view(o)), host_view(g), host_view(m), scale);
  });
}

mluRet_t mluOpSoftmax(mluQueue_t q, const mluTensor_t* x, int64_t dim, const mluTensor_t* out) {
  return launch("mluOpSoftmax", q, {x, out}, [x = *x, dim, o = *out] {
    at::_softmax_out(lvalue(host_view(o)), host_view(x), dim, /*half_to_float=*/x.dtype != o.dtype);
  });
}

mluRet_t mluOpSoftmaxBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* y, int64_t dim,
                              const mluTensor_t* out) {
  return launch("mluOpSoftmaxBackward", q, {grad, y, out}, [g = *grad, y = *y, dim, o = *out] {
    at::_softmax_backward_data_out(lvalue(host_view(o)), host_view(g), host_view(y), dim, aten_dtype(o.dtype));
  });
}

}  // extern "C"

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

mluRet_t mluOpIsNegInf(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out) {
  return launch("mluOpIsNegInf", q, {x, out}, [x = *x, o = *out] { at::isneginf_out(lvalue(host_view(o)), host_view(x)); });
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

}  // extern "C"

extern "C" {

mluRet_t mluOpRmsNorm(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* weight, double eps, const mluTensor_t* out) {
  return launch("mluOpRmsNorm", q, {x, weight, out}, [x = *x, w = *weight, eps, o = *out] {
    store(o, alu::rms_norm(host_view(x), host_view(w), eps));
  });
}

mluRet_t mluOpRmsNormBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* weight,
                              double eps, const mluTensor_t* grad_x, const mluTensor_t* grad_weight) {
  return launch("mluOpRmsNormBackward", q, {grad, x, weight, grad_x, grad_weight},
                [g = *grad, x = *x, w = *weight, eps, gx = *grad_x, gw = *grad_weight] {
                  auto [dx, dw] = alu::rms_norm_backward(host_view(g), host_view(x), host_view(w), eps);
                  store(gx, dx);
                  store(gw, dw);
                });
}

}  // extern "C"

extern "C" mluRet_t mluOpLinear(mluQueue_t q, const mluTensor_t* input, const mluTensor_t* weight,
                                const mluTensor_t* bias, const mluTensor_t* out) {
  return launch("mluOpLinear", q, {input, weight, bias, out}, [x = *input, w = *weight, b = *bias, o = *out] {
    store(o, at::linear(host_view(x), host_view(w), optional_host_view(b)));
  });
}

extern "C" {

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

}  // extern "C"

// ---- activations, losses, 3-D/adaptive pooling, padding, group norm --------
// Each validates its descriptors now and queues the ATen CPU computation; the
// result lands in the caller's output views.

extern "C" {

mluRet_t mluOpElu(mluQueue_t q, const mluTensor_t* x, mluScalar_t alpha, mluScalar_t scale, mluScalar_t input_scale,
                  const mluTensor_t* out) {
  return launch("mluOpElu", q, {x, out}, [x = *x, alpha, scale, input_scale, o = *out] {
    store(o, at::elu(host_view(x), aten_scalar(alpha), aten_scalar(scale), aten_scalar(input_scale)));
  });
}

mluRet_t mluOpEluBackward(mluQueue_t q, const mluTensor_t* grad, mluScalar_t alpha, mluScalar_t scale,
                          mluScalar_t input_scale, bool is_result, const mluTensor_t* x_or_y, const mluTensor_t* out) {
  return launch("mluOpEluBackward", q, {grad, x_or_y, out},
                [g = *grad, alpha, scale, input_scale, is_result, x = *x_or_y, o = *out] {
                  store(o, at::elu_backward(host_view(g), aten_scalar(alpha), aten_scalar(scale),
                                            aten_scalar(input_scale), is_result, host_view(x)));
                });
}

mluRet_t mluOpHardtanh(mluQueue_t q, const mluTensor_t* x, mluScalar_t min, mluScalar_t max, const mluTensor_t* out) {
  return launch("mluOpHardtanh", q, {x, out}, [x = *x, min, max, o = *out] {
    store(o, at::hardtanh(host_view(x), aten_scalar(min), aten_scalar(max)));
  });
}

mluRet_t mluOpHardtanhBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluScalar_t min,
                               mluScalar_t max, const mluTensor_t* out) {
  return launch("mluOpHardtanhBackward", q, {grad, x, out}, [g = *grad, x = *x, min, max, o = *out] {
    store(o, at::hardtanh_backward(host_view(g), host_view(x), aten_scalar(min), aten_scalar(max)));
  });
}

mluRet_t mluOpLeakyRelu(mluQueue_t q, const mluTensor_t* x, mluScalar_t slope, const mluTensor_t* out) {
  return launch("mluOpLeakyRelu", q, {x, out},
                [x = *x, slope, o = *out] { store(o, at::leaky_relu(host_view(x), aten_scalar(slope))); });
}

mluRet_t mluOpLeakyReluBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluScalar_t slope,
                                bool x_is_result, const mluTensor_t* out) {
  return launch("mluOpLeakyReluBackward", q, {grad, x, out}, [g = *grad, x = *x, slope, x_is_result, o = *out] {
    store(o, at::leaky_relu_backward(host_view(g), host_view(x), aten_scalar(slope), x_is_result));
  });
}

mluRet_t mluOpSoftplus(mluQueue_t q, const mluTensor_t* x, mluScalar_t beta, mluScalar_t threshold,
                       const mluTensor_t* out) {
  return launch("mluOpSoftplus", q, {x, out}, [x = *x, beta, threshold, o = *out] {
    store(o, at::softplus(host_view(x), aten_scalar(beta), aten_scalar(threshold)));
  });
}

mluRet_t mluOpSoftplusBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluScalar_t beta,
                               mluScalar_t threshold, const mluTensor_t* out) {
  return launch("mluOpSoftplusBackward", q, {grad, x, out}, [g = *grad, x = *x, beta, threshold, o = *out] {
    store(o, at::softplus_backward(host_view(g), host_view(x), aten_scalar(beta), aten_scalar(threshold)));
  });
}

#define MLU_SHRINK(NAME, ATEN)                                                                                   \
  mluRet_t NAME(mluQueue_t q, const mluTensor_t* x, mluScalar_t lambd, const mluTensor_t* out) {                 \
    return launch(#NAME, q, {x, out},                                                                            \
                  [x = *x, lambd, o = *out] { store(o, at::ATEN(host_view(x), aten_scalar(lambd))); });          \
  }                                                                                                              \
  mluRet_t NAME##Backward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluScalar_t lambd,        \
                          const mluTensor_t* out) {                                                              \
    return launch(#NAME "Backward", q, {grad, x, out}, [g = *grad, x = *x, lambd, o = *out] {                    \
      store(o, at::ATEN##_backward(host_view(g), host_view(x), aten_scalar(lambd)));                             \
    });                                                                                                          \
  }

MLU_SHRINK(mluOpSoftshrink, softshrink)
MLU_SHRINK(mluOpHardshrink, hardshrink)

mluRet_t mluOpHardswish(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out) {
  return launch("mluOpHardswish", q, {x, out}, [x = *x, o = *out] { store(o, at::hardswish(host_view(x))); });
}

mluRet_t mluOpHardswishBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* out) {
  return launch("mluOpHardswishBackward", q, {grad, x, out},
                [g = *grad, x = *x, o = *out] { store(o, at::hardswish_backward(host_view(g), host_view(x))); });
}

mluRet_t mluOpHardsigmoid(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out) {
  return launch("mluOpHardsigmoid", q, {x, out}, [x = *x, o = *out] { store(o, at::hardsigmoid(host_view(x))); });
}

mluRet_t mluOpHardsigmoidBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* out) {
  return launch("mluOpHardsigmoidBackward", q, {grad, x, out},
                [g = *grad, x = *x, o = *out] { store(o, at::hardsigmoid_backward(host_view(g), host_view(x))); });
}

mluRet_t mluOpLogSigmoid(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out, const mluTensor_t* buffer) {
  return launch("mluOpLogSigmoid", q, {x, out, buffer}, [x = *x, o = *out, b = *buffer] {
    auto [y, saved] = at::log_sigmoid_forward(host_view(x));
    store(o, y);
    store(b, saved);
  });
}

mluRet_t mluOpLogSigmoidBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                 const mluTensor_t* buffer, const mluTensor_t* out) {
  return launch("mluOpLogSigmoidBackward", q, {grad, x, buffer, out}, [g = *grad, x = *x, b = *buffer, o = *out] {
    store(o, at::log_sigmoid_backward(host_view(g), host_view(x), host_view(b)));
  });
}

mluRet_t mluOpMish(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out) {
  return launch("mluOpMish", q, {x, out}, [x = *x, o = *out] { store(o, at::mish(host_view(x))); });
}

mluRet_t mluOpThreshold(mluQueue_t q, const mluTensor_t* x, mluScalar_t threshold, mluScalar_t value,
                        const mluTensor_t* out) {
  return launch("mluOpThreshold", q, {x, out}, [x = *x, threshold, value, o = *out] {
    store(o, at::threshold(host_view(x), aten_scalar(threshold), aten_scalar(value)));
  });
}

mluRet_t mluOpGlu(mluQueue_t q, const mluTensor_t* x, int64_t dim, const mluTensor_t* out) {
  return launch("mluOpGlu", q, {x, out}, [x = *x, dim, o = *out] { store(o, at::glu(host_view(x), dim)); });
}

mluRet_t mluOpGluBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, int64_t dim,
                          const mluTensor_t* out) {
  return launch("mluOpGluBackward", q, {grad, x, out}, [g = *grad, x = *x, dim, o = *out] {
    store(o, at::glu_backward(host_view(g), host_view(x), dim));
  });
}

mluRet_t mluOpPrelu(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* weight, const mluTensor_t* out) {
  return launch("mluOpPrelu", q, {x, weight, out},
                [x = *x, w = *weight, o = *out] { store(o, at::_prelu_kernel(host_view(x), host_view(w))); });
}

mluRet_t mluOpPreluBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* weight,
                            const mluTensor_t* grad_x, const mluTensor_t* grad_weight) {
  return launch("mluOpPreluBackward", q, {grad, x, weight, grad_x, grad_weight},
                [g = *grad, x = *x, w = *weight, gx = *grad_x, gw = *grad_weight] {
                  auto [dx, dw] = at::_prelu_kernel_backward(host_view(g), host_view(x), host_view(w));
                  store(gx, dx);
                  store(gw, dw);
                });
}

MLU_UNARY(mluOpSgn, at::sgn_out)

mluRet_t mluOpClampMin(mluQueue_t q, const mluTensor_t* x, mluScalar_t min, const mluTensor_t* out) {
  return launch("mluOpClampMin", q, {x, out},
                [x = *x, min, o = *out] { store(o, at::clamp_min(host_view(x), aten_scalar(min))); });
}

mluRet_t mluOpAny(mluQueue_t q, const mluTensor_t* x, mluIntList_t dim, bool keepdim, const mluTensor_t* out) {
  return launch("mluOpAny", q, {x, out}, [x = *x, dim, keepdim, o = *out] {
    store(o, dim.count < 1 ? at::any(host_view(x)) : at::any(host_view(x), dim.values[0], keepdim));
  });
}

mluRet_t mluOpAnyAll(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* out) {
  return launch("mluOpAnyAll", q, {x, out}, [x = *x, o = *out] { store(o, at::any(host_view(x))); });
}

mluRet_t mluOpMseLoss(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* target, int64_t reduction,
                      const mluTensor_t* out) {
  return launch("mluOpMseLoss", q, {x, target, out}, [x = *x, t = *target, reduction, o = *out] {
    store(o, at::mse_loss(host_view(x), host_view(t), reduction));
  });
}

mluRet_t mluOpMseLossBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* target,
                              int64_t reduction, const mluTensor_t* out) {
  return launch("mluOpMseLossBackward", q, {grad, x, target, out}, [g = *grad, x = *x, t = *target, reduction, o = *out] {
    store(o, at::mse_loss_backward(host_view(g), host_view(x), host_view(t), reduction));
  });
}

mluRet_t mluOpSmoothL1Loss(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* target, int64_t reduction,
                           double beta, const mluTensor_t* out) {
  return launch("mluOpSmoothL1Loss", q, {x, target, out}, [x = *x, t = *target, reduction, beta, o = *out] {
    store(o, at::smooth_l1_loss(host_view(x), host_view(t), reduction, beta));
  });
}

mluRet_t mluOpSmoothL1LossBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                   const mluTensor_t* target, int64_t reduction, double beta, const mluTensor_t* out) {
  return launch("mluOpSmoothL1LossBackward", q, {grad, x, target, out},
                [g = *grad, x = *x, t = *target, reduction, beta, o = *out] {
                  store(o, at::smooth_l1_loss_backward(host_view(g), host_view(x), host_view(t), reduction, beta));
                });
}

mluRet_t mluOpHuberLoss(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* target, int64_t reduction, double delta,
                        const mluTensor_t* out) {
  return launch("mluOpHuberLoss", q, {x, target, out}, [x = *x, t = *target, reduction, delta, o = *out] {
    store(o, at::huber_loss(host_view(x), host_view(t), reduction, delta));
  });
}

mluRet_t mluOpHuberLossBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* target,
                                int64_t reduction, double delta, const mluTensor_t* out) {
  return launch("mluOpHuberLossBackward", q, {grad, x, target, out},
                [g = *grad, x = *x, t = *target, reduction, delta, o = *out] {
                  store(o, at::huber_loss_backward(host_view(g), host_view(x), host_view(t), reduction, delta));
                });
}

mluRet_t mluOpBinaryCrossEntropy(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* target,
                                 const mluTensor_t* weight, int64_t reduction, const mluTensor_t* out) {
  return launch("mluOpBinaryCrossEntropy", q, {x, target, weight, out},
                [x = *x, t = *target, w = *weight, reduction, o = *out] {
                  store(o, at::binary_cross_entropy(host_view(x), host_view(t), optional_host_view(w), reduction));
                });
}

mluRet_t mluOpBinaryCrossEntropyBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                         const mluTensor_t* target, const mluTensor_t* weight, int64_t reduction,
                                         const mluTensor_t* out) {
  return launch("mluOpBinaryCrossEntropyBackward", q, {grad, x, target, weight, out},
                [g = *grad, x = *x, t = *target, w = *weight, reduction, o = *out] {
                  store(o, at::binary_cross_entropy_backward(host_view(g), host_view(x), host_view(t),
                                                             optional_host_view(w), reduction));
                });
}

mluRet_t mluOpNllLoss2d(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* target, const mluTensor_t* weight,
                        int64_t reduction, int64_t ignore_index, const mluTensor_t* out,
                        const mluTensor_t* total_weight) {
  return launch("mluOpNllLoss2d", q, {x, target, weight, out, total_weight},
                [x = *x, t = *target, w = *weight, reduction, ignore_index, o = *out, tw = *total_weight] {
                  auto [loss, total] = at::nll_loss2d_forward(host_view(x), host_view(t), optional_host_view(w),
                                                              reduction, ignore_index);
                  store(o, loss);
                  store(tw, total);
                });
}

mluRet_t mluOpNllLoss2dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* target,
                                const mluTensor_t* weight, int64_t reduction, int64_t ignore_index,
                                const mluTensor_t* total_weight, const mluTensor_t* out) {
  return launch("mluOpNllLoss2dBackward", q, {grad, x, target, weight, total_weight, out},
                [g = *grad, x = *x, t = *target, w = *weight, reduction, ignore_index, tw = *total_weight, o = *out] {
                  store(o, at::nll_loss2d_backward(host_view(g), host_view(x), host_view(t), optional_host_view(w),
                                                   reduction, ignore_index, host_view(tw)));
                });
}

mluRet_t mluOpMultiMarginLoss(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* target, mluScalar_t p,
                              mluScalar_t margin, const mluTensor_t* weight, int64_t reduction,
                              const mluTensor_t* out) {
  return launch("mluOpMultiMarginLoss", q, {x, target, weight, out},
                [x = *x, t = *target, p, margin, w = *weight, reduction, o = *out] {
                  store(o, at::multi_margin_loss(host_view(x), host_view(t), aten_scalar(p), aten_scalar(margin),
                                                 optional_host_view(w), reduction));
                });
}

mluRet_t mluOpMultiMarginLossBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                      const mluTensor_t* target, mluScalar_t p, mluScalar_t margin,
                                      const mluTensor_t* weight, int64_t reduction, const mluTensor_t* out) {
  return launch("mluOpMultiMarginLossBackward", q, {grad, x, target, weight, out},
                [g = *grad, x = *x, t = *target, p, margin, w = *weight, reduction, o = *out] {
                  store(o, at::multi_margin_loss_backward(host_view(g), host_view(x), host_view(t), aten_scalar(p),
                                                          aten_scalar(margin), optional_host_view(w), reduction));
                });
}

mluRet_t mluOpMultilabelMarginLoss(mluQueue_t q, const mluTensor_t* x, const mluTensor_t* target, int64_t reduction,
                                   const mluTensor_t* out, const mluTensor_t* is_target) {
  return launch("mluOpMultilabelMarginLoss", q, {x, target, out, is_target},
                [x = *x, t = *target, reduction, o = *out, it = *is_target] {
                  auto [loss, marks] = at::multilabel_margin_loss_forward(host_view(x), host_view(t), reduction);
                  store(o, loss);
                  store(it, marks);
                });
}

mluRet_t mluOpMultilabelMarginLossBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                           const mluTensor_t* target, int64_t reduction, const mluTensor_t* is_target,
                                           const mluTensor_t* out) {
  return launch("mluOpMultilabelMarginLossBackward", q, {grad, x, target, is_target, out},
                [g = *grad, x = *x, t = *target, reduction, it = *is_target, o = *out] {
                  store(o, at::multilabel_margin_loss_backward(host_view(g), host_view(x), host_view(t), reduction,
                                                               host_view(it)));
                });
}

mluRet_t mluOpAvgPool3d(mluQueue_t q, const mluTensor_t* x, mluIntList_t kernel, mluIntList_t stride,
                        mluIntList_t padding, bool ceil_mode, bool count_include_pad, mluIntList_t divisor_override,
                        const mluTensor_t* out) {
  return launch("mluOpAvgPool3d", q, {x, out},
                [x = *x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override, o = *out] {
                  store(o, at::avg_pool3d(host_view(x), ints(kernel), ints(stride), ints(padding), ceil_mode,
                                          count_include_pad, optional_int(divisor_override)));
                });
}

mluRet_t mluOpAvgPool3dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluIntList_t kernel,
                                mluIntList_t stride, mluIntList_t padding, bool ceil_mode, bool count_include_pad,
                                mluIntList_t divisor_override, const mluTensor_t* out) {
  return launch("mluOpAvgPool3dBackward", q, {grad, x, out},
                [g = *grad, x = *x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override,
                 o = *out] {
                  store(o, at::avg_pool3d_backward(host_view(g), host_view(x), ints(kernel), ints(stride),
                                                   ints(padding), ceil_mode, count_include_pad,
                                                   optional_int(divisor_override)));
                });
}

mluRet_t mluOpMaxPool3d(mluQueue_t q, const mluTensor_t* x, mluIntList_t kernel, mluIntList_t stride,
                        mluIntList_t padding, mluIntList_t dilation, bool ceil_mode, const mluTensor_t* out,
                        const mluTensor_t* indices) {
  return launch("mluOpMaxPool3d", q, {x, out, indices},
                [x = *x, kernel, stride, padding, dilation, ceil_mode, o = *out, i = *indices] {
                  auto [values, where] = at::max_pool3d_with_indices(host_view(x), ints(kernel), ints(stride),
                                                                     ints(padding), ints(dilation), ceil_mode);
                  store(o, values);
                  store(i, where);
                });
}

mluRet_t mluOpMaxPool3dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, mluIntList_t kernel,
                                mluIntList_t stride, mluIntList_t padding, mluIntList_t dilation, bool ceil_mode,
                                const mluTensor_t* indices, const mluTensor_t* out) {
  return launch("mluOpMaxPool3dBackward", q, {grad, x, indices, out},
                [g = *grad, x = *x, kernel, stride, padding, dilation, ceil_mode, i = *indices, o = *out] {
                  store(o, at::max_pool3d_with_indices_backward(host_view(g), host_view(x), ints(kernel),
                                                                ints(stride), ints(padding), ints(dilation), ceil_mode,
                                                                host_view(i)));
                });
}

#define MLU_ADAPTIVE_MAX_POOL(NAME, ATEN)                                                                         \
  mluRet_t NAME(mluQueue_t q, const mluTensor_t* x, mluIntList_t output_size, const mluTensor_t* out,              \
                const mluTensor_t* indices) {                                                                      \
    return launch(#NAME, q, {x, out, indices}, [x = *x, output_size, o = *out, i = *indices] {                     \
      auto [values, where] = at::ATEN(host_view(x), ints(output_size));                                            \
      store(o, values);                                                                                            \
      store(i, where);                                                                                             \
    });                                                                                                            \
  }                                                                                                                \
  mluRet_t NAME##Backward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x, const mluTensor_t* indices,  \
                          const mluTensor_t* out) {                                                                \
    return launch(#NAME "Backward", q, {grad, x, indices, out}, [g = *grad, x = *x, i = *indices, o = *out] {      \
      store(o, at::ATEN##_backward(host_view(g), host_view(x), host_view(i)));                                     \
    });                                                                                                            \
  }

MLU_ADAPTIVE_MAX_POOL(mluOpAdaptiveMaxPool2d, adaptive_max_pool2d)
MLU_ADAPTIVE_MAX_POOL(mluOpAdaptiveMaxPool3d, adaptive_max_pool3d)

mluRet_t mluOpAdaptiveAvgPool3d(mluQueue_t q, const mluTensor_t* x, mluIntList_t output_size, const mluTensor_t* out) {
  return launch("mluOpAdaptiveAvgPool3d", q, {x, out}, [x = *x, output_size, o = *out] {
    store(o, at::_adaptive_avg_pool3d(host_view(x), ints(output_size)));
  });
}

mluRet_t mluOpAdaptiveAvgPool3dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                        const mluTensor_t* out) {
  return launch("mluOpAdaptiveAvgPool3dBackward", q, {grad, x, out}, [g = *grad, x = *x, o = *out] {
    store(o, at::_adaptive_avg_pool3d_backward(host_view(g), host_view(x)));
  });
}

mluRet_t mluOpFractionalMaxPool2d(mluQueue_t q, const mluTensor_t* x, mluIntList_t kernel, mluIntList_t output_size,
                                  const mluTensor_t* samples, const mluTensor_t* out, const mluTensor_t* indices) {
  return launch("mluOpFractionalMaxPool2d", q, {x, samples, out, indices},
                [x = *x, kernel, output_size, s = *samples, o = *out, i = *indices] {
                  auto [values, where] =
                      at::fractional_max_pool2d(host_view(x), ints(kernel), ints(output_size), host_view(s));
                  store(o, values);
                  store(i, where);
                });
}

mluRet_t mluOpFractionalMaxPool2dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* x,
                                          mluIntList_t kernel, mluIntList_t output_size, const mluTensor_t* indices,
                                          const mluTensor_t* out) {
  return launch("mluOpFractionalMaxPool2dBackward", q, {grad, x, indices, out},
                [g = *grad, x = *x, kernel, output_size, i = *indices, o = *out] {
                  store(o, at::fractional_max_pool2d_backward(host_view(g), host_view(x), ints(kernel),
                                                              ints(output_size), host_view(i)));
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

mluRet_t mluOpGroupNorm(mluQueue_t q, const mluTensor_t* input, const mluTensor_t* weight, const mluTensor_t* bias,
                        int64_t n, int64_t c, int64_t hxw, int64_t group, double eps, const mluTensor_t* out,
                        const mluTensor_t* mean, const mluTensor_t* rstd) {
  return launch("mluOpGroupNorm", q, {input, weight, bias, out, mean, rstd},
                [x = *input, w = *weight, b = *bias, n, c, hxw, group, eps, o = *out, m = *mean, r = *rstd] {
                  auto [y, mu, rs] = at::native_group_norm(host_view(x), optional_host_view(w), optional_host_view(b),
                                                           n, c, hxw, group, eps);
                  store(o, y);
                  store(m, mu);
                  store(r, rs);
                });
}

mluRet_t mluOpGroupNormBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* input,
                                const mluTensor_t* mean, const mluTensor_t* rstd, const mluTensor_t* weight,
                                int64_t n, int64_t c, int64_t hxw, int64_t group, const mluTensor_t* grad_input,
                                const mluTensor_t* grad_weight, const mluTensor_t* grad_bias) {
  return launch("mluOpGroupNormBackward", q, {grad, input, mean, rstd, weight, grad_input, grad_weight, grad_bias},
                [g = *grad, x = *input, m = *mean, r = *rstd, w = *weight, n, c, hxw, group, gi = *grad_input,
                 gw = *grad_weight, gb = *grad_bias] {
                  const std::array<bool, 3> mask{gi.data != nullptr, gw.data != nullptr, gb.data != nullptr};
                  auto [dx, dw, db] = at::native_group_norm_backward(host_view(g), host_view(x), host_view(m),
                                                                     host_view(r), optional_host_view(w), n, c, hxw,
                                                                     group, mask);
                  if (mask[0]) store(gi, dx);
                  if (mask[1]) store(gw, dw);
                  if (mask[2]) store(gb, db);
                });
}

}  // extern "C"

// ---- more elementwise, reductions, gather/scatter --------------------------

extern "C" {

MLU_UNARY(mluOpTan, at::tan_out)
MLU_UNARY(mluOpAsin, at::asin_out)
MLU_UNARY(mluOpAcos, at::acos_out)
MLU_UNARY(mluOpAtan, at::atan_out)
MLU_UNARY(mluOpSinh, at::sinh_out)
MLU_UNARY(mluOpCosh, at::cosh_out)
MLU_UNARY(mluOpAsinh, at::asinh_out)
MLU_UNARY(mluOpAcosh, at::acosh_out)
MLU_UNARY(mluOpAtanh, at::atanh_out)
MLU_UNARY(mluOpExp2, at::exp2_out)
MLU_UNARY(mluOpLog10, at::log10_out)
MLU_UNARY(mluOpFrac, at::frac_out)
MLU_UNARY(mluOpErfc, at::erfc_out)
MLU_UNARY(mluOpErfinv, at::erfinv_out)
MLU_UNARY(mluOpLgamma, at::lgamma_out)
MLU_UNARY(mluOpDigamma, at::digamma_out)
MLU_UNARY(mluOpSinc, at::sinc_out)
MLU_UNARY(mluOpBitwiseNot, at::bitwise_not_out)
MLU_UNARY(mluOpSignbit, at::signbit_out)
MLU_UNARY(mluOpIsPosInf, at::isposinf_out)

MLU_BINARY(mluOpBitwiseAnd, at::bitwise_and_out)
MLU_BINARY(mluOpBitwiseOr, at::bitwise_or_out)
MLU_BINARY(mluOpBitwiseXor, at::bitwise_xor_out)
MLU_BINARY(mluOpFmod, at::fmod_out)
MLU_BINARY(mluOpRemainder, at::remainder_out)

#define MLU_BINARY_TENSOR(NAME, ATEN)                                                                    \
  mluRet_t NAME(mluQueue_t q, const mluTensor_t* a, const mluTensor_t* b, const mluTensor_t* out) {      \
    return launch(#NAME, q, {a, b, out},                                                                 \
                  [a = *a, b = *b, o = *out] { ATEN(lvalue(host_view(o)), host_view(a), host_view(b)); }); \
  }

MLU_BINARY_TENSOR(mluOpLogicalAnd, at::logical_and_out)
MLU_BINARY_TENSOR(mluOpLogicalOr, at::logical_or_out)
MLU_BINARY_TENSOR(mluOpLogicalXor, at::logical_xor_out)
MLU_BINARY_TENSOR(mluOpAtan2, at::atan2_out)
MLU_BINARY_TENSOR(mluOpHypot, at::hypot_out)
MLU_BINARY_TENSOR(mluOpCopysign, at::copysign_out)
MLU_BINARY_TENSOR(mluOpXlogy, at::xlogy_out)
MLU_BINARY_TENSOR(mluOpLogAddExp, at::logaddexp_out)
MLU_BINARY_TENSOR(mluOpLogAddExp2, at::logaddexp2_out)
MLU_BINARY_TENSOR(mluOpFmax, at::fmax_out)
MLU_BINARY_TENSOR(mluOpFmin, at::fmin_out)

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

// Detection ops: torchvision's CPU kernels on the ALU.
namespace {
namespace vision = torch_fl::sim::alu::torchvision;

mluRet_t require_dtype(const char* op, const char* what, const mluTensor_t* t, mluDataType_t dtype) {
  if (t != nullptr && t->dtype != dtype) {
    return fail(MLU_RET_ERR_NOT_SUPPORTED, std::string(op) + ": " + what + " must be " +
                                               c10::toString(aten_dtype(dtype)) + ", got " +
                                               c10::toString(aten_dtype(t->dtype)));
  }
  return MLU_RET_SUCCESS;
}
}  // namespace

extern "C" {

mluRet_t mluOpNms(mluQueue_t q, const mluTensor_t* boxes, const mluTensor_t* scores, double iou_threshold,
                  const mluTensor_t* keep, const mluTensor_t* kept) {
  if (mluRet_t e = require_dtype("mluOpNms", "keep", keep, MLU_DTYPE_INT64); e != MLU_RET_SUCCESS) return e;
  if (mluRet_t e = require_dtype("mluOpNms", "kept", kept, MLU_DTYPE_INT64); e != MLU_RET_SUCCESS) return e;
  return launch("mluOpNms", q, {boxes, scores, keep, kept},
                [b = *boxes, s = *scores, iou_threshold, k = *keep, n = *kept] {
                  vision::nms(host_view(b), host_view(s), iou_threshold, host_view(k), host_view(n));
                });
}

mluRet_t mluOpRoiAlign(mluQueue_t q, const mluTensor_t* input, const mluTensor_t* rois, double spatial_scale,
                       int64_t pooled_height, int64_t pooled_width, int64_t sampling_ratio, bool aligned,
                       const mluTensor_t* out) {
  return launch("mluOpRoiAlign", q, {input, rois, out},
                [x = *input, r = *rois, spatial_scale, pooled_height, pooled_width, sampling_ratio, aligned,
                 o = *out] {
                  store(o, vision::roi_align(host_view(x), host_view(r), spatial_scale, pooled_height, pooled_width,
                                             sampling_ratio, aligned));
                });
}

mluRet_t mluOpRoiAlignBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* rois, double spatial_scale,
                               int64_t pooled_height, int64_t pooled_width, int64_t sampling_ratio, bool aligned,
                               const mluTensor_t* grad_input) {
  return launch("mluOpRoiAlignBackward", q, {grad, rois, grad_input},
                [g = *grad, r = *rois, spatial_scale, pooled_height, pooled_width, sampling_ratio, aligned,
                 gi = *grad_input] {
                  store(gi, vision::roi_align_backward(host_view(g), host_view(r), spatial_scale, pooled_height,
                                                       pooled_width, gi.shape[0], gi.shape[1], gi.shape[2],
                                                       gi.shape[3], sampling_ratio, aligned));
                });
}

mluRet_t mluOpRoiPool(mluQueue_t q, const mluTensor_t* input, const mluTensor_t* rois, double spatial_scale,
                      int64_t pooled_height, int64_t pooled_width, const mluTensor_t* out, const mluTensor_t* argmax) {
  if (mluRet_t e = require_dtype("mluOpRoiPool", "argmax", argmax, MLU_DTYPE_INT32); e != MLU_RET_SUCCESS) return e;
  return launch("mluOpRoiPool", q, {input, rois, out, argmax},
                [x = *input, r = *rois, spatial_scale, pooled_height, pooled_width, o = *out, a = *argmax] {
                  auto [values, where] =
                      vision::roi_pool(host_view(x), host_view(r), spatial_scale, pooled_height, pooled_width);
                  store(o, values);
                  store(a, where);
                });
}

mluRet_t mluOpRoiPoolBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* rois,
                              const mluTensor_t* argmax, double spatial_scale, int64_t pooled_height,
                              int64_t pooled_width, const mluTensor_t* grad_input) {
  if (mluRet_t e = require_dtype("mluOpRoiPoolBackward", "argmax", argmax, MLU_DTYPE_INT32); e != MLU_RET_SUCCESS) {
    return e;
  }
  return launch("mluOpRoiPoolBackward", q, {grad, rois, argmax, grad_input},
                [g = *grad, r = *rois, a = *argmax, spatial_scale, pooled_height, pooled_width, gi = *grad_input] {
                  store(gi, vision::roi_pool_backward(host_view(g), host_view(r), host_view(a), spatial_scale,
                                                      pooled_height, pooled_width, gi.shape[0], gi.shape[1],
                                                      gi.shape[2], gi.shape[3]));
                });
}

mluRet_t mluOpDeformConv2d(mluQueue_t q, const mluTensor_t* input, const mluTensor_t* weight,
                           const mluTensor_t* offset, const mluTensor_t* mask, const mluTensor_t* bias,
                           int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w, int64_t dilation_h,
                           int64_t dilation_w, int64_t groups, int64_t offset_groups, bool use_mask,
                           const mluTensor_t* out) {
  const vision::DeformConv2dParams params{stride_h,   stride_w, pad_h,         pad_w,   dilation_h,
                                          dilation_w, groups,   offset_groups, use_mask};
  return launch("mluOpDeformConv2d", q, {input, weight, offset, mask, bias, out},
                [x = *input, w = *weight, off = *offset, m = *mask, b = *bias, params, o = *out] {
                  store(o, vision::deform_conv2d(host_view(x), host_view(w), host_view(off), host_view(m),
                                                 host_view(b), params));
                });
}

mluRet_t mluOpDeformConv2dBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* input,
                                   const mluTensor_t* weight, const mluTensor_t* offset, const mluTensor_t* mask,
                                   const mluTensor_t* bias, int64_t stride_h, int64_t stride_w, int64_t pad_h,
                                   int64_t pad_w, int64_t dilation_h, int64_t dilation_w, int64_t groups,
                                   int64_t offset_groups, bool use_mask, const mluTensor_t* grad_input,
                                   const mluTensor_t* grad_weight, const mluTensor_t* grad_offset,
                                   const mluTensor_t* grad_mask, const mluTensor_t* grad_bias) {
  const vision::DeformConv2dParams params{stride_h,   stride_w, pad_h,         pad_w,   dilation_h,
                                          dilation_w, groups,   offset_groups, use_mask};
  return launch("mluOpDeformConv2dBackward", q,
                {grad, input, weight, offset, mask, bias, grad_input, grad_weight, grad_offset, grad_mask, grad_bias},
                [g = *grad, x = *input, w = *weight, off = *offset, m = *mask, b = *bias, params, gi = *grad_input,
                 gw = *grad_weight, go = *grad_offset, gm = *grad_mask, gb = *grad_bias] {
                  auto [dx, dw, doff, dm, db] = vision::deform_conv2d_backward(
                      host_view(g), host_view(x), host_view(w), host_view(off), host_view(m), host_view(b), params);
                  store(gi, dx);
                  store(gw, dw);
                  store(go, doff);
                  store(gm, dm);
                  store(gb, db);
                });
}

}  // extern "C"
