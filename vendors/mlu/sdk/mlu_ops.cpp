// The simulated MLU's operator library. Arguments are validated on the host at
// once (device memory, extents, dtypes the chip has); the computation runs on
// the queue's worker thread. The simulator's "ALU" is ATen's CPU kernels,
// applied to host views of the simulated device memory.
#include "mlu_ops.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/ops/_log_softmax_backward_data_native.h>
#include <ATen/native/TensorFactories.h>

#include <string>

#include "mlu_device.h"

namespace {

using mlu_sim::fail;

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
  if (numel(*t) == 0) return MLU_RET_SUCCESS;
  int64_t last = 0;
  for (int i = 0; i < t->dim; ++i) {
    if (t->stride[i] < 0) return fail(MLU_RET_ERR_NOT_SUPPORTED, std::string(op) + ": negative stride");
    last += (t->shape[i] - 1) * t->stride[i];
  }
  const size_t bytes = static_cast<size_t>(last + 1) * c10::elementSize(aten_dtype(t->dtype));
  mlu_sim::Device* device = mlu_sim::device_owning(t->data);
  if (!device || !device->arena->covers(t->data, bytes)) {
    return fail(MLU_RET_ERR_INVALID_ADDRESS, std::string(op) + ": tensor of " + std::to_string(bytes) +
                                                 " bytes is not inside a live MLU allocation");
  }
  return MLU_RET_SUCCESS;
}

// A CPU tensor aliasing simulated device memory; only built on the worker thread.
at::Tensor host_view(const mluTensor_t& t) {
  return at::from_blob(t.data, at::IntArrayRef(t.shape, t.dim), at::IntArrayRef(t.stride, t.dim),
                       at::TensorOptions().dtype(aten_dtype(t.dtype)));
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
  mlu_sim::enqueue(q, [op, body = std::move(body)]() -> std::string {
    try {
      body();
    } catch (const std::exception& e) {
      return std::string(op) + ": " + e.what();
    }
    return "";
  });
  return MLU_RET_SUCCESS;
}

uint64_t mix(uint64_t seed, uint64_t offset) {
  // splitmix64 of the pair: a stream per (seed, offset), independent of scheduling.
  uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (offset + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
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
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(mix(state.seed, state.offset));
    host_view(x).normal_(mean, std, gen);
  });
}

mluRet_t mluOpRandUniform(mluQueue_t q, const mluTensor_t* x, double low, double high, mluRandState_t state) {
  if (!(low <= high)) return fail(MLU_RET_ERR_INVALID_VALUE, "mluOpRandUniform: low must be <= high");
  return launch("mluOpRandUniform", q, {x}, [x = *x, low, high, state] {
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(mix(state.seed, state.offset));
    host_view(x).uniform_(low, high, gen);
  });
}

}  // extern "C"
