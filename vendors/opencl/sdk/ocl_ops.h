/*
 * The op library of the Torch-FL "opencl" vendor: OpenCL C kernels compiled at
 * run time (kernels/, cached by the driver's program cache) and CLBlast for
 * matrix products. Functions on tensor descriptors, queued on a driver stream;
 * each checks its arguments at once and returns a status; errors of queued work
 * surface at the stream's next synchronisation.
 *
 * A descriptor names device memory as OpenCL does: a buffer and an offset in
 * elements (never an address: ocl_glue resolves PyTorch's opaque data pointers).
 * Elementwise ops and reductions take every real dtype the driver's element
 * macros know (float16 and bfloat16 stored, computed in float or double);
 * matrix products take float32 and float64.
 */
#ifndef OCL_OPS_H_
#define OCL_OPS_H_

#include <CL/cl.h>

#include <stdbool.h>
#include <stdint.h>

#include "ocl_element_types.h"
#include "ocl_queue.h"

#define OCLOPS_MAX_DIMS 12  /* the driver ABI's TFL_MAX_DIMS */

typedef enum {
  OCLOPS_SUCCESS = 0,
  OCLOPS_ERROR_INVALID_ARGUMENT = 1,
  OCLOPS_ERROR_NOT_SUPPORTED = 2,
  OCLOPS_ERROR_OPENCL = 3,   /* an OpenCL call or a kernel build failed: see oclopsGetLastErrorDetail */
  OCLOPS_ERROR_CLBLAST = 4,  /* a CLBlast call failed: see oclopsGetLastErrorDetail */
} oclopsStatus_t;

typedef torch_fl::ocl::ElementType oclopsDtype_t;
typedef torch_fl::ocl::Stream* oclopsStream_t;

/* A strided view of device memory: element (i0, i1, ...) is at
 * buffer[offset + sum(i_k * stride[k])]. buffer == NULL: absent (or empty). */
typedef struct {
  cl_mem buffer;
  int64_t offset;
  oclopsDtype_t dtype;
  int32_t dim;
  int64_t shape[OCLOPS_MAX_DIMS];
  int64_t stride[OCLOPS_MAX_DIMS];
} oclopsTensor_t;

/* Dimensions to reduce over (count 0: every dimension), or a short list of
 * ints such as a convolution's strides. */
typedef struct {
  int32_t count;
  int64_t dims[OCLOPS_MAX_DIMS];
} oclopsDims_t;

/* A scalar argument, both ways: integer kernels use `integer` (exact past 2^53).
 * inexact: the value has a fractional part (or is not finite), so a kernel whose
 * operands are all integers must still compute in floating point to honour it
 * (int_tensor == 2.5 is false everywhere, never int_tensor == 2). */
typedef struct {
  double floating;
  int64_t integer;
  bool inexact;
} oclopsScalar_t;

const char* oclopsGetErrorString(oclopsStatus_t status);
/* The OpenCL, build-log or CLBlast detail of this thread's last failure. */
const char* oclopsGetLastErrorDetail(void);

/* out = beta * c + alpha * (a @ b) by CLBlast on the stream's queue; a (m x k) and
 * b (k x n) row-major or transposed (a unit stride in one dim), c broadcast to
 * out (m x n, row-major) or absent; beta == 0 never reads c. */
oclopsStatus_t oclopsGemm(oclopsStream_t stream, const oclopsTensor_t* a, const oclopsTensor_t* b,
                          const oclopsTensor_t* c, oclopsScalar_t beta, oclopsScalar_t alpha,
                          const oclopsTensor_t* out);
/* The random numbers of one call: the generator's seed and an offset reserved
 * for the call (counter-based: element i draws from (seed, offset, i)). */
typedef struct {
  uint64_t seed;
  uint64_t offset;
} oclopsRandState_t;

typedef enum { OCLOPS_RANDOM_UNIFORM, OCLOPS_RANDOM_NORMAL } oclopsRandomKind_t;

/* Every element of out (floating, any strides) drawn from U[a, b) or N(mean a, std b). */
oclopsStatus_t oclopsRandom(oclopsStream_t stream, oclopsRandomKind_t kind, double a, double b,
                            oclopsRandState_t state, const oclopsTensor_t* out);
/* Dropout: mask (bool) keeps each element with probability 1 - p and
 * out = x * mask / (1 - p) (0 for p = 1); without train, out = x, mask all true. */
oclopsStatus_t oclopsDropout(oclopsStream_t stream, const oclopsTensor_t* x, double p, bool train,
                             oclopsRandState_t state, const oclopsTensor_t* out, const oclopsTensor_t* mask);
/* out = grad * mask * scale (dropout's backward). */
oclopsStatus_t oclopsDropoutBackward(oclopsStream_t stream, const oclopsTensor_t* grad, const oclopsTensor_t* mask,
                                     double scale, const oclopsTensor_t* out);

/* 1-D and 2-D convolutions, not transposed: input N x C x [H x] W (any strides),
 * weight O x C/groups x [kh x] kw (contiguous), bias O or absent; stride, padding
 * and dilation have one entry per spatial dim. out: N x O x [OH x] OW, any strides. */
oclopsStatus_t oclopsConvolution(oclopsStream_t stream, const oclopsTensor_t* input, const oclopsTensor_t* weight,
                                 const oclopsTensor_t* bias, oclopsDims_t stride, oclopsDims_t padding,
                                 oclopsDims_t dilation, int64_t groups, const oclopsTensor_t* out);
/* Its backward (grad_output contiguous); an absent (NULL-buffer) gradient is not computed. */
oclopsStatus_t oclopsConvolutionBackward(oclopsStream_t stream, const oclopsTensor_t* grad_output,
                                         const oclopsTensor_t* input, const oclopsTensor_t* weight, oclopsDims_t stride,
                                         oclopsDims_t padding, oclopsDims_t dilation, int64_t groups,
                                         const oclopsTensor_t* grad_input, const oclopsTensor_t* grad_weight,
                                         const oclopsTensor_t* grad_bias);

/* Batch normalization over N x C x ...: per channel, the batch's statistics
 * (saved as mean and 1/sqrt(var + eps), folded into the running ones with
 * momentum and the unbiased variance) when training, else the running ones.
 * weight, bias and the running statistics may be absent (NULL buffer). */
oclopsStatus_t oclopsBatchNorm(oclopsStream_t stream, const oclopsTensor_t* input, const oclopsTensor_t* weight,
                               const oclopsTensor_t* bias, const oclopsTensor_t* running_mean,
                               const oclopsTensor_t* running_var, bool training, double momentum, double eps,
                               const oclopsTensor_t* out, const oclopsTensor_t* save_mean,
                               const oclopsTensor_t* save_invstd);
/* Its backward; an absent (NULL-buffer) gradient is not computed. */
oclopsStatus_t oclopsBatchNormBackward(oclopsStream_t stream, const oclopsTensor_t* grad_out,
                                       const oclopsTensor_t* input, const oclopsTensor_t* weight,
                                       const oclopsTensor_t* running_mean, const oclopsTensor_t* running_var,
                                       const oclopsTensor_t* save_mean, const oclopsTensor_t* save_invstd, bool train,
                                       double eps, const oclopsTensor_t* grad_input, const oclopsTensor_t* grad_weight,
                                       const oclopsTensor_t* grad_bias);

/* 2-D pooling over N x C x H x W or C x H x W tensors (any strides); out's shape
 * decides the output positions (ceil_mode included). kernel, stride, padding and
 * dilation take one or two entries; an empty stride is the kernel's size. Max
 * pooling's indices (int64) are h * W + w within each plane, as in PyTorch. */
oclopsStatus_t oclopsMaxPool2d(oclopsStream_t stream, const oclopsTensor_t* self, oclopsDims_t kernel,
                               oclopsDims_t stride, oclopsDims_t padding, oclopsDims_t dilation,
                               const oclopsTensor_t* out, const oclopsTensor_t* indices);
oclopsStatus_t oclopsMaxPool2dBackward(oclopsStream_t stream, const oclopsTensor_t* grad_output,
                                       const oclopsTensor_t* self, oclopsDims_t kernel, oclopsDims_t stride,
                                       oclopsDims_t padding, oclopsDims_t dilation, const oclopsTensor_t* indices,
                                       const oclopsTensor_t* grad_input);
/* divisor: 0 divides each window's sum by its size (with the padding when count_include_pad). */
oclopsStatus_t oclopsAvgPool2d(oclopsStream_t stream, const oclopsTensor_t* self, oclopsDims_t kernel,
                               oclopsDims_t stride, oclopsDims_t padding, bool count_include_pad, int64_t divisor,
                               const oclopsTensor_t* out);
oclopsStatus_t oclopsAvgPool2dBackward(oclopsStream_t stream, const oclopsTensor_t* grad_output,
                                       const oclopsTensor_t* self, oclopsDims_t kernel, oclopsDims_t stride,
                                       oclopsDims_t padding, bool count_include_pad, int64_t divisor,
                                       const oclopsTensor_t* grad_input);
oclopsStatus_t oclopsAdaptiveAvgPool2d(oclopsStream_t stream, const oclopsTensor_t* self, const oclopsTensor_t* out);
oclopsStatus_t oclopsAdaptiveAvgPool2dBackward(oclopsStream_t stream, const oclopsTensor_t* grad_output,
                                               const oclopsTensor_t* self, const oclopsTensor_t* grad_input);

/* The same for batches: a (B x m x k), b (B x k x n), out (B x m x n); c broadcast
 * to out (a batch of one, a matrix, or absent). */
oclopsStatus_t oclopsBatchedGemm(oclopsStream_t stream, const oclopsTensor_t* a, const oclopsTensor_t* b,
                                 const oclopsTensor_t* c, oclopsScalar_t beta, oclopsScalar_t alpha,
                                 const oclopsTensor_t* out);
/* Whether oclopsGemm (a matrix) or oclopsBatchedGemm (each matrix of a batch)
 * takes this operand as it is (else a contiguous copy). */
bool oclopsGemmTakesOperand(const oclopsTensor_t* operand);

/* The ops by kind (each header uses the types above). */
#include "ocl_ops_elementwise.h"
#include "ocl_ops_reduce.h"
#include "ocl_ops_data.h"
#include "ocl_ops_nn.h"

#endif /* OCL_OPS_H_ */
