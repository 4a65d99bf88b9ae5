// Helpers of the elementwise expressions (ocl_elementwise_expressions.cpp), in
// the compute type W; TFL_INTEGRAL is defined when W is long. Each mirrors
// PyTorch's CPU kernel (aten/src/ATen/native/cpu, c10/util) where OpenCL's
// builtin differs from it.
#ifdef TFL_INTEGRAL
// Integer powers by squaring; a negative exponent gives 0 except for bases 1 and -1.
inline W tfl_ipow(W base, W exp) {
  if (exp < 0) {
    if (base == 1) return 1;
    if (base == -1) return (exp & 1) ? -1 : 1;
    return 0;
  }
  W result = 1;
  while (exp) {
    if (exp & 1) result *= base;
    exp >>= 1;
    base *= base;
  }
  return result;
}

// Euclid's, on magnitudes (gcd(0, 0) = 0).
inline W tfl_gcd(W a, W b) {
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  while (a != 0) {
    const W c = a;
    a = b % a;
    b = c;
  }
  return b;
}

inline W tfl_lcm(W a, W b) {
  const W g = tfl_gcd(a, b);
  if (g == 0) return 0;
  const W l = a / g * b;
  return l < 0 ? -l : l;
}
#else
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
// float powers through double where the device has it: the builtin powf may be
// off by a few ulp, which autograd's x^(y-1) * y amplifies past PyTorch's float32
// tolerance; glibc's powf (CPU) is correctly rounded.
inline W tfl_pow(W x, W y) {
#ifdef cl_khr_fp64
  return (W)pow((double)x, (double)y);
#else
  return pow(x, y);
#endif
}

// NaN wins in either operand (std::max would drop one of them).
inline W tfl_maximum(W x, W y) { return isnan(x) ? x : (isnan(y) ? y : (x > y ? x : y)); }
inline W tfl_minimum(W x, W y) { return isnan(x) ? x : (isnan(y) ? y : (x < y ? x : y)); }
// clamp: NaN in x stays NaN, and an upper bound below the lower one wins.
inline W tfl_clamp(W x, W lo, W hi) { return isnan(x) ? x : fmin(fmax(x, lo), hi); }

// c10::div_floor_floating.
inline W tfl_div_floor(W a, W b) {
  if (b == 0) return a / b;
  const W mod = fmod(a, b);
  W div = (a - mod) / b;
  if (mod != 0 && (b < 0) != (mod < 0)) div -= (W)1;
  if (div == 0) return copysign((W)0, a / b);
  W floordiv = floor(div);
  if (div - floordiv > (W)0.5) floordiv += (W)1;
  return floordiv;
}

// Python's modulo: the sign of the divisor.
inline W tfl_remainder(W a, W b) {
  W mod = fmod(a, b);
  if (mod != 0 && (b < 0) != (mod < 0)) mod += b;
  return mod;
}

inline W tfl_logaddexp(W a, W b) {
  if (isinf(a) && a == b) return a;
  const W m = tfl_maximum(a, b);
  return m + log1p(exp(-fabs(a - b)));
}

inline W tfl_logaddexp2(W a, W b) {
  if (isinf(a) && a == b) return a;
  const W m = tfl_maximum(a, b);
  return m + log1p(exp2(-fabs(a - b))) * (W)1.4426950408889634;
}

// The form that keeps precision at both ends of the weight.
inline W tfl_lerp(W self, W end, W weight) {
  return fabs(weight) < (W)0.5 ? self + weight * (end - self) : end - (end - self) * ((W)1 - weight);
}

inline W tfl_sinc(W x) {
  if (x == 0) return 1;
  const W product = (W)3.14159265358979323846 * x;
  return sin(product) / product;
}

#define TFL_GELU_BETA ((W)0.7978845608028654)  // sqrt(2 / pi)
#define TFL_GELU_KAPPA ((W)0.044715)

inline W tfl_gelu_tanh(W x) {
  const W inner = TFL_GELU_BETA * (x + TFL_GELU_KAPPA * x * x * x);
  return (W)0.5 * x * ((W)1 + tanh(inner));
}

inline W tfl_silu_backward(W grad, W x) {
  const W s = (W)1 / ((W)1 + exp(-x));
  return grad * s * ((W)1 + x * ((W)1 - s));
}

inline W tfl_gelu_backward(W grad, W x) {
  const W cdf = (W)0.5 * ((W)1 + erf(x * (W)0.70710678118654752));
  const W pdf = (W)0.3989422804014327 * exp((W)-0.5 * x * x);  // 1 / sqrt(2 pi)
  return grad * (cdf + x * pdf);
}

inline W tfl_gelu_tanh_backward(W grad, W x) {
  const W x_sq = x * x;
  const W inner = TFL_GELU_BETA * (x + TFL_GELU_KAPPA * x_sq * x);
  const W tanh_inner = tanh(inner);
  const W left = (W)0.5 * x;
  const W right = (W)1 + tanh_inner;
  const W left_derivative = (W)0.5 * right;
  const W right_derivative =
      left * ((W)1 - tanh_inner * tanh_inner) * TFL_GELU_BETA * ((W)1 + (W)3 * TFL_GELU_KAPPA * x_sq);
  return grad * (left_derivative + right_derivative);
}

inline W tfl_mish_backward(W grad, W x) {
  const W sigmoid = (W)1 / ((W)1 + exp(-x));
  const W tanh_softplus = tanh(log1p(exp(x)));
  return grad * (tanh_softplus + x * sigmoid * ((W)1 - tanh_softplus * tanh_softplus));
}

// eps < 0: no clamping of the probability.
inline W tfl_logit(W x, W eps) {
  if (eps >= 0) x = x < eps ? eps : (x > (W)1 - eps ? (W)1 - eps : x);
  return log(x / ((W)1 - x));
}

inline W tfl_logit_backward(W grad, W x, W eps) {
  if (eps < 0) return (x < 0 || x > 1) ? (W)NAN : grad / (x * ((W)1 - x));
  return (x < eps || x > (W)1 - eps) ? (W)0 : grad / (x * ((W)1 - x));
}

inline W tfl_softplus_backward(W grad, W x, W beta, W threshold) {
  const W z = exp(x * beta);
  return x * beta > threshold ? grad : grad * z / (z + (W)1);
}
#endif
