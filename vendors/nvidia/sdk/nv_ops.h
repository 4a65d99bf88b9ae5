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
typedef enum { NVOPS_RELU, NVOPS_GELU, NVOPS_GELU_TANH, NVOPS_SILU, NVOPS_EXP, NVOPS_TANH, NVOPS_SIGMOID, NVOPS_NEG } nvopsUnaryOp_t;

const char* nvopsGetErrorString(nvopsStatus_t status);
/* The CUDA or cuBLAS message of this thread's last failure. */
const char* nvopsGetLastErrorDetail(void);

/* out = a op (alpha * b) with broadcasting; every tensor of one floating dtype. */
nvopsStatus_t nvopsBinary(cudaStream_t stream, nvopsBinaryOp_t op, const nvopsTensor_t* a, const nvopsTensor_t* b,
                          double alpha, const nvopsTensor_t* out);
nvopsStatus_t nvopsUnary(cudaStream_t stream, nvopsUnaryOp_t op, const nvopsTensor_t* x, const nvopsTensor_t* out);
nvopsStatus_t nvopsFill(cudaStream_t stream, const nvopsTensor_t* x, double value);
/* dst = cast(src), same shape, any strides: also the driver ABI's strided copy. */
nvopsStatus_t nvopsCopy(cudaStream_t stream, const nvopsTensor_t* dst, const nvopsTensor_t* src);

/* out = sum (or mean) of x over dims; out has x's rank with reduced dims of size 1 (keepdim) or removed. */
nvopsStatus_t nvopsReduceSum(cudaStream_t stream, const nvopsTensor_t* x, nvopsDims_t dims, bool mean,
                             const nvopsTensor_t* out);

/* softmax / log-softmax along dim */
nvopsStatus_t nvopsSoftmax(cudaStream_t stream, const nvopsTensor_t* x, int64_t dim, bool log, const nvopsTensor_t* out);

/* layer norm over the last `normalized_dims` dims of a contiguous x; mean and rstd per row (may be absent).
 * weight and bias (may be absent) are contiguous, of any floating dtype (float32 with a bfloat16 x under autocast). */
nvopsStatus_t nvopsLayerNorm(cudaStream_t stream, const nvopsTensor_t* x, int32_t normalized_dims,
                             const nvopsTensor_t* weight, const nvopsTensor_t* bias, double eps,
                             const nvopsTensor_t* out, const nvopsTensor_t* mean, const nvopsTensor_t* rstd);

/* out = beta * bias + alpha * (a @ b) through cuBLAS; 2-D or 3-D (batched) row-major operands.
 * bias may be absent (beta ignored), or broadcast along rows (1-D). With k = 0 the product is
 * empty: out = beta * bias, or zeros (cuBLAS is not called). Each (handle, stream) pair has its
 * own cuBLAS workspace. */
nvopsStatus_t nvopsMatmul(cudaStream_t stream, const nvopsTensor_t* a, const nvopsTensor_t* b,
                          const nvopsTensor_t* bias, double beta, double alpha, const nvopsTensor_t* out);

#ifdef __cplusplus
}
#endif

#endif /* NV_OPS_H_ */
