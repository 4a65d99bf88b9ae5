/*
 * Data movement of the opencl op library (included by ocl_ops.h): concatenation,
 * ranges, gathering rows by index and its gradient (kernels/ocl_data.cl).
 */
#ifndef OCL_OPS_DATA_H_
#define OCL_OPS_DATA_H_

/* A list of descriptors (cat's inputs). */
typedef struct {
  int32_t count;
  const oclopsTensor_t* tensors;
} oclopsTensorList_t;

/* out = the tensors joined along dim, each cast to out's dtype (a 1-D empty
 * tensor is skipped, as PyTorch's legacy rule has it). */
oclopsStatus_t oclopsCat(oclopsStream_t stream, oclopsTensorList_t tensors, int64_t dim, const oclopsTensor_t* out);
/* out (1-D) [i] = start + i * step, computed in double for floating point (as
 * PyTorch's accumulate type) and long for integers. */
oclopsStatus_t oclopsArange(oclopsStream_t stream, oclopsScalar_t start, oclopsScalar_t step,
                            const oclopsTensor_t* out);
/* out = a's slices along dim at index's positions (int32 or int64). An index
 * out of range, negative included, reads 0 and raises at the stream's next
 * synchronisation (a kernel cannot raise; it must not read outside a). */
oclopsStatus_t oclopsIndexSelect(oclopsStream_t stream, const oclopsTensor_t* a, int64_t dim,
                                 const oclopsTensor_t* index, const oclopsTensor_t* out);
/* out[i][j][k] = a[i][index[i][j][k]][k] (dim 1; likewise for any dim); an int32
 * or int64 index shaped like out; a bad one as in oclopsIndexSelect. */
oclopsStatus_t oclopsGather(oclopsStream_t stream, const oclopsTensor_t* a, int64_t dim, const oclopsTensor_t* index,
                            const oclopsTensor_t* out);
/* out = a with the elements above (lower: tril) or below (upper: triu) the
 * diagonal-th diagonal of its last two dims zeroed. */
oclopsStatus_t oclopsTriangle(oclopsStream_t stream, const oclopsTensor_t* a, int64_t diagonal, bool lower,
                              const oclopsTensor_t* out);
/* out (num_weights x D) = the sum of grad's rows (grad: N x D, any leading dims
 * flattened, contiguous) per index in indices (N, contiguous), skipping
 * padding_idx; scale_by_freq divides each by its index's count. */
oclopsStatus_t oclopsEmbeddingBackward(oclopsStream_t stream, const oclopsTensor_t* grad,
                                       const oclopsTensor_t* indices, int64_t padding_idx, bool scale_by_freq,
                                       const oclopsTensor_t* out);

#endif /* OCL_OPS_DATA_H_ */
