/*
 * The NVIDIA op library of the Torch-FL "nvidia" vendor: CUDA kernels for
 * elementwise ops, reductions, softmax and layer norm, and cuBLAS for matrix
 * products. C functions on tensor descriptors, queued on a cudaStream_t; each
 * checks its arguments at once and returns a status; errors of the queued work
 * surface at the next synchronisation as CUDA errors.
 *
 * Floating types are float32, float16 and bfloat16 (accumulation in float32);
 * copies and fills take every dtype below.
 *
 * Every call first makes the stream's device the thread's current CUDA device
 * (launches and cuBLAS calls go to the current device) and clears a pending,
 * non-sticky CUDA error, so that an earlier failure is never reported as this
 * call's.
 */
#ifndef NV_OPS_H_
#define NV_OPS_H_

#include <stdbool.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NVOPS_MAX_DIMS 12  /* the driver ABI's TFL_MAX_DIMS */

typedef enum {
  NVOPS_SUCCESS = 0,
  NVOPS_ERROR_INVALID_ARGUMENT = 1,
  NVOPS_ERROR_NOT_SUPPORTED = 2,
  NVOPS_ERROR_CUDA = 3,    /* a CUDA runtime call failed: see nvopsGetLastErrorDetail */
  NVOPS_ERROR_CUBLAS = 4,  /* a cuBLAS call failed: see nvopsGetLastErrorDetail */
} nvopsStatus_t;

typedef enum {
  NVOPS_F32, NVOPS_F16, NVOPS_BF16, NVOPS_I32, NVOPS_I64, NVOPS_BOOL,
  NVOPS_F64, NVOPS_I8, NVOPS_I16, NVOPS_U8, NVOPS_C64, NVOPS_C128,
  NVOPS_INVALID = -1
} nvopsDtype_t;

/* A strided view of device memory (strides in elements); data == NULL: absent. */
typedef struct {
  void* data;
  nvopsDtype_t dtype;
  int32_t dim;
  int64_t shape[NVOPS_MAX_DIMS];
  int64_t stride[NVOPS_MAX_DIMS];
} nvopsTensor_t;

/* Dimensions to reduce over; count 0 with all == true: every dimension. */
typedef struct {
  int32_t count;
  int64_t dims[NVOPS_MAX_DIMS];
} nvopsDims_t;

typedef enum { NVOPS_ADD, NVOPS_SUB, NVOPS_MUL, NVOPS_DIV } nvopsBinaryOp_t;
typedef enum {
  NVOPS_RELU, NVOPS_GELU, NVOPS_GELU_TANH, NVOPS_SILU, NVOPS_EXP, NVOPS_TANH, NVOPS_SIGMOID, NVOPS_NEG, NVOPS_SQRT
} nvopsUnaryOp_t;
/* lerp: a + value * (b - a); addcmul: a + value * b * c; addcdiv: a + value * b / c */
typedef enum { NVOPS_LERP, NVOPS_ADDCMUL, NVOPS_ADDCDIV } nvopsTernaryOp_t;
typedef enum { NVOPS_MEAN_NONE = 0, NVOPS_MEAN = 1, NVOPS_SUM = 2 } nvopsReduction_t; /* ATen's Reduction enum */

/* A list of descriptors (cat's inputs). */
typedef struct {
  int32_t count;
  const nvopsTensor_t* tensors;
} nvopsTensorList_t;

const char* nvopsGetErrorString(nvopsStatus_t status);
/* The CUDA or cuBLAS message of this thread's last failure. */
const char* nvopsGetLastErrorDetail(void);

/* out = a op (alpha * b) with broadcasting. Floating operands, each read in its own dtype
 * (float32 beside bfloat16 under autocast), computed in float32, stored in out's dtype.
 * Contiguous operands of out's shape and dtype take a vectorized path. */
nvopsStatus_t nvopsBinary(cudaStream_t stream, nvopsBinaryOp_t op, const nvopsTensor_t* a, const nvopsTensor_t* b,
                          double alpha, const nvopsTensor_t* out);
/* out = a op (alpha * value): a Python number by value (`x * 2.0`), without a tensor for it. */
nvopsStatus_t nvopsBinaryScalar(cudaStream_t stream, nvopsBinaryOp_t op, const nvopsTensor_t* a, double value,
                                double alpha, const nvopsTensor_t* out);
/* out = op(x), x and out of one floating dtype and shape. */
nvopsStatus_t nvopsUnary(cudaStream_t stream, nvopsUnaryOp_t op, const nvopsTensor_t* x, const nvopsTensor_t* out);
/* out = grad times the derivative of op, from what its backward saved:
 *   NVOPS_GELU, NVOPS_GELU_TANH, NVOPS_SILU: the input;  NVOPS_TANH, NVOPS_SIGMOID: the output;
 *   NVOPS_RELU: the input, and `threshold` (threshold_backward: 0 where saved <= threshold). */
nvopsStatus_t nvopsUnaryBackward(cudaStream_t stream, nvopsUnaryOp_t op, const nvopsTensor_t* grad,
                                 const nvopsTensor_t* saved, double threshold, const nvopsTensor_t* out);
/* Where random numbers start: a seed and an offset the generator reserved for this call. */
typedef struct {
  uint64_t seed;
  uint64_t offset;
} nvopsRandState_t;
/* Dropout: mask (bool) keeps each element with probability 1 - p, out = x * mask / (1 - p)
 * (0 for p = 1); without train, out = x and mask is all true. */
nvopsStatus_t nvopsDropout(cudaStream_t stream, const nvopsTensor_t* x, double p, bool train, nvopsRandState_t state,
                           const nvopsTensor_t* out, const nvopsTensor_t* mask);
/* out = grad * mask * scale (dropout's backward). */
nvopsStatus_t nvopsDropoutBackward(cudaStream_t stream, const nvopsTensor_t* grad, const nvopsTensor_t* mask,
                                   double scale, const nvopsTensor_t* out);
/* lerp / addcmul / addcdiv with broadcasting, floating operands (c absent for lerp). */
nvopsStatus_t nvopsTernary(cudaStream_t stream, nvopsTernaryOp_t op, const nvopsTensor_t* a, const nvopsTensor_t* b,
                           const nvopsTensor_t* c, double value, const nvopsTensor_t* out);
/* out = condition ? a : b with broadcasting (condition bool; a, b and out of one dtype, any). */
nvopsStatus_t nvopsWhere(cudaStream_t stream, const nvopsTensor_t* condition, const nvopsTensor_t* a,
                         const nvopsTensor_t* b, const nvopsTensor_t* out);
/* out (bool) = x is -inf. */
nvopsStatus_t nvopsIsNegInf(cudaStream_t stream, const nvopsTensor_t* x, const nvopsTensor_t* out);
/* The lower (upper = false: j - i <= diagonal) or upper (j - i >= diagonal) triangle of the
 * last two dims; the rest 0. Any dtype; out may be x (in place). */
nvopsStatus_t nvopsTriangle(cudaStream_t stream, const nvopsTensor_t* x, int64_t diagonal, bool upper,
                            const nvopsTensor_t* out);
/* out[i] = start + i * step, 1-D out of any real dtype. */
nvopsStatus_t nvopsArange(cudaStream_t stream, double start, double step, const nvopsTensor_t* out);
nvopsStatus_t nvopsFill(cudaStream_t stream, const nvopsTensor_t* x, double value);
/* dst = cast(src), same shape, any strides: also the driver ABI's strided copy. */
nvopsStatus_t nvopsCopy(cudaStream_t stream, const nvopsTensor_t* dst, const nvopsTensor_t* src);

/* out = sum (or mean) of x over dims; out has x's rank with reduced dims of size 1 (keepdim) or removed. */
nvopsStatus_t nvopsReduceSum(cudaStream_t stream, const nvopsTensor_t* x, nvopsDims_t dims, bool mean,
                             const nvopsTensor_t* out);

/* out (bool) = every element of x over dims is nonzero; x of any dtype. */
nvopsStatus_t nvopsReduceAll(cudaStream_t stream, const nvopsTensor_t* x, nvopsDims_t dims, const nvopsTensor_t* out);

/* softmax / log-softmax along dim; a contiguous last dim takes a warp per row (coalesced). */
nvopsStatus_t nvopsSoftmax(cudaStream_t stream, const nvopsTensor_t* x, int64_t dim, bool log, const nvopsTensor_t* out);
/* grad_input of softmax (output * (grad - sum(grad * output))) or log-softmax (grad - exp(output) * sum(grad)). */
nvopsStatus_t nvopsSoftmaxBackward(cudaStream_t stream, const nvopsTensor_t* grad, const nvopsTensor_t* output,
                                   int64_t dim, bool log, const nvopsTensor_t* out);

/* The negative log likelihood of x (N, C) or (C) at target (int64), weighted (weight may be
 * absent), summed, averaged by the total weight, or per sample (reduction); targets equal to
 * ignore_index count for nothing. total_weight: a 0-dim tensor of x's dtype. */
nvopsStatus_t nvopsNllLoss(cudaStream_t stream, const nvopsTensor_t* x, const nvopsTensor_t* target,
                           const nvopsTensor_t* weight, int64_t reduction, int64_t ignore_index,
                           const nvopsTensor_t* output, const nvopsTensor_t* total_weight);
nvopsStatus_t nvopsNllLossBackward(cudaStream_t stream, const nvopsTensor_t* grad_output, const nvopsTensor_t* x,
                                   const nvopsTensor_t* target, const nvopsTensor_t* weight, int64_t reduction,
                                   int64_t ignore_index, const nvopsTensor_t* total_weight,
                                   const nvopsTensor_t* grad_input);

/* out = x.index_select(dim, index): index int32 or int64, any dtype. */
nvopsStatus_t nvopsIndexSelect(cudaStream_t stream, const nvopsTensor_t* x, int64_t dim, const nvopsTensor_t* index,
                               const nvopsTensor_t* out);
/* The embedding's weight gradient (out: num_weights x dim, contiguous, float32): rows of grad
 * (indices' shape x dim) added at their indices, skipping padding_idx (negative: none). */
nvopsStatus_t nvopsEmbeddingBackward(cudaStream_t stream, const nvopsTensor_t* grad, const nvopsTensor_t* indices,
                                     int64_t padding_idx, const nvopsTensor_t* out);
/* out = the tensors concatenated along dim (1-D empty tensors are skipped, as in ATen). */
nvopsStatus_t nvopsCat(cudaStream_t stream, nvopsTensorList_t tensors, int64_t dim, const nvopsTensor_t* out);

/* layer norm over the last `normalized_dims` dims of a contiguous x; mean and rstd per row (may be absent).
 * weight and bias (may be absent) are contiguous, of any floating dtype (float32 with a bfloat16 x under autocast). */
nvopsStatus_t nvopsLayerNorm(cudaStream_t stream, const nvopsTensor_t* x, int32_t normalized_dims,
                             const nvopsTensor_t* weight, const nvopsTensor_t* bias, double eps,
                             const nvopsTensor_t* out, const nvopsTensor_t* mean, const nvopsTensor_t* rstd);
/* Layer norm's gradients from the forward's mean and rstd (float32, a value per row): grad_x,
 * grad_weight and grad_bias, each computed only when present. grad and x contiguous. */
nvopsStatus_t nvopsLayerNormBackward(cudaStream_t stream, const nvopsTensor_t* grad, const nvopsTensor_t* x,
                                     int32_t normalized_dims, const nvopsTensor_t* mean, const nvopsTensor_t* rstd,
                                     const nvopsTensor_t* weight, const nvopsTensor_t* grad_x,
                                     const nvopsTensor_t* grad_weight, const nvopsTensor_t* grad_bias);

/* out = beta * bias + alpha * (a @ b) through cuBLAS; 2-D or 3-D (batched) operands. Each of a
 * and b is row-major or transposed (column-major) in its last two dims, with any leading
 * dimension (a column slice); cuBLAS reads a transposed one as such, without a copy. out is
 * contiguous.
 * bias may be absent (beta ignored), or broadcast along rows (1-D). With k = 0 the product is
 * empty: out = beta * bias, or zeros (cuBLAS is not called). Each (handle, stream) pair has its
 * own cuBLAS workspace. */
nvopsStatus_t nvopsMatmul(cudaStream_t stream, const nvopsTensor_t* a, const nvopsTensor_t* b,
                          const nvopsTensor_t* bias, double beta, double alpha, const nvopsTensor_t* out);
/* Whether nvopsMatmul reads `t` as an operand as it is (else it must be made contiguous). */
bool nvopsMatmulTakesOperand(const nvopsTensor_t* t);

#ifdef __cplusplus
}
#endif

#endif /* NV_OPS_H_ */
