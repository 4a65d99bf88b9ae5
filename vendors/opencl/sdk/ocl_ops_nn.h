/*
 * Losses and normalisation of the opencl op library (included by ocl_ops.h):
 * kernels/ocl_nn.cl. Operands are contiguous (the spec's layout rules make them
 * so); sums run in order, in double where the device has fp64.
 */
#ifndef OCL_OPS_NN_H_
#define OCL_OPS_NN_H_

/* reduction: ATen's (0 none, 1 mean, 2 sum). self: (N, C) or (C); target (N) or
 * (), int64; weight (C) or absent. A target equal to ignore_index counts for
 * nothing; one out of range counts for nothing too (CPU raises; a kernel cannot). */
oclopsStatus_t oclopsNllLoss(oclopsStream_t stream, const oclopsTensor_t* self, const oclopsTensor_t* target,
                             const oclopsTensor_t* weight, int64_t reduction, int64_t ignore_index,
                             const oclopsTensor_t* output, const oclopsTensor_t* total_weight);
oclopsStatus_t oclopsNllLossBackward(oclopsStream_t stream, const oclopsTensor_t* grad_output,
                                     const oclopsTensor_t* self, const oclopsTensor_t* target,
                                     const oclopsTensor_t* weight, int64_t reduction, int64_t ignore_index,
                                     const oclopsTensor_t* total_weight, const oclopsTensor_t* grad_input);
/* Over the last normalized_dims dims of x: out = (x - mean) * rstd * weight + bias
 * (either absent), mean and rstd per row (biased variance). */
oclopsStatus_t oclopsLayerNorm(oclopsStream_t stream, const oclopsTensor_t* x, int32_t normalized_dims,
                               const oclopsTensor_t* weight, const oclopsTensor_t* bias, double eps,
                               const oclopsTensor_t* out, const oclopsTensor_t* mean, const oclopsTensor_t* rstd);
/* The gradients; any of grad_x, grad_weight, grad_bias may be absent (not asked for). */
oclopsStatus_t oclopsLayerNormBackward(oclopsStream_t stream, const oclopsTensor_t* grad, const oclopsTensor_t* x,
                                       int32_t normalized_dims, const oclopsTensor_t* mean,
                                       const oclopsTensor_t* rstd, const oclopsTensor_t* weight,
                                       const oclopsTensor_t* grad_x, const oclopsTensor_t* grad_weight,
                                       const oclopsTensor_t* grad_bias);

#endif /* OCL_OPS_NN_H_ */
