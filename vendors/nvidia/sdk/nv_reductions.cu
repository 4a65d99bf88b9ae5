// Reductions, softmax and the NLL loss: kernels where threads combine values, so
// they run only on a GPU (nv_ops_test's kernel tests); their argument checks run anywhere.
#include "nv_element_bodies.cuh"

namespace nvops {
namespace {

// Output element i: kept coords → (input base, output offset); then a walk
// over the reduced dims from the input base.
struct Reduction {
  Walk<2> kept;     // strides: input, output
  Walk<1> reduced;  // strides: input
  int64_t reduced_count;
};

constexpr int kReduceThreads = 256;

enum class ReduceMode { kSum, kMean, kAll };

// What a reduction adds for one element: the value, or for kAll a 1 per zero.
__device__ float reduced_value(ReduceMode mode, const void* x, int64_t offset, nvopsDtype_t x_type) {
  return mode == ReduceMode::kAll ? (load_any(x, offset, x_type) == 0.0 ? 1.f : 0.f) : load_float(x, offset, x_type);
}

// The result from the total: the sum, the mean, or for kAll whether no zero was counted.
__device__ void store_reduced(ReduceMode mode, float total, int64_t count, void* out, int64_t offset,
                              nvopsDtype_t out_type) {
  if (mode == ReduceMode::kAll) {
    store_any(out, offset, out_type, total == 0.f ? 1.0 : 0.0);
  } else {
    store_float(out, offset, out_type, mode == ReduceMode::kMean ? total / static_cast<float>(count) : total);
  }
}

// One block per output element: each thread adds a strided share of the reduced
// elements, then the block adds the shares as a tree. (One thread adding them all
// in order loses precision: 2^25 float32 ones summed to 2^24.) kAll counts the
// zeros: the result is true when there are none (a float count stays above 0).
__global__ void reduce_kernel(Reduction r, ReduceMode mode, void* out, nvopsDtype_t out_type, const void* x,
                              nvopsDtype_t x_type) {
  __shared__ float shared[kReduceThreads];
  int64_t base[2];
  r.kept.offsets(blockIdx.x, base);
  float partial = 0.f;
  for (int64_t j = threadIdx.x; j < r.reduced_count; j += blockDim.x) {
    int64_t off[1];
    r.reduced.offsets(j, off);
    partial += reduced_value(mode, x, base[0] + off[0], x_type);
  }
  const float total = block_sum(partial, shared);
  if (threadIdx.x == 0) store_reduced(mode, total, r.reduced_count, out, base[1], out_type);
}

// Few outputs over many elements (a whole-tensor sum): one block per output would
// leave the GPU idle, so `parts` blocks per output each reduce a slice into a
// partial (first pass), and a block per output adds the partials (second pass),
// both as trees.
constexpr int64_t kSliceElements = 16384;
constexpr int kMaxSplitBlocks = 1024;

__global__ void reduce_slices_kernel(Reduction r, int parts, ReduceMode mode, const void* x, nvopsDtype_t x_type,
                                     float* partials) {
  __shared__ float shared[kReduceThreads];
  const int64_t output = blockIdx.x / parts, part = blockIdx.x % parts;
  const int64_t slice = (r.reduced_count + parts - 1) / parts;
  const int64_t begin = part * slice, end = begin + slice < r.reduced_count ? begin + slice : r.reduced_count;
  int64_t base[2];
  r.kept.offsets(output, base);
  float partial = 0.f;
  for (int64_t j = begin + threadIdx.x; j < end; j += blockDim.x) {
    int64_t off[1];
    r.reduced.offsets(j, off);
    partial += reduced_value(mode, x, base[0] + off[0], x_type);
  }
  const float total = block_sum(partial, shared);
  if (threadIdx.x == 0) partials[blockIdx.x] = total;
}

__global__ void reduce_partials_kernel(Reduction r, int parts, ReduceMode mode, const float* partials, void* out,
                                       nvopsDtype_t out_type) {
  __shared__ float shared[kReduceThreads];
  float partial = 0.f;
  for (int p = threadIdx.x; p < parts; p += blockDim.x) partial += partials[blockIdx.x * parts + p];
  const float total = block_sum(partial, shared);
  if (threadIdx.x != 0) return;
  int64_t base[2];
  r.kept.offsets(blockIdx.x, base);
  store_reduced(mode, total, r.reduced_count, out, base[1], out_type);
}

// The two passes, with the partials in stream-ordered memory; false when that memory
// is not to be had (the caller then reduces in one pass).
bool reduce_in_two_passes(cudaStream_t stream, const Reduction& r, int64_t outputs, ReduceMode mode,
                          const nvopsTensor_t& out, const nvopsTensor_t& x) {
  int64_t parts = (r.reduced_count + kSliceElements - 1) / kSliceElements;
  if (parts > kMaxSplitBlocks / outputs) parts = kMaxSplitBlocks / outputs;
  float* partials = nullptr;
  if (cudaMallocAsync(reinterpret_cast<void**>(&partials), sizeof(float) * outputs * parts, stream) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  reduce_slices_kernel<<<static_cast<unsigned>(outputs * parts), kReduceThreads, 0, stream>>>(
      r, static_cast<int>(parts), mode, x.data, x.dtype, partials);
  reduce_partials_kernel<<<static_cast<unsigned>(outputs), kReduceThreads, 0, stream>>>(
      r, static_cast<int>(parts), mode, partials, out.data, out.dtype);
  cudaFreeAsync(partials, stream);
  return true;
}

constexpr int kTileColumns = 32, kTileLanes = 8;

// Outputs whose inputs lie side by side (the innermost kept dim has stride 1: a bias
// gradient summed over the batch). A block takes 32 neighbouring outputs and its 8
// lanes read 32 neighbouring elements at a time (coalesced, where a block per output
// would read one element per row); blockIdx.y takes one of `splits` slices of the
// rows, so that a few outputs over many rows still fill the GPU. Each thread sums its
// share with Kahan's compensation, so a long column keeps float32's precision. With
// one slice the block writes the result; with several, its slice's total goes to
// `split_totals` (split-major) for reduce_split_totals_kernel.
__global__ void reduce_columns_kernel(Reduction r, int64_t outputs, ReduceMode mode, void* out, nvopsDtype_t out_type,
                                      const void* x, nvopsDtype_t x_type, float* split_totals) {
  __shared__ float partials[kTileLanes][kTileColumns + 1];
  const int64_t output = blockIdx.x * static_cast<int64_t>(kTileColumns) + threadIdx.x;
  const int64_t slice = (r.reduced_count + gridDim.y - 1) / gridDim.y;
  const int64_t begin = blockIdx.y * slice, end = begin + slice < r.reduced_count ? begin + slice : r.reduced_count;
  float sum = 0.f, compensation = 0.f;
  int64_t base[2] = {0, 0};
  if (output < outputs) {
    r.kept.offsets(output, base);
    for (int64_t j = begin + threadIdx.y; j < end; j += kTileLanes) {
      int64_t off[1];
      r.reduced.offsets(j, off);
      const float corrected = reduced_value(mode, x, base[0] + off[0], x_type) - compensation;
      const float next = sum + corrected;
      // Once the sum is infinite the compensation would be inf - inf: NaN where CPU says inf.
      compensation = isfinite(next) ? (next - sum) - corrected : 0.f;
      sum = next;
    }
  }
  partials[threadIdx.y][threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.y != 0 || output >= outputs) return;
  float total = 0.f;
  for (int lane = 0; lane < kTileLanes; ++lane) total += partials[lane][threadIdx.x];
  if (split_totals) {
    split_totals[blockIdx.y * outputs + output] = total;
  } else {
    store_reduced(mode, total, r.reduced_count, out, base[1], out_type);
  }
}

// A thread per output adds its slices' totals (neighbouring threads read neighbouring totals).
__global__ void reduce_split_totals_kernel(Reduction r, int64_t outputs, int splits, ReduceMode mode,
                                           const float* split_totals, void* out, nvopsDtype_t out_type) {
  const int64_t output = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (output >= outputs) return;
  float total = 0.f;
  for (int split = 0; split < splits; ++split) total += split_totals[split * outputs + output];
  int64_t base[2];
  r.kept.offsets(output, base);
  store_reduced(mode, total, r.reduced_count, out, base[1], out_type);
}

// The column-tiled reduction: enough row slices to give the GPU about 1024 blocks,
// each slice at least 2048 rows; one slice (and no second pass) when that is all
// there is, or when no memory is to be had for the slices' totals.
void reduce_columns(cudaStream_t stream, const Reduction& r, int64_t outputs, ReduceMode mode, const nvopsTensor_t& out,
                    const nvopsTensor_t& x) {
  const int64_t column_blocks = (outputs + kTileColumns - 1) / kTileColumns;
  int64_t splits = (kMaxSplitBlocks + column_blocks - 1) / column_blocks;
  const int64_t by_rows = (r.reduced_count + 2047) / 2048;
  if (splits > by_rows) splits = by_rows;
  float* split_totals = nullptr;
  if (splits > 1 && cudaMallocAsync(reinterpret_cast<void**>(&split_totals), sizeof(float) * outputs * splits,
                                    stream) != cudaSuccess) {
    cudaGetLastError();
    split_totals = nullptr;
  }
  if (!split_totals) splits = 1;
  reduce_columns_kernel<<<dim3(static_cast<unsigned>(column_blocks), static_cast<unsigned>(splits)),
                          dim3(kTileColumns, kTileLanes), 0, stream>>>(r, outputs, mode, out.data, out.dtype, x.data,
                                                                       x.dtype, split_totals);
  if (split_totals) {
    reduce_split_totals_kernel<<<blocks_for(outputs), kThreads, 0, stream>>>(
        r, outputs, static_cast<int>(splits), mode, split_totals, out.data, out.dtype);
    cudaFreeAsync(split_totals, stream);
  }
}

nvopsStatus_t reduce(cudaStream_t stream, const char* name, const nvopsTensor_t& x, const nvopsDims_t& dims,
                     ReduceMode mode, const nvopsTensor_t& out) {
  bool reduced[NVOPS_MAX_DIMS] = {};
  for (int i = 0; i < dims.count; ++i) {
    // A 0-dim tensor takes dim 0 or -1, as PyTorch's reductions do: nothing to reduce.
    if (x.dim == 0 && (dims.dims[i] == 0 || dims.dims[i] == -1)) continue;
    const int64_t d = dims.dims[i] < 0 ? dims.dims[i] + x.dim : dims.dims[i];
    if (d < 0 || d >= x.dim) return fail(NVOPS_ERROR_INVALID_ARGUMENT, std::string(name) + ": dim out of range");
    reduced[d] = true;
  }
  if (dims.count == 0) for (int d = 0; d < x.dim; ++d) reduced[d] = true;
  const bool keepdim = out.dim == x.dim;
  Reduction r{};
  r.reduced_count = 1;
  int out_dim = 0;
  for (int d = 0; d < x.dim; ++d) {
    if (reduced[d]) {
      r.reduced.shape[r.reduced.dim] = x.shape[d];
      r.reduced.stride[0][r.reduced.dim++] = x.stride[d];
      r.reduced_count *= x.shape[d];
      if (keepdim) ++out_dim;
    } else {
      if (out_dim >= out.dim) return fail(NVOPS_ERROR_INVALID_ARGUMENT, std::string(name) + ": result rank mismatch");
      r.kept.shape[r.kept.dim] = x.shape[d];
      r.kept.stride[0][r.kept.dim] = x.stride[d];
      r.kept.stride[1][r.kept.dim++] = out.stride[out_dim++];
    }
  }
  const int64_t outputs = numel(out);
  if (outputs == 0) return NVOPS_SUCCESS;
  if (outputs > 0x7fffffff) return fail(NVOPS_ERROR_NOT_SUPPORTED, std::string(name) + ": more than 2^31-1 outputs");
  NVOPS_ENTER(stream, name);
  const bool side_by_side = r.kept.dim > 0 && r.kept.stride[0][r.kept.dim - 1] == 1 && r.kept.shape[r.kept.dim - 1] > 1;
  if (side_by_side && r.reduced_count > 1) {
    reduce_columns(stream, r, outputs, mode, out, x);
    return check_launch(name);
  }
  if (outputs * 4 <= kMaxSplitBlocks && r.reduced_count >= 4 * kSliceElements &&
      reduce_in_two_passes(stream, r, outputs, mode, out, x)) {
    return check_launch(name);
  }
  int threads = 32;  // a power of two (block_sum's tree), no more than there are elements to add
  while (threads < kReduceThreads && threads < r.reduced_count) threads *= 2;
  reduce_kernel<<<static_cast<unsigned>(outputs), threads, 0, stream>>>(r, mode, out.data, out.dtype, x.data, x.dtype);
  return check_launch(name);
}

// ---- softmax ----------------------------------------------------------------

// The rows of a softmax: every coordinate but its dim.
struct SoftmaxRows {
  Walk<3> rows;   // strides: input (or output), gradient, result
  int64_t count;  // the softmax dim's size
  int64_t step[3];  // its strides, in the same order
};

constexpr int kWarpsPerBlock = 4;

// A warp per row: lanes read consecutive elements of a contiguous last dim (coalesced).
template <class T>
__global__ void softmax_kernel(SoftmaxRows r, int64_t rows, bool log, T* out, const T* x) {
  const int64_t row = blockIdx.x * static_cast<int64_t>(kWarpsPerBlock) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;  // the whole warp leaves together
  int64_t base[3];
  r.rows.offsets(row, base);
  const T* in = x + base[0];
  T* result = out + base[2];
  const int64_t in_step = r.step[0], out_step = r.step[2];
  float max_value = -INFINITY;
  for (int64_t j = lane; j < r.count; j += 32) max_value = fmaxf(max_value, to_float(in[j * in_step]));
  max_value = warp_max(max_value);
  float sum = 0.f;
  for (int64_t j = lane; j < r.count; j += 32) sum += expf(to_float(in[j * in_step]) - max_value);
  sum = warp_sum(sum);
  const float log_sum = logf(sum);
  for (int64_t j = lane; j < r.count; j += 32) {
    const float shifted = to_float(in[j * in_step]) - max_value;
    result[j * out_step] = from_float<T>(log ? shifted - log_sum : expf(shifted) / sum);
  }
}

template <class T>
__global__ void softmax_backward_kernel(SoftmaxRows r, int64_t rows, bool log, T* out, const T* grad, const T* output) {
  const int64_t row = blockIdx.x * static_cast<int64_t>(kWarpsPerBlock) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  int64_t base[3];
  r.rows.offsets(row, base);
  const T* y = output + base[0];
  const T* g = grad + base[1];
  T* result = out + base[2];
  float sum = 0.f;
  for (int64_t j = lane; j < r.count; j += 32) {
    const float gj = to_float(g[j * r.step[1]]);
    sum += log ? gj : gj * to_float(y[j * r.step[0]]);
  }
  sum = warp_sum(sum);
  for (int64_t j = lane; j < r.count; j += 32) {
    const float yj = to_float(y[j * r.step[0]]), gj = to_float(g[j * r.step[1]]);
    result[j * r.step[2]] = from_float<T>(log ? gj - expf(yj) * sum : yj * (gj - sum));
  }
}

// Rows of x along dim, with grad's and out's strides (grad may be x).
nvopsStatus_t softmax_rows(const char* name, const nvopsTensor_t& x, const nvopsTensor_t& grad,
                           const nvopsTensor_t& out, int64_t& dim, SoftmaxRows& r, int64_t& rows) {
  if (x.dim == 0) {  // one element along dim 0 or -1
    if (dim != 0 && dim != -1) return fail(NVOPS_ERROR_INVALID_ARGUMENT, std::string(name) + ": dim out of range");
    r.count = 1;
    rows = 1;
    return NVOPS_SUCCESS;
  }
  if (dim < 0) dim += x.dim;
  if (dim < 0 || dim >= x.dim) return fail(NVOPS_ERROR_INVALID_ARGUMENT, std::string(name) + ": dim out of range");
  const nvopsTensor_t* operands[3] = {&x, &grad, &out};
  for (int d = 0; d < x.dim; ++d) {
    if (d == dim) continue;
    r.rows.shape[r.rows.dim] = x.shape[d];
    for (int o = 0; o < 3; ++o) r.rows.stride[o][r.rows.dim] = operands[o]->stride[d];
    ++r.rows.dim;
  }
  r.count = x.shape[dim];
  for (int o = 0; o < 3; ++o) r.step[o] = operands[o]->stride[dim];
  rows = 1;
  for (int d = 0; d < r.rows.dim; ++d) rows *= r.rows.shape[d];
  return NVOPS_SUCCESS;
}

unsigned row_blocks(int64_t rows) { return static_cast<unsigned>((rows + kWarpsPerBlock - 1) / kWarpsPerBlock); }

// ---- NLL loss ---------------------------------------------------------------

constexpr int kLossThreads = 256;

// One block: the weighted losses and weights of every sample, summed as trees.
__global__ void nll_loss_kernel(int64_t batch, int64_t classes, int64_t x_row_stride, int64_t x_class_stride,
                                const void* x, nvopsDtype_t x_type, const void* target, nvopsDtype_t target_type,
                                int64_t target_stride,
                                const void* weight, nvopsDtype_t weight_type, int64_t weight_stride, bool batched,
                                int64_t reduction, int64_t ignore_index, void* output, int64_t output_stride,
                                void* total_weight) {
  __shared__ float shared[kLossThreads];
  float loss = 0.f, weights = 0.f;
  for (int64_t i = threadIdx.x; i < batch; i += blockDim.x) {
    const int64_t t = load_integer(target, i * target_stride, target_type);
    float sample = 0.f;
    if (t != ignore_index) {
      if (t < 0 || t >= classes) __trap();  // as CUDA's own loss asserts on a bad target
      const float w = weight ? load_float(weight, t * weight_stride, weight_type) : 1.f;
      sample = -w * load_float(x, i * x_row_stride + t * x_class_stride, x_type);
      weights += w;
    }
    if (reduction == NVOPS_MEAN_NONE) {
      store_float(output, i * output_stride, x_type, sample);
    } else {
      loss += sample;
    }
  }
  const float total = block_sum(weights, shared);
  const float sum = block_sum(loss, shared);
  if (threadIdx.x != 0) return;
  // ATen's total weight of unreduced losses over a batch is 0 (of one sample: its weight).
  store_float(total_weight, 0, x_type, reduction == NVOPS_MEAN_NONE && batched ? 0.f : total);
  if (reduction == NVOPS_SUM) store_float(output, 0, x_type, sum);
  if (reduction == NVOPS_MEAN) store_float(output, 0, x_type, sum / total);  // 0 / 0 = NaN when all are ignored
}

// Sample stride and class stride of x, (N, C) or (C).
void loss_strides(const nvopsTensor_t& x, int64_t& batch, int64_t& classes, int64_t& row_stride, int64_t& class_stride) {
  batch = x.dim == 2 ? x.shape[0] : 1;
  classes = x.shape[x.dim - 1];
  row_stride = x.dim == 2 ? x.stride[0] : 0;
  class_stride = x.stride[x.dim - 1];
}

nvopsStatus_t check_loss_arguments(const char* name, const nvopsTensor_t* x, const nvopsTensor_t* target,
                                   const nvopsTensor_t* weight, int64_t reduction) {
  // ATen's NLL takes Long or Byte targets (and refuses the other integers).
  if (!x || !target || !floating(x->dtype) || (x->dim != 1 && x->dim != 2) ||
      (target->dtype != NVOPS_I64 && target->dtype != NVOPS_U8) ||
      target->dim != x->dim - 1 || (x->dim == 2 && target->shape[0] != x->shape[0])) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT,
                std::string(name) + ": x (N, C) or (C) of a floating dtype, and an int64 or uint8 target (N) or ()");
  }
  if (present(weight) && (!floating(weight->dtype) || weight->dim != 1 || weight->shape[0] != x->shape[x->dim - 1])) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT, std::string(name) + ": weight must hold a floating value per class");
  }
  if (reduction < NVOPS_MEAN_NONE || reduction > NVOPS_SUM) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT, std::string(name) + ": reduction must be 0 (none), 1 (mean) or 2 (sum)");
  }
  return NVOPS_SUCCESS;
}

}  // namespace
}  // namespace nvops

using namespace nvops;

extern "C" {

nvopsStatus_t nvopsReduceSum(cudaStream_t stream, const nvopsTensor_t* x, nvopsDims_t dims, bool mean,
                             const nvopsTensor_t* out) {
  // An integral or bool result would need each element cast before the sum, as ATen
  // does (sum([0.5, 0.5], dtype=long) is 0): the spec keeps those on the CPU.
  if (!x || !out || !floating(x->dtype) || !floating(out->dtype)) {
    return fail(NVOPS_ERROR_NOT_SUPPORTED, "nvopsReduceSum: input and result must be float32, float16 or bfloat16");
  }
  return reduce(stream, "nvopsReduceSum", *x, dims, mean ? ReduceMode::kMean : ReduceMode::kSum, *out);
}

nvopsStatus_t nvopsReduceAll(cudaStream_t stream, const nvopsTensor_t* x, nvopsDims_t dims, const nvopsTensor_t* out) {
  if (!x || !out || element_size(x->dtype) == 0 || is_complex(x->dtype) || out->dtype != NVOPS_BOOL) {
    return fail(NVOPS_ERROR_NOT_SUPPORTED, "nvopsReduceAll: a real input and a bool result");
  }
  return reduce(stream, "nvopsReduceAll", *x, dims, ReduceMode::kAll, *out);
}

nvopsStatus_t nvopsSoftmax(cudaStream_t stream, const nvopsTensor_t* x, int64_t dim, bool log, const nvopsTensor_t* out) {
  if (!x || !out || x->dtype != out->dtype || !same_shape(*x, *out)) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsSoftmax: input and result must match in dtype and shape");
  }
  SoftmaxRows r{};
  int64_t rows = 0;
  if (const nvopsStatus_t status = softmax_rows("nvopsSoftmax", *x, *x, *out, dim, r, rows); status != NVOPS_SUCCESS) {
    return status;
  }
  if (rows == 0 || r.count == 0) return NVOPS_SUCCESS;
  NVOPS_ENTER(stream, "nvopsSoftmax");
  NVOPS_DISPATCH_FLOATING(x->dtype, softmax_kernel<scalar_t><<<row_blocks(rows), 32 * kWarpsPerBlock, 0, stream>>>(
      r, rows, log, static_cast<scalar_t*>(out->data), static_cast<const scalar_t*>(x->data)));
  return check_launch("nvopsSoftmax");
}

nvopsStatus_t nvopsSoftmaxBackward(cudaStream_t stream, const nvopsTensor_t* grad, const nvopsTensor_t* output,
                                   int64_t dim, bool log, const nvopsTensor_t* out) {
  if (!grad || !output || !out || grad->dtype != output->dtype || out->dtype != output->dtype ||
      !same_shape(*grad, *output) || !same_shape(*out, *output)) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT,
                "nvopsSoftmaxBackward: gradient, output and result must match in dtype and shape");
  }
  SoftmaxRows r{};
  int64_t rows = 0;
  if (const nvopsStatus_t status = softmax_rows("nvopsSoftmaxBackward", *output, *grad, *out, dim, r, rows);
      status != NVOPS_SUCCESS) {
    return status;
  }
  if (rows == 0 || r.count == 0) return NVOPS_SUCCESS;
  NVOPS_ENTER(stream, "nvopsSoftmaxBackward");
  NVOPS_DISPATCH_FLOATING(output->dtype,
                          softmax_backward_kernel<scalar_t><<<row_blocks(rows), 32 * kWarpsPerBlock, 0, stream>>>(
                              r, rows, log, static_cast<scalar_t*>(out->data), static_cast<const scalar_t*>(grad->data),
                              static_cast<const scalar_t*>(output->data)));
  return check_launch("nvopsSoftmaxBackward");
}

nvopsStatus_t nvopsNllLoss(cudaStream_t stream, const nvopsTensor_t* x, const nvopsTensor_t* target,
                           const nvopsTensor_t* weight, int64_t reduction, int64_t ignore_index,
                           const nvopsTensor_t* output, const nvopsTensor_t* total_weight) {
  if (const nvopsStatus_t status = check_loss_arguments("nvopsNllLoss", x, target, weight, reduction);
      status != NVOPS_SUCCESS) {
    return status;
  }
  if (!output || !total_weight || output->dtype != x->dtype || total_weight->dtype != x->dtype) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsNllLoss: output and total_weight in x's dtype");
  }
  int64_t batch, classes, row_stride, class_stride;
  loss_strides(*x, batch, classes, row_stride, class_stride);
  NVOPS_ENTER(stream, "nvopsNllLoss");
  nll_loss_kernel<<<1, kLossThreads, 0, stream>>>(
      batch, classes, row_stride, class_stride, x->data, x->dtype, target->data, target->dtype,
      target->dim == 1 ? target->stride[0] : 0, present(weight) ? weight->data : nullptr,
      present(weight) ? weight->dtype : NVOPS_INVALID, present(weight) ? weight->stride[0] : 0, x->dim == 2, reduction,
      ignore_index, output->data,
      output->dim == 1 ? output->stride[0] : 0, total_weight->data);
  return check_launch("nvopsNllLoss");
}

nvopsStatus_t nvopsNllLossBackward(cudaStream_t stream, const nvopsTensor_t* grad_output, const nvopsTensor_t* x,
                                   const nvopsTensor_t* target, const nvopsTensor_t* weight, int64_t reduction,
                                   int64_t ignore_index, const nvopsTensor_t* total_weight,
                                   const nvopsTensor_t* grad_input) {
  if (const nvopsStatus_t status = check_loss_arguments("nvopsNllLossBackward", x, target, weight, reduction);
      status != NVOPS_SUCCESS) {
    return status;
  }
  if (!grad_output || !total_weight || !grad_input || !floating(grad_output->dtype) || grad_input->dtype != x->dtype ||
      total_weight->dtype != x->dtype || !same_shape(*grad_input, *x)) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT,
                "nvopsNllLossBackward: a floating gradient, and total_weight and grad_input in x's dtype");
  }
  int64_t batch, classes, row_stride, class_stride;
  loss_strides(*grad_input, batch, classes, row_stride, class_stride);
  NVOPS_ENTER(stream, "nvopsNllLossBackward");
  if (const nvopsStatus_t status = nvopsFill(stream, grad_input, 0.0); status != NVOPS_SUCCESS) return status;
  NllLossBackwardBody body{};
  body.classes = classes;
  body.grad_input_row_stride = row_stride, body.grad_input_class_stride = class_stride;
  body.reduction = reduction, body.ignore_index = ignore_index;
  body.grad_output = grad_output->data, body.grad_type = grad_output->dtype;
  body.grad_stride = reduction == NVOPS_MEAN_NONE && grad_output->dim == 1 ? grad_output->stride[0] : 0;
  body.target = target->data, body.target_type = target->dtype;
  body.target_stride = target->dim == 1 ? target->stride[0] : 0;
  body.weight = present(weight) ? weight->data : nullptr, body.weight_type = present(weight) ? weight->dtype : NVOPS_INVALID;
  body.weight_stride = present(weight) ? weight->stride[0] : 0;
  body.total_weight = total_weight->data;
  body.grad_input = grad_input->data, body.grad_input_type = grad_input->dtype;
  return launch_each(stream, batch, body, "nvopsNllLossBackward");
}

}  // extern "C"
