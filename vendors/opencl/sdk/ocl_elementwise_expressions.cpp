// What each elementwise op computes: an OpenCL C expression of x (y, z) and the
// parameters p0..p2, in the compute type W, once for floating point and once for
// integers (nullptr: the op has no integer form). Each follows PyTorch's CPU
// kernel: its NaN propagation, its rounding (round is half to even), its special
// cases; helpers named tfl_* are in kernels/ocl_math.cl.
#include "ocl_elementwise_expressions.h"

namespace torch_fl::ocl::ops {

Expression unary_expression(oclopsUnaryOp_t op) {
  switch (op) {
    case OCLOPS_RELU: return {"((x) < 0 ? (W)0 : (x))", "((x) < 0 ? (W)0 : (x))"};  // NaN stays NaN
    case OCLOPS_NEG: return {"(-(x))", "(-(x))"};
    case OCLOPS_IDENTITY: return {"(x)", "(x)"};
    case OCLOPS_EXP: return {"exp(x)", nullptr};
    case OCLOPS_EXP2: return {"exp2(x)", nullptr};
    case OCLOPS_EXPM1: return {"expm1(x)", nullptr};
    case OCLOPS_LOG: return {"log(x)", nullptr};
    case OCLOPS_LOG2: return {"log2(x)", nullptr};
    case OCLOPS_LOG10: return {"log10(x)", nullptr};
    case OCLOPS_LOG1P: return {"log1p(x)", nullptr};
    case OCLOPS_SQRT: return {"sqrt(x)", nullptr};
    case OCLOPS_RSQRT: return {"((W)1 / sqrt(x))", nullptr};  // OpenCL's rsqrt may be a cheap approximation
    case OCLOPS_ABS: return {"fabs(x)", "((x) < 0 ? -(x) : (x))"};
    case OCLOPS_RECIPROCAL: return {"((W)1 / (x))", nullptr};
    // NaN and both zeros give 0, as PyTorch's (0 < x) - (x < 0).
    case OCLOPS_SIGN: return {"(W)(((W)0 < (x)) - ((x) < (W)0))", "(W)((0 < (x)) - ((x) < 0))"};
    case OCLOPS_SIN: return {"sin(x)", nullptr};
    case OCLOPS_COS: return {"cos(x)", nullptr};
    case OCLOPS_TAN: return {"tan(x)", nullptr};
    case OCLOPS_ASIN: return {"asin(x)", nullptr};
    case OCLOPS_ACOS: return {"acos(x)", nullptr};
    case OCLOPS_ATAN: return {"atan(x)", nullptr};
    case OCLOPS_SINH: return {"sinh(x)", nullptr};
    case OCLOPS_COSH: return {"cosh(x)", nullptr};
    case OCLOPS_TANH: return {"tanh(x)", nullptr};
    case OCLOPS_ASINH: return {"asinh(x)", nullptr};
    case OCLOPS_ACOSH: return {"acosh(x)", nullptr};
    case OCLOPS_ATANH: return {"atanh(x)", nullptr};
    case OCLOPS_ERF: return {"erf(x)", nullptr};
    case OCLOPS_ERFC: return {"erfc(x)", nullptr};
    case OCLOPS_LGAMMA: return {"lgamma(x)", nullptr};
    case OCLOPS_SINC: return {"tfl_sinc(x)", nullptr};
    case OCLOPS_DEG2RAD: return {"((x) * (W)0.017453292519943295)", nullptr};
    case OCLOPS_RAD2DEG: return {"((x) * (W)57.295779513082323)", nullptr};
    // On integers PyTorch's rounding ops return the values unchanged.
    case OCLOPS_CEIL: return {"ceil(x)", "(x)"};
    case OCLOPS_FLOOR: return {"floor(x)", "(x)"};
    case OCLOPS_ROUND: return {"rint(x)", "(x)"};
    case OCLOPS_TRUNC: return {"trunc(x)", "(x)"};
    case OCLOPS_FRAC: return {"((x) - trunc(x))", nullptr};
    case OCLOPS_SIGMOID: return {"((W)1 / ((W)1 + exp(-(x))))", nullptr};
    case OCLOPS_SILU: return {"((x) / ((W)1 + exp(-(x))))", nullptr};
    case OCLOPS_GELU: return {"((x) * (W)0.5 * ((W)1 + erf((x) * (W)0.70710678118654752)))", nullptr};
    case OCLOPS_GELU_TANH: return {"tfl_gelu_tanh(x)", nullptr};
    case OCLOPS_HARDSIGMOID: return {"(tfl_clamp((x) + (W)3, (W)0, (W)6) / (W)6)", nullptr};
    case OCLOPS_HARDSWISH: return {"((x) * tfl_clamp((x) + (W)3, (W)0, (W)6) / (W)6)", nullptr};
    case OCLOPS_MISH: return {"((x) * tanh(log1p(exp(x))))", nullptr};
    case OCLOPS_LOGICAL_NOT: return {"(W)((x) == 0)", "(W)((x) == 0)"};
    case OCLOPS_BITWISE_NOT: return {nullptr, "(~(x))"};  // bool: LOGICAL_NOT (the host swaps it)
    case OCLOPS_ISNAN: return {"(W)isnan(x)", "(W)0"};
    case OCLOPS_ISPOSINF: return {"(W)((x) == (W)INFINITY)", "(W)0"};
    case OCLOPS_ISNEGINF: return {"(W)((x) == -(W)INFINITY)", "(W)0"};
    case OCLOPS_SIGNBIT: return {"(W)(signbit(x) != 0)", "(W)((x) < 0)"};
    case OCLOPS_CLAMP: return {"tfl_clamp(x, p0, p1)", "min(max((x), (p0)), (p1))"};
    case OCLOPS_LEAKY_RELU: return {"((x) > 0 ? (x) : (x) * (p0))", nullptr};
    case OCLOPS_ELU: return {"((x) <= 0 ? expm1((x) * (p2)) * (p0) * (p1) : (x) * (p1))", nullptr};
    case OCLOPS_THRESHOLD: return {"((x) <= (p0) ? (p1) : (x))", "((x) <= (p0) ? (p1) : (x))"};
    case OCLOPS_SOFTPLUS: return {"((x) * (p0) > (p1) ? (x) : log1p(exp((x) * (p0))) / (p0))", nullptr};
    case OCLOPS_HARDSHRINK: return {"(((x) >= -(p0) && (x) <= (p0)) ? (W)0 : (x))", nullptr};
    case OCLOPS_SOFTSHRINK: return {"((x) > (p0) ? (x) - (p0) : ((x) < -(p0) ? (x) + (p0) : (x) * 0))", nullptr};
    case OCLOPS_LOGIT: return {"tfl_logit(x, p0)", nullptr};
    case OCLOPS_ENTR: return {"(isnan(x) ? (x) : ((x) > 0 ? -(x) * log(x) : ((x) == 0 ? (W)0 : -(W)INFINITY)))", nullptr};
  }
  return {nullptr, nullptr};
}

Expression binary_expression(oclopsBinaryOp_t op) {
  switch (op) {
    case OCLOPS_ADD: return {"((x) + (p0) * (y))", "((x) + (p0) * (y))"};
    case OCLOPS_SUB: return {"((x) - (p0) * (y))", "((x) - (p0) * (y))"};
    case OCLOPS_MUL: return {"((x) * (y))", "((x) * (y))"};
    case OCLOPS_DIV: return {"((x) / (y))", nullptr};  // true division: ATen gives a floating result
    case OCLOPS_RSUB: return {"((y) - (p0) * (x))", "((y) - (p0) * (x))"};
    // Integer division by zero raises on CPU; a kernel cannot, so integers are not offered.
    case OCLOPS_DIV_TRUNC: return {"trunc((x) / (y))", nullptr};
    case OCLOPS_DIV_FLOOR: return {"tfl_div_floor(x, y)", nullptr};
    case OCLOPS_MAXIMUM: return {"tfl_maximum(x, y)", "max((x), (y))"};
    case OCLOPS_MINIMUM: return {"tfl_minimum(x, y)", "min((x), (y))"};
    case OCLOPS_FMAX: return {"fmax(x, y)", "max((x), (y))"};
    case OCLOPS_FMIN: return {"fmin(x, y)", "min((x), (y))"};
    case OCLOPS_POW: return {"tfl_pow(x, y)", "tfl_ipow(x, y)"};
    case OCLOPS_ATAN2: return {"atan2(x, y)", nullptr};
    case OCLOPS_HYPOT: return {"hypot(x, y)", nullptr};
    case OCLOPS_COPYSIGN: return {"copysign(x, y)", nullptr};
    case OCLOPS_NEXTAFTER: return {"nextafter(x, y)", nullptr};
    case OCLOPS_REMAINDER: return {"tfl_remainder(x, y)", nullptr};
    case OCLOPS_FMOD: return {"fmod(x, y)", nullptr};
    case OCLOPS_XLOGY: return {"(isnan(y) ? (y) : ((x) == 0 ? (W)0 : (x) * log(y)))", nullptr};
    case OCLOPS_LOGADDEXP: return {"tfl_logaddexp(x, y)", nullptr};
    case OCLOPS_LOGADDEXP2: return {"tfl_logaddexp2(x, y)", nullptr};
    case OCLOPS_EQ: return {"(W)((x) == (y))", "(W)((x) == (y))"};
    case OCLOPS_NE: return {"(W)((x) != (y))", "(W)((x) != (y))"};
    case OCLOPS_LT: return {"(W)((x) < (y))", "(W)((x) < (y))"};
    case OCLOPS_LE: return {"(W)((x) <= (y))", "(W)((x) <= (y))"};
    case OCLOPS_GT: return {"(W)((x) > (y))", "(W)((x) > (y))"};
    case OCLOPS_GE: return {"(W)((x) >= (y))", "(W)((x) >= (y))"};
    case OCLOPS_LOGICAL_AND: return {"(W)((x) != 0 && (y) != 0)", "(W)((x) != 0 && (y) != 0)"};
    case OCLOPS_LOGICAL_OR: return {"(W)((x) != 0 || (y) != 0)", "(W)((x) != 0 || (y) != 0)"};
    case OCLOPS_LOGICAL_XOR: return {"(W)(((x) != 0) != ((y) != 0))", "(W)(((x) != 0) != ((y) != 0))"};
    case OCLOPS_BITWISE_AND: return {nullptr, "((x) & (y))"};
    case OCLOPS_BITWISE_OR: return {nullptr, "((x) | (y))"};
    case OCLOPS_BITWISE_XOR: return {nullptr, "((x) ^ (y))"};
    case OCLOPS_LERP: return {"tfl_lerp(x, y, p0)", nullptr};
    case OCLOPS_HEAVISIDE: return {"((x) == 0 ? (y) : (W)((x) > 0))", "((x) == 0 ? (y) : (W)((x) > 0))"};
    case OCLOPS_GCD: return {nullptr, "tfl_gcd(x, y)"};
    case OCLOPS_LCM: return {nullptr, "tfl_lcm(x, y)"};
    case OCLOPS_XLOG1PY: return {"(isnan(y) ? (y) : ((x) == 0 ? (W)0 : (x) * log1p(y)))", nullptr};
    case OCLOPS_MASKED_FILL: return {"((y) != 0 ? (p0) : (x))", "((y) != 0 ? (p0) : (x))"};
    case OCLOPS_LOGIT_BACKWARD: return {"tfl_logit_backward(x, y, p0)", nullptr};
    case OCLOPS_THRESHOLD_BACKWARD: return {"((y) <= (p0) ? (W)0 : (x))", "((y) <= (p0) ? (W)0 : (x))"};
    case OCLOPS_SIGMOID_BACKWARD: return {"((x) * ((W)1 - (y)) * (y))", nullptr};
    case OCLOPS_TANH_BACKWARD: return {"((x) * ((W)1 - (y) * (y)))", nullptr};
    case OCLOPS_SILU_BACKWARD: return {"tfl_silu_backward(x, y)", nullptr};
    case OCLOPS_GELU_BACKWARD: return {"tfl_gelu_backward(x, y)", nullptr};
    case OCLOPS_GELU_TANH_BACKWARD: return {"tfl_gelu_tanh_backward(x, y)", nullptr};
    case OCLOPS_MISH_BACKWARD: return {"tfl_mish_backward(x, y)", nullptr};
    case OCLOPS_HARDSIGMOID_BACKWARD: return {"(((y) > (W)-3 && (y) < (W)3) ? (x) / (W)6 : (W)0)", nullptr};
    case OCLOPS_HARDSWISH_BACKWARD:
      return {"((y) < (W)-3 ? (W)0 : ((y) <= (W)3 ? (x) * ((y) / (W)3 + (W)0.5) : (x)))", nullptr};
    case OCLOPS_LEAKY_RELU_BACKWARD: return {"((y) > 0 ? (x) : (x) * (p0))", nullptr};
    case OCLOPS_HARDTANH_BACKWARD: return {"(((y) <= (p0) || (y) >= (p1)) ? (W)0 : (x))", nullptr};
    case OCLOPS_SOFTPLUS_BACKWARD: return {"tfl_softplus_backward(x, y, p0, p1)", nullptr};
    case OCLOPS_SHRINK_BACKWARD: return {"(((y) >= -(p0) && (y) <= (p0)) ? (W)0 : (x))", nullptr};
  }
  return {nullptr, nullptr};
}

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
