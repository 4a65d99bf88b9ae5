// What each elementwise op computes: an OpenCL C expression of x (y, z) and the
// parameters p0..p2, in the compute type W, once for floating point and once for
// integers (nullptr: the op has no integer form). Each follows PyTorch's CPU
// kernel: its NaN propagation, its rounding (round is half to even), its special
// cases; helpers named tfl_* are in kernels/ocl_math.cl. A unary or binary
// expression is written once: an integer form the same as the floating one is
// that one.
#include "ocl_elementwise_expressions.h"

namespace torch_fl::ocl::ops {
namespace {

const char* unary_floating(oclopsUnaryOp_t op) {
  switch (op) {
    case OCLOPS_RELU: return "((x) < 0 ? (W)0 : (x))";  // NaN stays NaN
    case OCLOPS_NEG: return "(-(x))";
    case OCLOPS_IDENTITY: return "(x)";
    case OCLOPS_EXP: return "exp(x)";
    case OCLOPS_EXP2: return "exp2(x)";
    case OCLOPS_EXPM1: return "expm1(x)";
    case OCLOPS_LOG: return "log(x)";
    case OCLOPS_LOG2: return "log2(x)";
    case OCLOPS_LOG10: return "log10(x)";
    case OCLOPS_LOG1P: return "log1p(x)";
    case OCLOPS_SQRT: return "sqrt(x)";
    case OCLOPS_RSQRT: return "((W)1 / sqrt(x))";  // OpenCL's rsqrt may be a cheap approximation
    case OCLOPS_ABS: return "fabs(x)";
    case OCLOPS_RECIPROCAL: return "((W)1 / (x))";
    // NaN and both zeros give 0, as PyTorch's (0 < x) - (x < 0).
    case OCLOPS_SIGN: return "(W)(((W)0 < (x)) - ((x) < (W)0))";
    case OCLOPS_SIN: return "sin(x)";
    case OCLOPS_COS: return "cos(x)";
    case OCLOPS_TAN: return "tan(x)";
    case OCLOPS_ASIN: return "asin(x)";
    case OCLOPS_ACOS: return "acos(x)";
    case OCLOPS_ATAN: return "atan(x)";
    case OCLOPS_SINH: return "sinh(x)";
    case OCLOPS_COSH: return "cosh(x)";
    case OCLOPS_TANH: return "tanh(x)";
    case OCLOPS_ASINH: return "asinh(x)";
    case OCLOPS_ACOSH: return "acosh(x)";
    case OCLOPS_ATANH: return "atanh(x)";
    case OCLOPS_ERF: return "erf(x)";
    case OCLOPS_ERFC: return "erfc(x)";
    case OCLOPS_LGAMMA: return "lgamma(x)";
    case OCLOPS_SINC: return "tfl_sinc(x)";
    case OCLOPS_DEG2RAD: return "((x) * (W)0.017453292519943295)";
    case OCLOPS_RAD2DEG: return "((x) * (W)57.295779513082323)";
    case OCLOPS_CEIL: return "ceil(x)";
    case OCLOPS_FLOOR: return "floor(x)";
    case OCLOPS_ROUND: return "rint(x)";
    case OCLOPS_TRUNC: return "trunc(x)";
    case OCLOPS_FRAC: return "((x) - trunc(x))";
    case OCLOPS_SIGMOID: return "((W)1 / ((W)1 + exp(-(x))))";
    case OCLOPS_SILU: return "((x) / ((W)1 + exp(-(x))))";
    case OCLOPS_GELU: return "((x) * (W)0.5 * ((W)1 + erf((x) * (W)0.70710678118654752)))";
    case OCLOPS_GELU_TANH: return "tfl_gelu_tanh(x)";
    case OCLOPS_HARDSIGMOID: return "(tfl_clamp((x) + (W)3, (W)0, (W)6) / (W)6)";
    case OCLOPS_HARDSWISH: return "((x) * tfl_clamp((x) + (W)3, (W)0, (W)6) / (W)6)";
    case OCLOPS_MISH: return "((x) * tanh(log1p(exp(x))))";
    case OCLOPS_LOGICAL_NOT: return "(W)((x) == 0)";
    case OCLOPS_ISNAN: return "(W)isnan(x)";
    case OCLOPS_ISPOSINF: return "(W)((x) == (W)INFINITY)";
    case OCLOPS_ISNEGINF: return "(W)((x) == -(W)INFINITY)";
    case OCLOPS_SIGNBIT: return "(W)(signbit(x) != 0)";
    case OCLOPS_CLAMP: return "tfl_clamp(x, p0, p1)";
    case OCLOPS_LEAKY_RELU: return "((x) > 0 ? (x) : (x) * (p0))";
    case OCLOPS_ELU: return "((x) <= 0 ? expm1((x) * (p2)) * (p0) * (p1) : (x) * (p1))";
    case OCLOPS_THRESHOLD: return "((x) <= (p0) ? (p1) : (x))";
    case OCLOPS_SOFTPLUS: return "((x) * (p0) > (p1) ? (x) : log1p(exp((x) * (p0))) / (p0))";
    case OCLOPS_HARDSHRINK: return "(((x) >= -(p0) && (x) <= (p0)) ? (W)0 : (x))";
    case OCLOPS_SOFTSHRINK: return "((x) > (p0) ? (x) - (p0) : ((x) < -(p0) ? (x) + (p0) : (x) * 0))";
    case OCLOPS_LOGIT: return "tfl_logit(x, p0)";
    case OCLOPS_ENTR: return "(isnan(x) ? (x) : ((x) > 0 ? -(x) * log(x) : ((x) == 0 ? (W)0 : -(W)INFINITY)))";
    case OCLOPS_BITWISE_NOT: return nullptr;  // integers only
  }
  return nullptr;
}

// The integer forms: the floating expression where it is the same, else their own.
const char* unary_integral(oclopsUnaryOp_t op) {
  switch (op) {
    case OCLOPS_RELU: case OCLOPS_NEG: case OCLOPS_IDENTITY: case OCLOPS_LOGICAL_NOT: case OCLOPS_THRESHOLD:
      return unary_floating(op);
    case OCLOPS_ABS: return "((x) < 0 ? -(x) : (x))";
    case OCLOPS_SIGN: return "(W)((0 < (x)) - ((x) < 0))";
    // On integers PyTorch's rounding ops return the values unchanged.
    case OCLOPS_CEIL: case OCLOPS_FLOOR: case OCLOPS_ROUND: case OCLOPS_TRUNC: return "(x)";
    case OCLOPS_BITWISE_NOT: return "(~(x))";  // bool: LOGICAL_NOT (the host swaps it)
    case OCLOPS_ISNAN: case OCLOPS_ISPOSINF: case OCLOPS_ISNEGINF: return "(W)0";  // an integer is finite
    case OCLOPS_SIGNBIT: return "(W)((x) < 0)";
    case OCLOPS_CLAMP: return "min(max((x), (p0)), (p1))";
    default: return nullptr;  // floating point only
  }
}

const char* binary_floating(oclopsBinaryOp_t op) {
  switch (op) {
    case OCLOPS_ADD: return "((x) + (p0) * (y))";
    case OCLOPS_SUB: return "((x) - (p0) * (y))";
    case OCLOPS_MUL: return "((x) * (y))";
    case OCLOPS_DIV: return "((x) / (y))";  // true division: ATen gives a floating result
    case OCLOPS_RSUB: return "((y) - (p0) * (x))";
    // Integer division by zero raises on CPU; a kernel cannot, so integers are not offered.
    case OCLOPS_DIV_TRUNC: return "trunc((x) / (y))";
    case OCLOPS_DIV_FLOOR: return "tfl_div_floor(x, y)";
    case OCLOPS_MAXIMUM: return "tfl_maximum(x, y)";
    case OCLOPS_MINIMUM: return "tfl_minimum(x, y)";
    case OCLOPS_FMAX: return "fmax(x, y)";
    case OCLOPS_FMIN: return "fmin(x, y)";
    case OCLOPS_POW: return "tfl_pow(x, y)";
    case OCLOPS_ATAN2: return "atan2(x, y)";
    case OCLOPS_HYPOT: return "hypot(x, y)";
    case OCLOPS_COPYSIGN: return "copysign(x, y)";
    case OCLOPS_NEXTAFTER: return "nextafter(x, y)";
    case OCLOPS_REMAINDER: return "tfl_remainder(x, y)";
    case OCLOPS_FMOD: return "fmod(x, y)";
    case OCLOPS_XLOGY: return "(isnan(y) ? (y) : ((x) == 0 ? (W)0 : (x) * log(y)))";
    case OCLOPS_LOGADDEXP: return "tfl_logaddexp(x, y)";
    case OCLOPS_LOGADDEXP2: return "tfl_logaddexp2(x, y)";
    case OCLOPS_EQ: return "(W)((x) == (y))";
    case OCLOPS_NE: return "(W)((x) != (y))";
    case OCLOPS_LT: return "(W)((x) < (y))";
    case OCLOPS_LE: return "(W)((x) <= (y))";
    case OCLOPS_GT: return "(W)((x) > (y))";
    case OCLOPS_GE: return "(W)((x) >= (y))";
    case OCLOPS_LOGICAL_AND: return "(W)((x) != 0 && (y) != 0)";
    case OCLOPS_LOGICAL_OR: return "(W)((x) != 0 || (y) != 0)";
    case OCLOPS_LOGICAL_XOR: return "(W)(((x) != 0) != ((y) != 0))";
    case OCLOPS_LERP: return "tfl_lerp(x, y, p0)";
    case OCLOPS_HEAVISIDE: return "((x) == 0 ? (y) : (W)((x) > 0))";
    case OCLOPS_XLOG1PY: return "(isnan(y) ? (y) : ((x) == 0 ? (W)0 : (x) * log1p(y)))";
    case OCLOPS_MASKED_FILL: return "((y) != 0 ? (p0) : (x))";
    case OCLOPS_LOGIT_BACKWARD: return "tfl_logit_backward(x, y, p0)";
    case OCLOPS_THRESHOLD_BACKWARD: return "((y) <= (p0) ? (W)0 : (x))";
    case OCLOPS_SIGMOID_BACKWARD: return "((x) * ((W)1 - (y)) * (y))";
    case OCLOPS_TANH_BACKWARD: return "((x) * ((W)1 - (y) * (y)))";
    case OCLOPS_SILU_BACKWARD: return "tfl_silu_backward(x, y)";
    case OCLOPS_GELU_BACKWARD: return "tfl_gelu_backward(x, y)";
    case OCLOPS_GELU_TANH_BACKWARD: return "tfl_gelu_tanh_backward(x, y)";
    case OCLOPS_MISH_BACKWARD: return "tfl_mish_backward(x, y)";
    case OCLOPS_HARDSIGMOID_BACKWARD: return "(((y) > (W)-3 && (y) < (W)3) ? (x) / (W)6 : (W)0)";
    case OCLOPS_HARDSWISH_BACKWARD: return "((y) < (W)-3 ? (W)0 : ((y) <= (W)3 ? (x) * ((y) / (W)3 + (W)0.5) : (x)))";
    case OCLOPS_LEAKY_RELU_BACKWARD: return "((y) > 0 ? (x) : (x) * (p0))";
    case OCLOPS_HARDTANH_BACKWARD: return "(((y) <= (p0) || (y) >= (p1)) ? (W)0 : (x))";
    case OCLOPS_SOFTPLUS_BACKWARD: return "tfl_softplus_backward(x, y, p0, p1)";
    case OCLOPS_SHRINK_BACKWARD: return "(((y) >= -(p0) && (y) <= (p0)) ? (W)0 : (x))";
    case OCLOPS_BITWISE_AND: case OCLOPS_BITWISE_OR: case OCLOPS_BITWISE_XOR: case OCLOPS_GCD: case OCLOPS_LCM:
      return nullptr;  // integers only
  }
  return nullptr;
}

const char* binary_integral(oclopsBinaryOp_t op) {
  switch (op) {
    case OCLOPS_ADD: case OCLOPS_SUB: case OCLOPS_MUL: case OCLOPS_RSUB: case OCLOPS_HEAVISIDE:
    case OCLOPS_MASKED_FILL: case OCLOPS_THRESHOLD_BACKWARD:
    case OCLOPS_EQ: case OCLOPS_NE: case OCLOPS_LT: case OCLOPS_LE: case OCLOPS_GT: case OCLOPS_GE:
    case OCLOPS_LOGICAL_AND: case OCLOPS_LOGICAL_OR: case OCLOPS_LOGICAL_XOR:
      return binary_floating(op);
    case OCLOPS_MAXIMUM: case OCLOPS_FMAX: return "max((x), (y))";  // no NaN to propagate or skip
    case OCLOPS_MINIMUM: case OCLOPS_FMIN: return "min((x), (y))";
    case OCLOPS_POW: return "tfl_ipow(x, y)";
    case OCLOPS_BITWISE_AND: return "((x) & (y))";
    case OCLOPS_BITWISE_OR: return "((x) | (y))";
    case OCLOPS_BITWISE_XOR: return "((x) ^ (y))";
    case OCLOPS_GCD: return "tfl_gcd(x, y)";
    case OCLOPS_LCM: return "tfl_lcm(x, y)";
    default: return nullptr;  // floating point only
  }
}

}  // namespace

Expression unary_expression(oclopsUnaryOp_t op) { return {unary_floating(op), unary_integral(op)}; }
Expression binary_expression(oclopsBinaryOp_t op) { return {binary_floating(op), binary_integral(op)}; }

// Five ops: both forms side by side.
Expression ternary_expression(oclopsTernaryOp_t op) {
  switch (op) {
    case OCLOPS_WHERE: return {"((x) != 0 ? (y) : (z))", "((x) != 0 ? (y) : (z))"};
    case OCLOPS_ADDCMUL: return {"((x) + (p0) * (y) * (z))", "((x) + (p0) * (y) * (z))"};
    case OCLOPS_ADDCDIV: return {"((x) + (p0) * (y) / (z))", nullptr};
    case OCLOPS_LERP_TENSOR: return {"tfl_lerp(x, y, z)", nullptr};
    case OCLOPS_CLAMP_TENSOR: return {"tfl_minimum(tfl_maximum(x, y), z)", "min(max((x), (y)), (z))"};
  }
  return {nullptr, nullptr};
}

}  // namespace torch_fl::ocl::ops
