// Element-wise entry points of nv_ops.h: argument checks, then one launch of a
// body from nv_element_bodies.cuh.
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

}  // namespace
}  // namespace nvops

using namespace nvops;

extern "C" {

nvopsStatus_t nvopsBinary(cudaStream_t stream, nvopsBinaryOp_t op, const nvopsTensor_t* a, const nvopsTensor_t* b,
                          double alpha, const nvopsTensor_t* out) {
  if (!a || !b || !out || !floating(a->dtype) || !floating(b->dtype) || !floating(out->dtype)) {
    return fail(NVOPS_ERROR_NOT_SUPPORTED, "nvopsBinary: operands and result must be float32, float16 or bfloat16");
  }
  BinaryBody body{};
  if (!walk_of<3>(*out, {a, b}, body.walk)) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsBinary: operands do not broadcast to the result's shape");
  }
  const int64_t n = numel(*out);
  if (n == 0) return NVOPS_SUCCESS;
  NVOPS_ENTER(stream, "nvopsBinary");
  if (row_major(*out) && contiguous_like(*a, *out) && contiguous_like(*b, *out)) {
    NVOPS_DISPATCH_FLOATING(out->dtype, return launch_contiguous_binary<scalar_t>(
                                            stream, op, *a, b, 0.f, binary_operand(op, out->dtype, alpha), *out));
  }
  body.op = op;
  body.alpha = binary_operand(op, out->dtype, alpha);
  body.out = out->data, body.a = a->data, body.b = b->data;
  body.out_type = out->dtype, body.a_type = a->dtype, body.b_type = b->dtype;
  return launch_each(stream, n, body, "nvopsBinary");
}

nvopsStatus_t nvopsBinaryScalar(cudaStream_t stream, nvopsBinaryOp_t op, const nvopsTensor_t* a, double value,
                                double alpha, const nvopsTensor_t* out) {
  if (!a || !out || !floating(a->dtype) || !floating(out->dtype)) {
    return fail(NVOPS_ERROR_NOT_SUPPORTED, "nvopsBinaryScalar: operand and result must be float32, float16 or bfloat16");
  }
  BinaryScalarBody body{};
  if (!walk_of<2>(*out, {a}, body.walk)) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsBinaryScalar: the operand does not broadcast to the result's shape");
  }
  const int64_t n = numel(*out);
  if (n == 0) return NVOPS_SUCCESS;
  NVOPS_ENTER(stream, "nvopsBinaryScalar");
  // The number in float32 first, as ATen's opmath does (rounded to the result's dtype
  // for add and sub), then times alpha.
  const float number = binary_operand(op, out->dtype, value), scale = binary_operand(op, out->dtype, alpha);
  if (row_major(*out) && contiguous_like(*a, *out)) {
    NVOPS_DISPATCH_FLOATING(out->dtype,
                            return launch_contiguous_binary<scalar_t>(stream, op, *a, nullptr, number, scale, *out));
  }
  body.op = op;
  body.right = scale * number;
  body.out = out->data, body.a = a->data;
  body.out_type = out->dtype, body.a_type = a->dtype;
  return launch_each(stream, n, body, "nvopsBinaryScalar");
}

nvopsStatus_t nvopsUnary(cudaStream_t stream, nvopsUnaryOp_t op, const nvopsTensor_t* x, const nvopsTensor_t* out) {
  if (!x || !out || !same_shape(*x, *out)) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsUnary: input and result must have one shape");
  }
  if (!floating(x->dtype) || !floating(out->dtype)) {
    return fail(NVOPS_ERROR_NOT_SUPPORTED, "nvopsUnary: input and result must be float32, float16 or bfloat16");
  }
  UnaryBody body{};
  walk_of<2>(*out, {x}, body.walk);
  const int64_t n = numel(*out);
  if (n == 0) return NVOPS_SUCCESS;
  NVOPS_ENTER(stream, "nvopsUnary");
  body.op = op;
  body.out = out->data, body.x = x->data, body.out_type = out->dtype, body.x_type = x->dtype;
  return launch_each(stream, n, body, "nvopsUnary");
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
  UnaryBackwardBody body{};
  if (!walk_of<3>(*out, {grad, saved}, body.walk)) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsUnaryBackward: operands do not broadcast to the result's shape");
  }
  const int64_t n = numel(*out);
  if (n == 0) return NVOPS_SUCCESS;
  NVOPS_ENTER(stream, "nvopsUnaryBackward");
  body.op = op, body.threshold = static_cast<float>(threshold);
  body.out = out->data, body.grad = grad->data, body.saved = saved->data;
  body.out_type = out->dtype, body.grad_type = grad->dtype, body.saved_type = saved->dtype;
  return launch_each(stream, n, body, "nvopsUnaryBackward");
}

nvopsStatus_t nvopsDropout(cudaStream_t stream, const nvopsTensor_t* x, double p, bool train, nvopsRandState_t state,
                           const nvopsTensor_t* out, const nvopsTensor_t* mask) {
  if (!x || !out || !mask || !floating(x->dtype) || !floating(out->dtype) || mask->dtype != NVOPS_BOOL ||
      !same_shape(*x, *out) || !same_shape(*x, *mask)) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsDropout: a floating input, a result like it and a bool mask");
  }
  if (!(p >= 0.0 && p <= 1.0)) return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsDropout: p must lie in [0, 1]");
  DropoutBody body{};
  walk_of<3>(*out, {mask, x}, body.walk);
  const int64_t n = numel(*out);
  if (n == 0) return NVOPS_SUCCESS;
  NVOPS_ENTER(stream, "nvopsDropout");
  body.keep_probability = static_cast<float>(1.0 - p);
  body.scale = p == 1.0 ? 0.f : static_cast<float>(1.0 / (1.0 - p));
  body.train = train, body.seed = state.seed, body.offset = state.offset;
  body.out = out->data, body.mask = static_cast<bool*>(mask->data), body.x = x->data;
  body.out_type = out->dtype, body.x_type = x->dtype;
  return launch_each(stream, n, body, "nvopsDropout");
}

nvopsStatus_t nvopsDropoutBackward(cudaStream_t stream, const nvopsTensor_t* grad, const nvopsTensor_t* mask,
                                   double scale, const nvopsTensor_t* out) {
  if (!grad || !mask || !out || !floating(grad->dtype) || !floating(out->dtype) || mask->dtype != NVOPS_BOOL) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsDropoutBackward: a floating gradient and a bool mask");
  }
  MaskScaleBody body{};
  if (!walk_of<3>(*out, {grad, mask}, body.walk)) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsDropoutBackward: operands do not broadcast to the result's shape");
  }
  const int64_t n = numel(*out);
  if (n == 0) return NVOPS_SUCCESS;
  NVOPS_ENTER(stream, "nvopsDropoutBackward");
  body.scale = static_cast<float>(scale);
  body.out = out->data, body.grad = grad->data, body.mask = static_cast<const bool*>(mask->data);
  body.out_type = out->dtype, body.grad_type = grad->dtype;
  return launch_each(stream, n, body, "nvopsDropoutBackward");
}

nvopsStatus_t nvopsTernary(cudaStream_t stream, nvopsTernaryOp_t op, const nvopsTensor_t* a, const nvopsTensor_t* b,
                           const nvopsTensor_t* c, double value, const nvopsTensor_t* out) {
  const bool needs_c = op != NVOPS_LERP;
  if (!a || !b || !out || needs_c != present(c) || !floating(a->dtype) || !floating(b->dtype) ||
      !floating(out->dtype) || (needs_c && !floating(c->dtype))) {
    return fail(NVOPS_ERROR_NOT_SUPPORTED,
                "nvopsTernary: floating operands (a third one for addcmul and addcdiv, none for lerp)");
  }
  TernaryBody body{};
  const nvopsTensor_t* third = needs_c ? c : a;  // lerp: a stands in, unread
  if (!walk_of<4>(*out, {a, b, third}, body.walk)) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsTernary: operands do not broadcast to the result's shape");
  }
  const int64_t n = numel(*out);
  if (n == 0) return NVOPS_SUCCESS;
  NVOPS_ENTER(stream, "nvopsTernary");
  body.op = op;
  body.value = static_cast<float>(value);
  body.out = out->data, body.a = a->data, body.b = b->data, body.c = needs_c ? c->data : nullptr;
  body.out_type = out->dtype, body.a_type = a->dtype, body.b_type = b->dtype;
  body.c_type = needs_c ? c->dtype : NVOPS_INVALID;
  return launch_each(stream, n, body, "nvopsTernary");
}

nvopsStatus_t nvopsWhere(cudaStream_t stream, const nvopsTensor_t* condition, const nvopsTensor_t* a,
                         const nvopsTensor_t* b, const nvopsTensor_t* out) {
  if (!condition || !a || !b || !out || element_size(condition->dtype) == 0 || is_complex(condition->dtype) ||
      element_size(a->dtype) == 0 || element_size(b->dtype) == 0 || element_size(out->dtype) == 0 ||
      ((is_complex(a->dtype) || is_complex(b->dtype)) && (a->dtype != out->dtype || b->dtype != out->dtype))) {
    return fail(NVOPS_ERROR_NOT_SUPPORTED, "nvopsWhere: a real condition; complex operands only of the result's dtype");
  }
  WhereBody body{};
  if (!walk_of<4>(*out, {condition, a, b}, body.walk)) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsWhere: operands do not broadcast to the result's shape");
  }
  const int64_t n = numel(*out);
  if (n == 0) return NVOPS_SUCCESS;
  NVOPS_ENTER(stream, "nvopsWhere");
  body.out = out->data, body.condition = condition->data, body.a = a->data, body.b = b->data;
  body.out_type = out->dtype, body.condition_type = condition->dtype, body.a_type = a->dtype, body.b_type = b->dtype;
  return launch_each(stream, n, body, "nvopsWhere");
}

nvopsStatus_t nvopsIsNegInf(cudaStream_t stream, const nvopsTensor_t* x, const nvopsTensor_t* out) {
  if (!x || !out || !floating(x->dtype) || out->dtype != NVOPS_BOOL || !same_shape(*x, *out)) {
    return fail(NVOPS_ERROR_NOT_SUPPORTED, "nvopsIsNegInf: a floating input and a bool result of its shape");
  }
  IsNegInfBody body{};
  walk_of<2>(*out, {x}, body.walk);
  const int64_t n = numel(*out);
  if (n == 0) return NVOPS_SUCCESS;
  NVOPS_ENTER(stream, "nvopsIsNegInf");
  body.out = static_cast<bool*>(out->data), body.x = x->data, body.type = x->dtype;
  return launch_each(stream, n, body, "nvopsIsNegInf");
}

nvopsStatus_t nvopsTriangle(cudaStream_t stream, const nvopsTensor_t* x, int64_t diagonal, bool upper,
                            const nvopsTensor_t* out) {
  if (!x || !out || x->dtype != out->dtype || !same_shape(*x, *out) || element_size(x->dtype) == 0) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsTriangle: input and result must match in dtype and shape");
  }
  if (x->dim < 2) return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsTriangle: needs at least 2 dims");
  TriangleBody body{};
  walk_of<2>(*out, {x}, body.walk);
  const int64_t n = numel(*out);
  if (n == 0) return NVOPS_SUCCESS;
  NVOPS_ENTER(stream, "nvopsTriangle");
  body.rows = x->shape[x->dim - 2], body.cols = x->shape[x->dim - 1];
  body.diagonal = diagonal, body.upper = upper;
  body.out = out->data, body.x = x->data, body.bytes = element_size(x->dtype);
  return launch_each(stream, n, body, "nvopsTriangle");
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
  const ArangeBody body{walk_over(*out), start, step, out->data, out->dtype};
  return launch_each(stream, n, body, "nvopsArange");
}

nvopsStatus_t nvopsFill(cudaStream_t stream, const nvopsTensor_t* x, double value) {
  if (!x || element_size(x->dtype) == 0) return fail(NVOPS_ERROR_NOT_SUPPORTED, "nvopsFill: unsupported dtype");
  const int64_t n = numel(*x);
  if (n == 0) return NVOPS_SUCCESS;
  NVOPS_ENTER(stream, "nvopsFill");
  const FillBody body{walk_over(*x), x->data, x->dtype, value};
  return launch_each(stream, n, body, "nvopsFill");
}

nvopsStatus_t nvopsCopy(cudaStream_t stream, const nvopsTensor_t* dst, const nvopsTensor_t* src) {
  if (!dst || !src || element_size(dst->dtype) == 0 || element_size(src->dtype) == 0) {
    return fail(NVOPS_ERROR_NOT_SUPPORTED, "nvopsCopy: unsupported dtype");
  }
  CopyBody body{};
  if (!walk_of<2>(*dst, {src}, body.walk)) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsCopy: source does not broadcast to the destination");
  }
  const int64_t n = numel(*dst);
  if (n == 0) return NVOPS_SUCCESS;
  NVOPS_ENTER(stream, "nvopsCopy");
  body.dst = dst->data, body.src = src->data, body.dst_type = dst->dtype, body.src_type = src->dtype;
  return launch_each(stream, n, body, "nvopsCopy");
}

}  // extern "C"
