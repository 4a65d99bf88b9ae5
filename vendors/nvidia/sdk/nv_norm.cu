// Layer norm forward and backward: a block per row; the weight and bias gradients
// a column tile per block. GPU-only kernels (nv_ops_test), argument checks anywhere.
#include "nv_element_bodies.cuh"

namespace nvops {
namespace {

constexpr int kLayerNormThreads = 256;

// A weight or bias, absent (data null), contiguous, or of any strides: element j of
// the normalized shape's row-major order.
struct Affine {
  const void* data;
  nvopsDtype_t type;
  bool contiguous;
  Walk<1> walk;

  __device__ float at(int64_t j, float absent) const {
    if (!data) return absent;
    if (contiguous) return load_float(data, j, type);
    int64_t off[1];
    walk.offsets(j, off);
    return load_float(data, off[0], type);
  }
};

Affine affine_of(const nvopsTensor_t* t) {
  Affine a{};
  if (!present(t) || !t->data) return a;
  a.data = t->data, a.type = t->dtype, a.contiguous = row_major(*t), a.walk = walk_over(*t);
  return a;
}

// weight and bias are read in their own dtype (float32 beside a bfloat16 x under autocast).
template <class T>
__global__ void layer_norm_kernel(int64_t row_size, float eps, T* out, const T* x, Affine weight, Affine bias,
                                  void* mean_out, void* rstd_out, nvopsDtype_t stat_type) {
  __shared__ float shared[kLayerNormThreads];
  const int64_t row = blockIdx.x;
  const T* in = x + row * row_size;
  float partial = 0.f;
  for (int64_t j = threadIdx.x; j < row_size; j += blockDim.x) partial += to_float(in[j]);
  const float mean = block_sum(partial, shared) / static_cast<float>(row_size);
  partial = 0.f;
  for (int64_t j = threadIdx.x; j < row_size; j += blockDim.x) {
    const float d = to_float(in[j]) - mean;
    partial += d * d;
  }
  const float rstd = rsqrtf(block_sum(partial, shared) / static_cast<float>(row_size) + eps);
  for (int64_t j = threadIdx.x; j < row_size; j += blockDim.x) {
    const float y = (to_float(in[j]) - mean) * rstd * weight.at(j, 1.f) + bias.at(j, 0.f);
    out[row * row_size + j] = from_float<T>(y);
  }
  if (threadIdx.x == 0) {
    if (mean_out) store_float(mean_out, row, stat_type, mean);
    if (rstd_out) store_float(rstd_out, row, stat_type, rstd);
  }
}

// grad_x of a row, in ATen's form: a * dy * w + b * x + c with
// a = rstd, b = (db * mean - ds) * rstd^3 / N, c = -b * mean - db * rstd / N,
// ds = sum(dy * w * x), db = sum(dy * w).
template <class T>
__global__ void layer_norm_grad_x_kernel(int64_t row_size, const T* grad, const T* x, const void* mean,
                                         const void* rstd, nvopsDtype_t stat_type, Affine weight, T* grad_x) {
  __shared__ float shared[kLayerNormThreads];
  const int64_t row = blockIdx.x;
  const T* dy = grad + row * row_size;
  const T* in = x + row * row_size;
  float ds_partial = 0.f, db_partial = 0.f;
  for (int64_t j = threadIdx.x; j < row_size; j += blockDim.x) {
    const float dyw = to_float(dy[j]) * weight.at(j, 1.f);
    ds_partial += dyw * to_float(in[j]);
    db_partial += dyw;
  }
  const float ds = block_sum(ds_partial, shared), db = block_sum(db_partial, shared);
  const float mu = load_float(mean, row, stat_type), a = load_float(rstd, row, stat_type);
  const float scale = 1.f / static_cast<float>(row_size);
  const float b = (db * mu - ds) * a * a * a * scale;
  const float c = -b * mu - db * a * scale;
  for (int64_t j = threadIdx.x; j < row_size; j += blockDim.x) {
    grad_x[row * row_size + j] = from_float<T>(a * to_float(dy[j]) * weight.at(j, 1.f) + b * to_float(in[j]) + c);
  }
}

constexpr int kColumnTile = 32, kRowLanes = 8;

// grad_weight[j] = sum over rows of dy * (x - mean) * rstd; grad_bias[j] = sum of dy.
// A block takes 32 columns: its 8 row lanes read 32 consecutive elements of a row
// at a time (coalesced), then add their partial sums in shared memory.
template <class T>
__global__ void layer_norm_grad_affine_kernel(int64_t rows, int64_t row_size, const T* grad, const T* x,
                                              const void* mean, const void* rstd, nvopsDtype_t stat_type,
                                              void* grad_weight, nvopsDtype_t weight_type, void* grad_bias,
                                              nvopsDtype_t bias_type) {
  __shared__ float weight_sums[kRowLanes][kColumnTile];
  __shared__ float bias_sums[kRowLanes][kColumnTile];
  const int64_t column = blockIdx.x * static_cast<int64_t>(kColumnTile) + threadIdx.x;
  float dw = 0.f, db = 0.f;
  if (column < row_size) {
    for (int64_t row = threadIdx.y; row < rows; row += kRowLanes) {
      const float dy = to_float(grad[row * row_size + column]);
      const float xhat = (to_float(x[row * row_size + column]) - load_float(mean, row, stat_type)) *
                         load_float(rstd, row, stat_type);
      dw += dy * xhat;
      db += dy;
    }
  }
  weight_sums[threadIdx.y][threadIdx.x] = dw;
  bias_sums[threadIdx.y][threadIdx.x] = db;
  __syncthreads();
  if (threadIdx.y != 0 || column >= row_size) return;
  for (int lane = 1; lane < kRowLanes; ++lane) {
    dw += weight_sums[lane][threadIdx.x];
    db += bias_sums[lane][threadIdx.x];
  }
  if (grad_weight) store_float(grad_weight, column, weight_type, dw);
  if (grad_bias) store_float(grad_bias, column, bias_type, db);
}

// Weight and bias: absent, or floating of any strides.
bool affine_input_ok(const nvopsTensor_t* t) { return !present(t) || !t->data || floating(t->dtype); }
// Their gradients: absent, or floating and contiguous (written as such).
bool affine_output_ok(const nvopsTensor_t* t) { return !present(t) || !t->data || (floating(t->dtype) && row_major(*t)); }

}  // namespace
}  // namespace nvops

using namespace nvops;

extern "C" {

nvopsStatus_t nvopsLayerNorm(cudaStream_t stream, const nvopsTensor_t* x, int32_t normalized_dims,
                             const nvopsTensor_t* weight, const nvopsTensor_t* bias, double eps,
                             const nvopsTensor_t* out, const nvopsTensor_t* mean, const nvopsTensor_t* rstd) {
  if (!x || !out || x->dtype != out->dtype || !row_major(*x) || !row_major(*out) || normalized_dims > x->dim) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsLayerNorm: input and result must be contiguous and alike");
  }
  if (!affine_input_ok(weight) || !affine_input_ok(bias)) {
    return fail(NVOPS_ERROR_NOT_SUPPORTED, "nvopsLayerNorm: weight and bias must be floating");
  }
  int64_t row_size = 1;
  for (int d = x->dim - normalized_dims; d < x->dim; ++d) row_size *= x->shape[d];
  const int64_t rows = row_size == 0 ? 0 : numel(*x) / row_size;
  if (rows == 0) return NVOPS_SUCCESS;
  NVOPS_ENTER(stream, "nvopsLayerNorm");
  const nvopsDtype_t stat_type = mean && mean->data ? mean->dtype : NVOPS_F32;
  NVOPS_DISPATCH_FLOATING(x->dtype, layer_norm_kernel<scalar_t><<<static_cast<unsigned>(rows), kLayerNormThreads, 0, stream>>>(
      row_size, static_cast<float>(eps), static_cast<scalar_t*>(out->data), static_cast<const scalar_t*>(x->data),
      affine_of(weight), affine_of(bias), mean ? mean->data : nullptr, rstd ? rstd->data : nullptr, stat_type));
  return check_launch("nvopsLayerNorm");
}

nvopsStatus_t nvopsLayerNormBackward(cudaStream_t stream, const nvopsTensor_t* grad, const nvopsTensor_t* x,
                                     int32_t normalized_dims, const nvopsTensor_t* mean, const nvopsTensor_t* rstd,
                                     const nvopsTensor_t* weight, const nvopsTensor_t* grad_x,
                                     const nvopsTensor_t* grad_weight, const nvopsTensor_t* grad_bias) {
  if (!grad || !x || !mean || !rstd || grad->dtype != x->dtype || !same_shape(*grad, *x) || !row_major(*grad) ||
      !row_major(*x) || normalized_dims > x->dim || !floating(x->dtype) || !floating(mean->dtype) ||
      rstd->dtype != mean->dtype || !row_major(*mean) || !row_major(*rstd)) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT,
                "nvopsLayerNormBackward: contiguous gradient and input alike, contiguous floating mean and rstd");
  }
  if (present(grad_x) && grad_x->data && (grad_x->dtype != x->dtype || !same_shape(*grad_x, *x) || !row_major(*grad_x))) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsLayerNormBackward: grad_x must be contiguous and like x");
  }
  if (!affine_input_ok(weight) || !affine_output_ok(grad_weight) || !affine_output_ok(grad_bias)) {
    return fail(NVOPS_ERROR_NOT_SUPPORTED,
                "nvopsLayerNormBackward: a floating weight, and contiguous floating affine gradients");
  }
  int64_t row_size = 1;
  for (int d = x->dim - normalized_dims; d < x->dim; ++d) row_size *= x->shape[d];
  const int64_t rows = row_size == 0 ? 0 : numel(*x) / row_size;
  const bool wants_weight = present(grad_weight) && grad_weight->data, wants_bias = present(grad_bias) && grad_bias->data;
  NVOPS_ENTER(stream, "nvopsLayerNormBackward");
  if (rows == 0) {  // no rows: the affine gradients are sums of nothing
    if (wants_weight) if (const nvopsStatus_t s = nvopsFill(stream, grad_weight, 0.0); s != NVOPS_SUCCESS) return s;
    if (wants_bias) if (const nvopsStatus_t s = nvopsFill(stream, grad_bias, 0.0); s != NVOPS_SUCCESS) return s;
    return NVOPS_SUCCESS;
  }
  if (present(grad_x) && grad_x->data) {
    NVOPS_DISPATCH_FLOATING(x->dtype, layer_norm_grad_x_kernel<scalar_t><<<static_cast<unsigned>(rows), kLayerNormThreads, 0, stream>>>(
        row_size, static_cast<const scalar_t*>(grad->data), static_cast<const scalar_t*>(x->data), mean->data, rstd->data,
        mean->dtype, affine_of(weight), static_cast<scalar_t*>(grad_x->data)));
    if (const nvopsStatus_t s = check_launch("nvopsLayerNormBackward"); s != NVOPS_SUCCESS) return s;
  }
  if (wants_weight || wants_bias) {
    const dim3 threads(kColumnTile, kRowLanes);
    const unsigned blocks = static_cast<unsigned>((row_size + kColumnTile - 1) / kColumnTile);
    NVOPS_DISPATCH_FLOATING(x->dtype, layer_norm_grad_affine_kernel<scalar_t><<<blocks, threads, 0, stream>>>(
        rows, row_size, static_cast<const scalar_t*>(grad->data), static_cast<const scalar_t*>(x->data), mean->data,
        rstd->data, mean->dtype, wants_weight ? grad_weight->data : nullptr,
        wants_weight ? grad_weight->dtype : NVOPS_INVALID, wants_bias ? grad_bias->data : nullptr,
        wants_bias ? grad_bias->dtype : NVOPS_INVALID));
    return check_launch("nvopsLayerNormBackward");
  }
  return NVOPS_SUCCESS;
}

}  // extern "C"
