// Element-wise entry points of nv_ops.h: argument checks, then one launch of a
// body from nv_element_bodies.cuh.
#include <type_traits>

#include "nv_element_bodies.cuh"

namespace nvops {
namespace {

bool aligned_for_four(const void* p, size_t element_bytes) {
  return reinterpret_cast<uintptr_t>(p) % (4 * element_bytes) == 0;
}

// Contiguous a (and b) of out's shape and dtype: the vectorized body.
template <class T>
nvopsStatus_t launch_contiguous_binary(cudaStream_t stream, nvopsBinaryOp_t op, const nvopsTensor_t& a,
                                       const nvopsTensor_t* b, float scalar, float alpha, const nvopsTensor_t& out) {
  BinaryContiguousBody<T> body{};
  body.n = numel(out);
  body.op = op;
  body.alpha = alpha;
  body.out = static_cast<T*>(out.data);
  body.a = static_cast<const T*>(a.data);
  body.b = b ? static_cast<const T*>(b->data) : nullptr;
  body.scalar = scalar;
  body.aligned = aligned_for_four(out.data, sizeof(T)) && aligned_for_four(a.data, sizeof(T)) &&
                 (!b || aligned_for_four(b->data, sizeof(T)));
  return launch_each(stream, (body.n + 3) / 4, body, b ? "nvopsBinary" : "nvopsBinaryScalar");
}

bool contiguous_like(const nvopsTensor_t& t, const nvopsTensor_t& out) {
  return t.dtype == out.dtype && same_shape(t, out) && row_major(t);
}

// nvopsBinary's (b) or nvopsBinaryScalar's (`scalar`) call on contiguous operands.
nvopsStatus_t contiguous_binary(cudaStream_t stream, nvopsBinaryOp_t op, const nvopsTensor_t& a,
                                const nvopsTensor_t* b, float scalar, float alpha, const nvopsTensor_t& out) {
  if (numel(out) == 0) return NVOPS_SUCCESS;
  NVOPS_ENTER(stream, b ? "nvopsBinary" : "nvopsBinaryScalar");
  NVOPS_DISPATCH_FLOATING(out.dtype, return launch_contiguous_binary<scalar_t>(stream, op, a, b, scalar, alpha, out));
}

// What an entry point over strided operands does after its argument checks:
// out's walk with the operands (INVALID_ARGUMENT, `mismatch`, where one does not
// broadcast), nothing more for an empty result, the entry step, then `set` fills
// in the body's parameters for one launch. A Strided body's output and inputs
// are out and the operands, bound here; another body's `set` fills in its own.
template <class Body, size_t Operands, class Set>
nvopsStatus_t launch_walked(cudaStream_t stream, const char* op, const nvopsTensor_t& out,
                            const nvopsTensor_t* const (&operands)[Operands], const char* mismatch, Set set) {
  Body body{};
  if (!walk_of(out, operands, body.walk)) return fail(NVOPS_ERROR_INVALID_ARGUMENT, mismatch);
  const int64_t n = numel(out);
  if (n == 0) return NVOPS_SUCCESS;
  NVOPS_ENTER(stream, op);
  if constexpr (std::is_base_of<Strided<Operands, Body>, Body>::value) body.bind(out, operands);
  set(body);
  return launch_each(stream, n, body, op);
}

}  // namespace
}  // namespace nvops

using namespace nvops;

extern "C" {

nvopsStatus_t nvopsBinary(cudaStream_t stream, nvopsBinaryOp_t op, const nvopsTensor_t* a, const nvopsTensor_t* b,
                          double alpha, const nvopsTensor_t* out) {
  if (!a || !b || !out || !floating(a->dtype) || !floating(b->dtype) || !floating(out->dtype)) {
    return fail(NVOPS_ERROR_NOT_SUPPORTED, "nvopsBinary: operands and result must be float32, float16 or bfloat16");
  }
  const float scale = binary_operand(op, out->dtype, alpha);
  if (row_major(*out) && contiguous_like(*a, *out) && contiguous_like(*b, *out)) {
    return contiguous_binary(stream, op, *a, b, 0.f, scale, *out);
  }
  return launch_walked<BinaryBody>(
      stream, "nvopsBinary", *out, {a, b}, "nvopsBinary: operands do not broadcast to the result's shape",
      [&](BinaryBody& body) { body.op = op, body.alpha = scale; });
}

nvopsStatus_t nvopsBinaryScalar(cudaStream_t stream, nvopsBinaryOp_t op, const nvopsTensor_t* a, double value,
                                double alpha, const nvopsTensor_t* out) {
  if (!a || !out || !floating(a->dtype) || !floating(out->dtype)) {
    return fail(NVOPS_ERROR_NOT_SUPPORTED, "nvopsBinaryScalar: operand and result must be float32, float16 or bfloat16");
  }
  // The number in float32 first, as ATen's opmath does (rounded to the result's dtype
  // for add and sub), then times alpha.
  const float number = binary_operand(op, out->dtype, value), scale = binary_operand(op, out->dtype, alpha);
  if (row_major(*out) && contiguous_like(*a, *out)) {
    return contiguous_binary(stream, op, *a, nullptr, number, scale, *out);
  }
  return launch_walked<BinaryScalarBody>(
      stream, "nvopsBinaryScalar", *out, {a}, "nvopsBinaryScalar: the operand does not broadcast to the result's shape",
      [&](BinaryScalarBody& body) { body.op = op, body.right = scale * number; });
}

nvopsStatus_t nvopsUnary(cudaStream_t stream, nvopsUnaryOp_t op, const nvopsTensor_t* x, const nvopsTensor_t* out) {
  if (!x || !out || !same_shape(*x, *out)) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsUnary: input and result must have one shape");
  }
  if (!floating(x->dtype) || !floating(out->dtype)) {
    return fail(NVOPS_ERROR_NOT_SUPPORTED, "nvopsUnary: input and result must be float32, float16 or bfloat16");
  }
  return launch_walked<UnaryBody>(stream, "nvopsUnary", *out, {x}, "nvopsUnary: input and result must have one shape",
                                  [&](UnaryBody& body) { body.op = op; });
}

nvopsStatus_t nvopsUnaryBackward(cudaStream_t stream, nvopsUnaryOp_t op, const nvopsTensor_t* grad,
                                 const nvopsTensor_t* saved, double threshold, const nvopsTensor_t* out) {
  const bool has_backward = op == NVOPS_GELU || op == NVOPS_GELU_TANH || op == NVOPS_SILU || op == NVOPS_TANH ||
                            op == NVOPS_SIGMOID || op == NVOPS_RELU;
  if (!grad || !saved || !out || !floating(grad->dtype) || !floating(saved->dtype) || !floating(out->dtype) ||
      !has_backward) {
    return fail(NVOPS_ERROR_NOT_SUPPORTED,
                "nvopsUnaryBackward: floating operands, and gelu, silu, tanh, sigmoid or relu (threshold)");
  }
  return launch_walked<UnaryBackwardBody>(
      stream, "nvopsUnaryBackward", *out, {grad, saved},
      "nvopsUnaryBackward: operands do not broadcast to the result's shape", [&](UnaryBackwardBody& body) {
        body.op = op, body.threshold = static_cast<float>(threshold);
      });
}

nvopsStatus_t nvopsDropout(cudaStream_t stream, const nvopsTensor_t* x, double p, bool train, nvopsRandState_t state,
                           const nvopsTensor_t* out, const nvopsTensor_t* mask) {
  if (!x || !out || !mask || !floating(x->dtype) || !floating(out->dtype) || mask->dtype != NVOPS_BOOL ||
      !same_shape(*x, *out) || !same_shape(*x, *mask)) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsDropout: a floating input, a result like it and a bool mask");
  }
  if (!(p >= 0.0 && p <= 1.0)) return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsDropout: p must lie in [0, 1]");
  return launch_walked<DropoutBody>(
      stream, "nvopsDropout", *out, {mask, x}, "nvopsDropout: a floating input, a result like it and a bool mask",
      [&](DropoutBody& body) {
        body.keep_probability = static_cast<float>(1.0 - p);
        body.scale = p == 1.0 ? 0.f : static_cast<float>(1.0 / (1.0 - p));
        body.train = train, body.seed = state.seed, body.offset = state.offset;
        body.out = Output{out->data, out->dtype}, body.mask = static_cast<bool*>(mask->data);
        body.x = Input{x->data, x->dtype};
      });
}

nvopsStatus_t nvopsDropoutBackward(cudaStream_t stream, const nvopsTensor_t* grad, const nvopsTensor_t* mask,
                                   double scale, const nvopsTensor_t* out) {
  if (!grad || !mask || !out || !floating(grad->dtype) || !floating(out->dtype) || mask->dtype != NVOPS_BOOL) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsDropoutBackward: a floating gradient and a bool mask");
  }
  return launch_walked<MaskScaleBody>(
      stream, "nvopsDropoutBackward", *out, {grad, mask},
      "nvopsDropoutBackward: operands do not broadcast to the result's shape",
      [&](MaskScaleBody& body) { body.scale = static_cast<float>(scale); });
}

nvopsStatus_t nvopsTernary(cudaStream_t stream, nvopsTernaryOp_t op, const nvopsTensor_t* a, const nvopsTensor_t* b,
                           const nvopsTensor_t* c, double value, const nvopsTensor_t* out) {
  const bool needs_c = op != NVOPS_LERP;
  if (!a || !b || !out || needs_c != present(c) || !floating(a->dtype) || !floating(b->dtype) ||
      !floating(out->dtype) || (needs_c && !floating(c->dtype))) {
    return fail(NVOPS_ERROR_NOT_SUPPORTED,
                "nvopsTernary: floating operands (a third one for addcmul and addcdiv, none for lerp)");
  }
  const nvopsTensor_t* third = needs_c ? c : a;  // lerp: a stands in, unread
  return launch_walked<TernaryBody>(
      stream, "nvopsTernary", *out, {a, b, third}, "nvopsTernary: operands do not broadcast to the result's shape",
      [&](TernaryBody& body) {
        body.op = op, body.value = static_cast<float>(value);
        if (!needs_c) body.in[2] = Input{nullptr, NVOPS_INVALID};  // lerp has no c (a stood in for the walk)
      });
}

nvopsStatus_t nvopsWhere(cudaStream_t stream, const nvopsTensor_t* condition, const nvopsTensor_t* a,
                         const nvopsTensor_t* b, const nvopsTensor_t* out) {
  if (!condition || !a || !b || !out || element_size(condition->dtype) == 0 || is_complex(condition->dtype) ||
      element_size(a->dtype) == 0 || element_size(b->dtype) == 0 || element_size(out->dtype) == 0 ||
      ((is_complex(a->dtype) || is_complex(b->dtype)) && (a->dtype != out->dtype || b->dtype != out->dtype))) {
    return fail(NVOPS_ERROR_NOT_SUPPORTED, "nvopsWhere: a real condition; complex operands only of the result's dtype");
  }
  return launch_walked<WhereBody>(
      stream, "nvopsWhere", *out, {condition, a, b}, "nvopsWhere: operands do not broadcast to the result's shape",
      [](WhereBody&) {});
}

nvopsStatus_t nvopsIsNegInf(cudaStream_t stream, const nvopsTensor_t* x, const nvopsTensor_t* out) {
  if (!x || !out || !floating(x->dtype) || out->dtype != NVOPS_BOOL || !same_shape(*x, *out)) {
    return fail(NVOPS_ERROR_NOT_SUPPORTED, "nvopsIsNegInf: a floating input and a bool result of its shape");
  }
  return launch_walked<IsNegInfBody>(stream, "nvopsIsNegInf", *out, {x},
                                     "nvopsIsNegInf: a floating input and a bool result of its shape",
                                     [](IsNegInfBody&) {});
}

nvopsStatus_t nvopsTriangle(cudaStream_t stream, const nvopsTensor_t* x, int64_t diagonal, bool upper,
                            const nvopsTensor_t* out) {
  if (!x || !out || x->dtype != out->dtype || !same_shape(*x, *out) || element_size(x->dtype) == 0) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsTriangle: input and result must match in dtype and shape");
  }
  if (x->dim < 2) return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsTriangle: needs at least 2 dims");
  return launch_walked<TriangleBody>(stream, "nvopsTriangle", *out, {x},
                                     "nvopsTriangle: input and result must match in dtype and shape",
                                     [&](TriangleBody& body) {
                                       body.rows = x->shape[x->dim - 2], body.cols = x->shape[x->dim - 1];
                                       body.diagonal = diagonal, body.upper = upper;
                                       body.bytes = element_size(x->dtype);
                                     });
}

nvopsStatus_t nvopsArange(cudaStream_t stream, double start, double step, const nvopsTensor_t* out) {
  if (!out || element_size(out->dtype) == 0 || is_complex(out->dtype)) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsArange: a result of a real dtype");
  }
  const int64_t n = numel(*out);
  if (n == 0) return NVOPS_SUCCESS;
  NVOPS_ENTER(stream, "nvopsArange");
  // An integral result computes in its own type, as ATen's (its acc_type): start and step
  // are truncated first (arange(0.5, 5, 1.5) as int64 is 0, 1, 2).
  if (!floating(out->dtype) && out->dtype != NVOPS_F64) start = std::trunc(start), step = std::trunc(step);
  const ArangeBody body{walk_over(*out), start, step, Output{out->data, out->dtype}};
  return launch_each(stream, n, body, "nvopsArange");
}

nvopsStatus_t nvopsFill(cudaStream_t stream, const nvopsTensor_t* x, double value) {
  if (!x || element_size(x->dtype) == 0) return fail(NVOPS_ERROR_NOT_SUPPORTED, "nvopsFill: unsupported dtype");
  const int64_t n = numel(*x);
  if (n == 0) return NVOPS_SUCCESS;
  NVOPS_ENTER(stream, "nvopsFill");
  const FillBody body{walk_over(*x), Output{x->data, x->dtype}, value};
  return launch_each(stream, n, body, "nvopsFill");
}

nvopsStatus_t nvopsCopy(cudaStream_t stream, const nvopsTensor_t* dst, const nvopsTensor_t* src) {
  if (!dst || !src || element_size(dst->dtype) == 0 || element_size(src->dtype) == 0) {
    return fail(NVOPS_ERROR_NOT_SUPPORTED, "nvopsCopy: unsupported dtype");
  }
  return launch_walked<CopyBody>(
      stream, "nvopsCopy", *dst, {src}, "nvopsCopy: source does not broadcast to the destination",
      [](CopyBody&) {});
}

}  // extern "C"
