/*
 * Reductions of the opencl op library (included by ocl_ops.h): over a set of dims
 * (oclopsDims_t; negative dims count from the end, none: every dim), the output's
 * elements in parallel, each work-item walking its block of the input in order.
 * Floating-point blocks accumulate in double where the device has it (so long
 * float32 sums stay as accurate as PyTorch's pairwise ones), integers in long.
 * out has a's shape without the reduced dims, or with them as 1 when keepdim.
 */
#ifndef OCL_OPS_REDUCE_H_
#define OCL_OPS_REDUCE_H_

typedef enum {
  OCLOPS_REDUCE_SUM, OCLOPS_REDUCE_PROD, OCLOPS_REDUCE_MEAN,
  OCLOPS_REDUCE_AMAX, OCLOPS_REDUCE_AMIN,  /* NaN wins */
  OCLOPS_REDUCE_NORM,  /* p: the order (inf, -inf, 0, 1, 2 or any other) */
  OCLOPS_REDUCE_VAR, OCLOPS_REDUCE_STD,  /* p: the correction (divisor n - p, at least 0) */
  OCLOPS_REDUCE_ALL, OCLOPS_REDUCE_ANY,  /* whether all (any) elements are nonzero (NaN is) */
  OCLOPS_REDUCE_LOGSUMEXP,  /* log of the sum of exp, shifted by the largest finite element */
} oclopsReduceOp_t;

typedef enum { OCLOPS_CUMSUM, OCLOPS_CUMPROD } oclopsScanOp_t;

typedef enum { OCLOPS_ARGMAX, OCLOPS_ARGMIN } oclopsArgOp_t;
typedef enum { OCLOPS_SOFTMAX, OCLOPS_LOG_SOFTMAX } oclopsSoftmaxMode_t;

oclopsStatus_t oclopsReduce(oclopsStream_t stream, oclopsReduceOp_t op, const oclopsTensor_t* a, oclopsDims_t dims,
                            bool keepdim, oclopsScalar_t p, const oclopsTensor_t* out);
/* oclopsReduce with OCLOPS_REDUCE_SUM. */
oclopsStatus_t oclopsReduceSum(oclopsStream_t stream, const oclopsTensor_t* a, oclopsDims_t dims, bool keepdim,
                               const oclopsTensor_t* out);
/* The first index of the largest (smallest) element over dims (every dim: an
 * index into a flattened), as PyTorch's: a NaN is larger and smaller than any
 * number. values (its element) may be absent; indices are int64. */
oclopsStatus_t oclopsReduceIndex(oclopsStream_t stream, oclopsArgOp_t op, const oclopsTensor_t* a, oclopsDims_t dims,
                                 bool keepdim, const oclopsTensor_t* values, const oclopsTensor_t* indices);
/* out = the running sums (products) of a along dim, out shaped like a. */
oclopsStatus_t oclopsScan(oclopsStream_t stream, oclopsScanOp_t op, const oclopsTensor_t* a, int64_t dim,
                          const oclopsTensor_t* out);
/* (log-)softmax of a along dim, out shaped like a. */
oclopsStatus_t oclopsSoftmax(oclopsStream_t stream, oclopsSoftmaxMode_t mode, const oclopsTensor_t* a, int64_t dim,
                             const oclopsTensor_t* out);
/* Its gradient from the forward's output. */
oclopsStatus_t oclopsSoftmaxBackward(oclopsStream_t stream, oclopsSoftmaxMode_t mode, const oclopsTensor_t* grad,
                                     const oclopsTensor_t* output, int64_t dim, const oclopsTensor_t* out);

#endif /* OCL_OPS_REDUCE_H_ */
