/*
 * Elementwise ops of the opencl op library (included by ocl_ops.h). One OpenCL C
 * kernel per arity (kernels/ocl_elementwise.cl); the op is a macro the host
 * chooses from these enums (ocl_elementwise_expressions.cpp), so a new op is one
 * expression, not a new kernel.
 *
 * Operands broadcast to out's shape and are each read in their own dtype; the
 * kernel computes in the type of ocl_element_types.h's compute_type over out and
 * the operands (long when all are integral, else float, or double with a float64
 * among them), as PyTorch's opmath does. Results are cast to out's dtype (bool:
 * nonzero). An op without an integer form refuses an all-integer kernel with
 * OCLOPS_ERROR_NOT_SUPPORTED.
 */
#ifndef OCL_OPS_ELEMENTWISE_H_
#define OCL_OPS_ELEMENTWISE_H_

/* out = op(a; p0, p1, p2): the parameters each op reads are named beside it. */
typedef enum {
  OCLOPS_RELU, OCLOPS_NEG, OCLOPS_IDENTITY,
  OCLOPS_EXP, OCLOPS_EXP2, OCLOPS_EXPM1, OCLOPS_LOG, OCLOPS_LOG2, OCLOPS_LOG10, OCLOPS_LOG1P,
  OCLOPS_SQRT, OCLOPS_RSQRT, OCLOPS_ABS, OCLOPS_RECIPROCAL, OCLOPS_SIGN,
  OCLOPS_SIN, OCLOPS_COS, OCLOPS_TAN, OCLOPS_ASIN, OCLOPS_ACOS, OCLOPS_ATAN,
  OCLOPS_SINH, OCLOPS_COSH, OCLOPS_TANH, OCLOPS_ASINH, OCLOPS_ACOSH, OCLOPS_ATANH,
  OCLOPS_ERF, OCLOPS_ERFC, OCLOPS_LGAMMA, OCLOPS_SINC, OCLOPS_DEG2RAD, OCLOPS_RAD2DEG,
  OCLOPS_CEIL, OCLOPS_FLOOR, OCLOPS_ROUND, OCLOPS_TRUNC, OCLOPS_FRAC,
  OCLOPS_SIGMOID, OCLOPS_SILU, OCLOPS_GELU, OCLOPS_GELU_TANH, OCLOPS_HARDSIGMOID, OCLOPS_HARDSWISH,
  OCLOPS_MISH,
  OCLOPS_LOGICAL_NOT, OCLOPS_BITWISE_NOT, OCLOPS_ISNAN, OCLOPS_ISPOSINF, OCLOPS_ISNEGINF, OCLOPS_SIGNBIT,
  OCLOPS_CLAMP,       /* p0 lower, p1 upper bound (hardtanh too); NaN stays NaN */
  OCLOPS_LEAKY_RELU,  /* p0 negative slope */
  OCLOPS_ELU,         /* p0 alpha, p1 scale, p2 input scale */
  OCLOPS_THRESHOLD,   /* p0 threshold, p1 value */
  OCLOPS_SOFTPLUS,    /* p0 beta, p1 threshold */
  OCLOPS_HARDSHRINK,  /* p0 lambda */
  OCLOPS_SOFTSHRINK,  /* p0 lambda */
  OCLOPS_LOGIT,       /* p0 eps (negative: none) */
  OCLOPS_ENTR,        /* -x log x */
} oclopsUnaryOp_t;

/* out = op(a, b; p0, p1): x is a, y is b. */
typedef enum {
  OCLOPS_ADD, OCLOPS_SUB,  /* x + p0 * y, x - p0 * y */
  OCLOPS_MUL, OCLOPS_DIV,
  OCLOPS_RSUB,             /* y - p0 * x */
  OCLOPS_DIV_TRUNC, OCLOPS_DIV_FLOOR,
  OCLOPS_MAXIMUM, OCLOPS_MINIMUM,  /* NaN if either is */
  OCLOPS_FMAX, OCLOPS_FMIN,        /* NaN only if both are */
  OCLOPS_POW, OCLOPS_ATAN2, OCLOPS_HYPOT, OCLOPS_COPYSIGN, OCLOPS_NEXTAFTER,
  OCLOPS_REMAINDER, OCLOPS_FMOD, OCLOPS_XLOGY, OCLOPS_LOGADDEXP, OCLOPS_LOGADDEXP2,
  OCLOPS_EQ, OCLOPS_NE, OCLOPS_LT, OCLOPS_LE, OCLOPS_GT, OCLOPS_GE,
  OCLOPS_LOGICAL_AND, OCLOPS_LOGICAL_OR, OCLOPS_LOGICAL_XOR,
  OCLOPS_BITWISE_AND, OCLOPS_BITWISE_OR, OCLOPS_BITWISE_XOR,
  OCLOPS_LERP,  /* x + p0 * (y - x), p0 the weight */
  OCLOPS_HEAVISIDE, OCLOPS_GCD, OCLOPS_LCM, OCLOPS_XLOG1PY,
  OCLOPS_MASKED_FILL,  /* y (a mask) ? p0 : x */
  OCLOPS_LOGIT_BACKWARD,  /* p0 eps (negative: none) */
  /* Backward of an activation: x is the incoming gradient, y its input (or output, as named). */
  OCLOPS_THRESHOLD_BACKWARD,   /* y <= p0: 0 */
  OCLOPS_SIGMOID_BACKWARD,     /* y: the output */
  OCLOPS_TANH_BACKWARD,        /* y: the output */
  OCLOPS_SILU_BACKWARD, OCLOPS_GELU_BACKWARD, OCLOPS_GELU_TANH_BACKWARD, OCLOPS_MISH_BACKWARD,
  OCLOPS_HARDSIGMOID_BACKWARD, OCLOPS_HARDSWISH_BACKWARD,
  OCLOPS_LEAKY_RELU_BACKWARD,  /* p0 negative slope */
  OCLOPS_HARDTANH_BACKWARD,    /* p0 lower, p1 upper bound */
  OCLOPS_SOFTPLUS_BACKWARD,    /* p0 beta, p1 threshold */
  OCLOPS_SHRINK_BACKWARD,      /* p0 lambda: hardshrink's and softshrink's */
} oclopsBinaryOp_t;

/* out = op(a, b, c; p0): x, y, z. */
typedef enum {
  OCLOPS_WHERE,    /* x (a condition) ? y : z */
  OCLOPS_ADDCMUL,  /* x + p0 * y * z */
  OCLOPS_ADDCDIV,  /* x + p0 * y / z */
  OCLOPS_LERP_TENSOR,  /* lerp(x, y, weight z) */
  OCLOPS_CLAMP_TENSOR, /* x between y and z (NaN in any is NaN) */
} oclopsTernaryOp_t;

/* out = op(a), a broadcast to out's shape (IDENTITY: a cast and broadcast copy). */
oclopsStatus_t oclopsUnary(oclopsStream_t stream, oclopsUnaryOp_t op, const oclopsTensor_t* a,
                           const oclopsTensor_t* out);
/* The same with the op's parameters (unused ones are ignored). */
oclopsStatus_t oclopsUnaryParams(oclopsStream_t stream, oclopsUnaryOp_t op, const oclopsTensor_t* a,
                                 oclopsScalar_t p0, oclopsScalar_t p1, oclopsScalar_t p2, const oclopsTensor_t* out);
/* out = a op b with p0 = alpha (add, sub, rsub, lerp, threshold, ...). */
oclopsStatus_t oclopsBinary(oclopsStream_t stream, oclopsBinaryOp_t op, const oclopsTensor_t* a,
                            const oclopsTensor_t* b, oclopsScalar_t alpha, const oclopsTensor_t* out);
oclopsStatus_t oclopsBinaryParams(oclopsStream_t stream, oclopsBinaryOp_t op, const oclopsTensor_t* a,
                                  const oclopsTensor_t* b, oclopsScalar_t p0, oclopsScalar_t p1,
                                  const oclopsTensor_t* out);
/* out = a op b for a scalar b (an inexact one makes an integer kernel compute in floating point). */
oclopsStatus_t oclopsBinaryScalar(oclopsStream_t stream, oclopsBinaryOp_t op, const oclopsTensor_t* a,
                                  oclopsScalar_t b, oclopsScalar_t alpha, const oclopsTensor_t* out);
/* out = op(a, b, c; p0). WHERE reads a as a condition: its dtype does not choose the compute type. */
oclopsStatus_t oclopsTernary(oclopsStream_t stream, oclopsTernaryOp_t op, const oclopsTensor_t* a,
                             const oclopsTensor_t* b, const oclopsTensor_t* c, oclopsScalar_t p0,
                             const oclopsTensor_t* out);
/* Every element of out (any strides) = value. */
oclopsStatus_t oclopsFill(oclopsStream_t stream, const oclopsTensor_t* out, oclopsScalar_t value);

#endif /* OCL_OPS_ELEMENTWISE_H_ */
