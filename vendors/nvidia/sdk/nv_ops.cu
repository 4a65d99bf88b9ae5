// CUDA kernels and cuBLAS calls behind nv_ops.h. Kernels index strided
// tensors generically (up to NVOPS_MAX_DIMS dims) and accumulate in float32;
// they favour being obviously correct over being the fastest possible.
#include "nv_ops.h"

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <string>
#include <unordered_map>

namespace {

thread_local std::string last_error_detail;

nvopsStatus_t fail(nvopsStatus_t status, std::string detail) {
  last_error_detail = std::move(detail);
  return status;
}

// Every entry point's first step: launches and cuBLAS calls go to the thread's
// current device, which must be the stream's; and a pending error of earlier work
// (cudaGetLastError's, not a sticky context error) must not be blamed on this call.
nvopsStatus_t enter(cudaStream_t stream, const char* op) {
  cudaGetLastError();
  int stream_device = 0, current = 0;
  cudaError_t error = cudaStreamGetDevice(stream, &stream_device);
  if (error == cudaSuccess) error = cudaGetDevice(&current);
  if (error == cudaSuccess && current != stream_device) error = cudaSetDevice(stream_device);
  if (error != cudaSuccess) {
    cudaGetLastError();
    return fail(NVOPS_ERROR_CUDA, std::string(op) + ": selecting the stream's device: " + cudaGetErrorString(error));
  }
  return NVOPS_SUCCESS;
}

#define NVOPS_ENTER(STREAM, OP)                                   \
  if (const nvopsStatus_t entered = enter(STREAM, OP); entered != NVOPS_SUCCESS) return entered

nvopsStatus_t check_launch(const char* op) {
  const cudaError_t error = cudaGetLastError();
  if (error != cudaSuccess) return fail(NVOPS_ERROR_CUDA, std::string(op) + ": " + cudaGetErrorString(error));
  return NVOPS_SUCCESS;
}

// ---- element access -------------------------------------------------------

template <class T> __device__ __forceinline__ float to_float(T v) { return static_cast<float>(v); }
template <> __device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
template <class T> __device__ __forceinline__ T from_float(float v) { return static_cast<T>(v); }
template <> __device__ __forceinline__ __half from_float(float v) { return __float2half(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_float(float v) { return __float2bfloat16(v); }

__device__ double load_any(const void* base, int64_t offset, nvopsDtype_t dtype) {
  switch (dtype) {
    case NVOPS_F64: return static_cast<const double*>(base)[offset];
    case NVOPS_I8: return static_cast<const int8_t*>(base)[offset];
    case NVOPS_I16: return static_cast<const int16_t*>(base)[offset];
    case NVOPS_U8: return static_cast<const uint8_t*>(base)[offset];
    case NVOPS_C64: return static_cast<const float*>(base)[2 * offset];  // the real part
    case NVOPS_C128: return static_cast<const double*>(base)[2 * offset];
    case NVOPS_F32: return static_cast<const float*>(base)[offset];
    case NVOPS_F16: return __half2float(static_cast<const __half*>(base)[offset]);
    case NVOPS_BF16: return __bfloat162float(static_cast<const __nv_bfloat16*>(base)[offset]);
    case NVOPS_I32: return static_cast<const int32_t*>(base)[offset];
    case NVOPS_I64: return static_cast<double>(static_cast<const int64_t*>(base)[offset]);
    case NVOPS_BOOL: return static_cast<const bool*>(base)[offset] ? 1.0 : 0.0;
    default: return 0.0;
  }
}

__device__ void store_any(void* base, int64_t offset, nvopsDtype_t dtype, double value) {
  switch (dtype) {
    case NVOPS_F64: static_cast<double*>(base)[offset] = value; break;
    case NVOPS_I8: static_cast<int8_t*>(base)[offset] = static_cast<int8_t>(value); break;
    case NVOPS_I16: static_cast<int16_t*>(base)[offset] = static_cast<int16_t>(value); break;
    case NVOPS_U8: static_cast<uint8_t*>(base)[offset] = static_cast<uint8_t>(value); break;
    case NVOPS_C64:  // a real value: imaginary part 0
      static_cast<float*>(base)[2 * offset] = static_cast<float>(value);
      static_cast<float*>(base)[2 * offset + 1] = 0.f;
      break;
    case NVOPS_C128:
      static_cast<double*>(base)[2 * offset] = value;
      static_cast<double*>(base)[2 * offset + 1] = 0.0;
      break;
    case NVOPS_F32: static_cast<float*>(base)[offset] = static_cast<float>(value); break;
    case NVOPS_F16: static_cast<__half*>(base)[offset] = __float2half(static_cast<float>(value)); break;
    case NVOPS_BF16: static_cast<__nv_bfloat16*>(base)[offset] = __float2bfloat16(static_cast<float>(value)); break;
    case NVOPS_I32: static_cast<int32_t*>(base)[offset] = static_cast<int32_t>(value); break;
    case NVOPS_I64: static_cast<int64_t*>(base)[offset] = static_cast<int64_t>(value); break;
    case NVOPS_BOOL: static_cast<bool*>(base)[offset] = value != 0.0; break;
    default: break;
  }
}

__host__ __device__ size_t element_size(nvopsDtype_t dtype) {
  switch (dtype) {
    case NVOPS_F32: case NVOPS_I32: return 4;
    case NVOPS_F16: case NVOPS_BF16: case NVOPS_I16: return 2;
    case NVOPS_I64: case NVOPS_F64: case NVOPS_C64: return 8;
    case NVOPS_C128: return 16;
    case NVOPS_BOOL: case NVOPS_I8: case NVOPS_U8: return 1;
    default: return 0;
  }
}

__host__ __device__ bool is_complex(nvopsDtype_t dtype) { return dtype == NVOPS_C64 || dtype == NVOPS_C128; }

// One element moved bit for bit (same dtype on both sides).
__device__ void copy_element(void* dst, int64_t dst_offset, const void* src, int64_t src_offset, size_t bytes) {
  switch (bytes) {
    case 1: static_cast<uint8_t*>(dst)[dst_offset] = static_cast<const uint8_t*>(src)[src_offset]; break;
    case 2: static_cast<uint16_t*>(dst)[dst_offset] = static_cast<const uint16_t*>(src)[src_offset]; break;
    case 4: static_cast<uint32_t*>(dst)[dst_offset] = static_cast<const uint32_t*>(src)[src_offset]; break;
    case 8: static_cast<uint64_t*>(dst)[dst_offset] = static_cast<const uint64_t*>(src)[src_offset]; break;
    case 16:
      static_cast<double2*>(dst)[dst_offset] = static_cast<const double2*>(src)[src_offset];
      break;
  }
}

// complex64 <-> complex128, keeping both parts.
__device__ void copy_complex(void* dst, int64_t dst_offset, nvopsDtype_t dst_type, const void* src,
                             int64_t src_offset, nvopsDtype_t src_type) {
  const double re = src_type == NVOPS_C64 ? static_cast<const float*>(src)[2 * src_offset]
                                          : static_cast<const double*>(src)[2 * src_offset];
  const double im = src_type == NVOPS_C64 ? static_cast<const float*>(src)[2 * src_offset + 1]
                                          : static_cast<const double*>(src)[2 * src_offset + 1];
  if (dst_type == NVOPS_C64) {
    static_cast<float*>(dst)[2 * dst_offset] = static_cast<float>(re);
    static_cast<float*>(dst)[2 * dst_offset + 1] = static_cast<float>(im);
  } else {
    static_cast<double*>(dst)[2 * dst_offset] = re;
    static_cast<double*>(dst)[2 * dst_offset + 1] = im;
  }
}

// A walk over `shape` with one stride vector per operand (0 where broadcast).
template <int Operands>
struct Walk {
  int32_t dim;
  int64_t shape[NVOPS_MAX_DIMS];
  int64_t stride[Operands][NVOPS_MAX_DIMS];

  __device__ void offsets(int64_t linear, int64_t* out) const {
    for (int o = 0; o < Operands; ++o) out[o] = 0;
    for (int d = dim - 1; d >= 0; --d) {
      const int64_t coord = linear % shape[d];
      linear /= shape[d];
      for (int o = 0; o < Operands; ++o) out[o] += coord * stride[o][d];
    }
  }
};

int64_t numel(const nvopsTensor_t& t) {
  int64_t n = 1;
  for (int i = 0; i < t.dim; ++i) n *= t.shape[i];
  return n;
}

// Strides of `t` seen with `out`'s shape, right-aligned, 0 where t broadcasts.
bool broadcast_strides(const nvopsTensor_t& t, const nvopsTensor_t& out, int64_t* strides) {
  if (t.dim > out.dim) return false;
  for (int d = 0; d < out.dim; ++d) {
    const int td = d - (out.dim - t.dim);
    if (td < 0) {
      strides[d] = 0;
    } else if (t.shape[td] == out.shape[d]) {
      strides[d] = t.stride[td];
    } else if (t.shape[td] == 1) {
      strides[d] = 0;
    } else {
      return false;
    }
  }
  return true;
}

bool floating(nvopsDtype_t t) { return t == NVOPS_F32 || t == NVOPS_F16 || t == NVOPS_BF16; }

unsigned blocks_for(int64_t n, int threads = 256) {
  return static_cast<unsigned>((n + threads - 1) / threads);
}

#define NVOPS_DISPATCH_FLOATING(DTYPE, ...)                 \
  switch (DTYPE) {                                          \
    case NVOPS_F32: { using scalar_t = float; __VA_ARGS__; break; }           \
    case NVOPS_F16: { using scalar_t = __half; __VA_ARGS__; break; }          \
    case NVOPS_BF16: { using scalar_t = __nv_bfloat16; __VA_ARGS__; break; }  \
    default: return fail(NVOPS_ERROR_NOT_SUPPORTED, "not a floating dtype"); \
  }

// ---- elementwise ----------------------------------------------------------

template <class T>
__global__ void binary_kernel(Walk<3> walk, int64_t n, nvopsBinaryOp_t op, float alpha, T* out, const T* a,
                              const T* b) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  int64_t off[3];
  walk.offsets(i, off);
  const float x = to_float(a[off[1]]), y = alpha * to_float(b[off[2]]);
  float r = 0.f;
  switch (op) {
    case NVOPS_ADD: r = x + y; break;
    case NVOPS_SUB: r = x - y; break;
    case NVOPS_MUL: r = x * y; break;
    case NVOPS_DIV: r = x / y; break;
  }
  out[off[0]] = from_float<T>(r);
}

template <class T>
__global__ void unary_kernel(Walk<2> walk, int64_t n, nvopsUnaryOp_t op, T* out, const T* x) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  int64_t off[2];
  walk.offsets(i, off);
  const float v = to_float(x[off[1]]);
  float r = 0.f;
  switch (op) {
    case NVOPS_RELU: r = v < 0.f ? 0.f : v; break;  // NaN stays NaN, as on CPU
    case NVOPS_GELU: r = 0.5f * v * (1.f + erff(v * 0.70710678118654752f)); break;
    case NVOPS_GELU_TANH: r = 0.5f * v * (1.f + tanhf(0.79788456080286536f * (v + 0.044715f * v * v * v))); break;
    case NVOPS_SILU: r = v / (1.f + expf(-v)); break;
    case NVOPS_EXP: r = expf(v); break;
    case NVOPS_TANH: r = tanhf(v); break;
    case NVOPS_SIGMOID: r = 1.f / (1.f + expf(-v)); break;
    case NVOPS_NEG: r = -v; break;
  }
  out[off[0]] = from_float<T>(r);
}

__global__ void copy_kernel(Walk<2> walk, int64_t n, void* dst, nvopsDtype_t dst_type, const void* src,
                            nvopsDtype_t src_type) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  int64_t off[2];
  walk.offsets(i, off);
  if (dst_type == src_type) {  // exact for every dtype (int64 beyond 2^53, complex)
    copy_element(dst, off[0], src, off[1], element_size(dst_type));
  } else if (is_complex(dst_type) && is_complex(src_type)) {
    copy_complex(dst, off[0], dst_type, src, off[1], src_type);
  } else {  // through double: a complex source gives its real part, as PyTorch's cast does
    store_any(dst, off[0], dst_type, load_any(src, off[1], src_type));
  }
}

__global__ void fill_kernel(Walk<1> walk, int64_t n, void* dst, nvopsDtype_t type, double value) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  int64_t off[1];
  walk.offsets(i, off);
  store_any(dst, off[0], type, value);
}

// ---- reductions and softmax -----------------------------------------------

// Output element i: kept coords → (input base, output offset); then a walk
// over the reduced dims from the input base.
struct Reduction {
  Walk<2> kept;     // strides: input, output
  Walk<1> reduced;  // strides: input
  int64_t reduced_count;
};

// The sum of a block's values (blockDim.x a power of two, `shared` one float per thread): a tree.
__device__ float block_sum(float value, float* shared) {
  shared[threadIdx.x] = value;
  __syncthreads();
  for (int step = blockDim.x / 2; step > 0; step /= 2) {
    if (threadIdx.x < step) shared[threadIdx.x] += shared[threadIdx.x + step];
    __syncthreads();
  }
  const float total = shared[0];
  __syncthreads();
  return total;
}

constexpr int kReduceThreads = 256;

// One block per output element: each thread adds a strided share of the reduced
// elements, then the block adds the shares as a tree. (One thread adding them all
// in order loses precision: 2^25 float32 ones summed to 2^24.)
__global__ void reduce_sum_kernel(Reduction r, bool mean, void* out, nvopsDtype_t out_type, const void* x,
                                  nvopsDtype_t x_type) {
  __shared__ float shared[kReduceThreads];
  int64_t base[2];
  r.kept.offsets(blockIdx.x, base);
  float partial = 0.f;
  for (int64_t j = threadIdx.x; j < r.reduced_count; j += blockDim.x) {
    int64_t off[1];
    r.reduced.offsets(j, off);
    partial += static_cast<float>(load_any(x, base[0] + off[0], x_type));
  }
  const float total = block_sum(partial, shared);
  if (threadIdx.x == 0) store_any(out, base[1], out_type, mean ? total / static_cast<float>(r.reduced_count) : total);
}

// One thread per row: every coordinate but the softmax dim.
struct SoftmaxRows {
  Walk<2> rows;  // strides: input, output
  int64_t count;  // the softmax dim's size
  int64_t in_step, out_step;  // its strides
};

template <class T>
__global__ void softmax_kernel(SoftmaxRows r, int64_t rows, bool log, T* out, const T* x) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= rows) return;
  int64_t base[2];
  r.rows.offsets(i, base);
  const int64_t in_step = r.in_step, out_step = r.out_step;
  float max_value = -INFINITY;
  for (int64_t j = 0; j < r.count; ++j) max_value = fmaxf(max_value, to_float(x[base[0] + j * in_step]));
  float sum = 0.f;
  for (int64_t j = 0; j < r.count; ++j) sum += expf(to_float(x[base[0] + j * in_step]) - max_value);
  const float log_sum = logf(sum);
  for (int64_t j = 0; j < r.count; ++j) {
    const float shifted = to_float(x[base[0] + j * in_step]) - max_value;
    out[base[1] + j * out_step] = from_float<T>(log ? shifted - log_sum : expf(shifted) / sum);
  }
}

// ---- layer norm -----------------------------------------------------------

constexpr int kLayerNormThreads = 256;

// weight and bias are read in their own dtype (float32 beside a bfloat16 x under autocast).
template <class T>
__global__ void layer_norm_kernel(int64_t row_size, float eps, T* out, const T* x, const void* weight,
                                  nvopsDtype_t weight_type, const void* bias, nvopsDtype_t bias_type,
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
    float y = (to_float(in[j]) - mean) * rstd;
    if (weight) y *= static_cast<float>(load_any(weight, j, weight_type));
    if (bias) y += static_cast<float>(load_any(bias, j, bias_type));
    out[row * row_size + j] = from_float<T>(y);
  }
  if (threadIdx.x == 0) {
    if (mean_out) store_any(mean_out, row, stat_type, mean);
    if (rstd_out) store_any(rstd_out, row, stat_type, rstd);
  }
}

// ---- cuBLAS ---------------------------------------------------------------

cublasHandle_t cublas_handle(int device) {
  // One handle per device and thread, made on first use (handles are not thread-safe).
  thread_local std::unordered_map<int, cublasHandle_t> handles;
  auto it = handles.find(device);
  if (it != handles.end()) return it->second;
  cublasHandle_t handle = nullptr;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return nullptr;
  handles.emplace(device, handle);
  return handle;
}

// cuBLAS's workspace for this thread's handle on `stream`: one per (handle, stream)
// pair, since a handle's default workspace would be shared by GEMMs that two
// streams run at once. 32 MiB, what cuBLAS asks for on Hopper. Kept for the process.
constexpr size_t kCublasWorkspaceBytes = size_t{32} << 20;

void* cublas_workspace(int device, cudaStream_t stream) {
  thread_local std::unordered_map<cudaStream_t, void*> workspaces[64];
  auto& of_device = workspaces[device % 64];
  auto it = of_device.find(stream);
  if (it != of_device.end()) return it->second;
  void* workspace = nullptr;
  if (cudaMalloc(&workspace, kCublasWorkspaceBytes) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  of_device.emplace(stream, workspace);
  return workspace;
}

template <class T>
__global__ void scale_kernel(int64_t n, float factor, T* data) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) data[i] = from_float<T>(factor * to_float(data[i]));
}

cudaDataType_t cuda_type(nvopsDtype_t t) {
  return t == NVOPS_F16 ? CUDA_R_16F : t == NVOPS_BF16 ? CUDA_R_16BF : CUDA_R_32F;
}

bool row_major(const nvopsTensor_t& t) {
  int64_t expected = 1;
  for (int d = t.dim - 1; d >= 0; --d) {
    if (t.shape[d] != 1 && t.stride[d] != expected) return false;
    expected *= t.shape[d];
  }
  return true;
}

}  // namespace

extern "C" {

const char* nvopsGetErrorString(nvopsStatus_t status) {
  switch (status) {
    case NVOPS_SUCCESS: return "NVOPS_SUCCESS";
    case NVOPS_ERROR_INVALID_ARGUMENT: return "NVOPS_ERROR_INVALID_ARGUMENT: invalid argument";
    case NVOPS_ERROR_NOT_SUPPORTED: return "NVOPS_ERROR_NOT_SUPPORTED: not supported by the op library";
    case NVOPS_ERROR_CUDA: return "NVOPS_ERROR_CUDA: a CUDA runtime call failed";
    case NVOPS_ERROR_CUBLAS: return "NVOPS_ERROR_CUBLAS: a cuBLAS call failed";
  }
  return "NVOPS_ERROR_UNKNOWN";
}

const char* nvopsGetLastErrorDetail(void) { return last_error_detail.c_str(); }

nvopsStatus_t nvopsBinary(cudaStream_t stream, nvopsBinaryOp_t op, const nvopsTensor_t* a, const nvopsTensor_t* b,
                          double alpha, const nvopsTensor_t* out) {
  if (!a || !b || !out || a->dtype != out->dtype || b->dtype != out->dtype || !floating(out->dtype)) {
    return fail(NVOPS_ERROR_NOT_SUPPORTED, "nvopsBinary: operands and result must share one floating dtype");
  }
  Walk<3> walk{out->dim, {}, {}};
  for (int d = 0; d < out->dim; ++d) walk.shape[d] = out->shape[d], walk.stride[0][d] = out->stride[d];
  if (!broadcast_strides(*a, *out, walk.stride[1]) || !broadcast_strides(*b, *out, walk.stride[2])) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsBinary: operands do not broadcast to the result's shape");
  }
  const int64_t n = numel(*out);
  if (n == 0) return NVOPS_SUCCESS;
  NVOPS_ENTER(stream, "nvopsBinary");
  NVOPS_DISPATCH_FLOATING(out->dtype, binary_kernel<scalar_t><<<blocks_for(n), 256, 0, stream>>>(
      walk, n, op, static_cast<float>(alpha), static_cast<scalar_t*>(out->data),
      static_cast<const scalar_t*>(a->data), static_cast<const scalar_t*>(b->data)));
  return check_launch("nvopsBinary");
}

nvopsStatus_t nvopsUnary(cudaStream_t stream, nvopsUnaryOp_t op, const nvopsTensor_t* x, const nvopsTensor_t* out) {
  if (!x || !out || x->dtype != out->dtype || x->dim != out->dim) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsUnary: input and result must match in dtype and shape");
  }
  Walk<2> walk{out->dim, {}, {}};
  for (int d = 0; d < out->dim; ++d) {
    walk.shape[d] = out->shape[d], walk.stride[0][d] = out->stride[d], walk.stride[1][d] = x->stride[d];
  }
  const int64_t n = numel(*out);
  if (n == 0) return NVOPS_SUCCESS;
  NVOPS_ENTER(stream, "nvopsUnary");
  NVOPS_DISPATCH_FLOATING(out->dtype, unary_kernel<scalar_t><<<blocks_for(n), 256, 0, stream>>>(
      walk, n, op, static_cast<scalar_t*>(out->data), static_cast<const scalar_t*>(x->data)));
  return check_launch("nvopsUnary");
}

nvopsStatus_t nvopsFill(cudaStream_t stream, const nvopsTensor_t* x, double value) {
  if (!x || element_size(x->dtype) == 0) return fail(NVOPS_ERROR_NOT_SUPPORTED, "nvopsFill: unsupported dtype");
  Walk<1> walk{x->dim, {}, {}};
  for (int d = 0; d < x->dim; ++d) walk.shape[d] = x->shape[d], walk.stride[0][d] = x->stride[d];
  const int64_t n = numel(*x);
  if (n == 0) return NVOPS_SUCCESS;
  NVOPS_ENTER(stream, "nvopsFill");
  fill_kernel<<<blocks_for(n), 256, 0, stream>>>(walk, n, x->data, x->dtype, value);
  return check_launch("nvopsFill");
}

nvopsStatus_t nvopsCopy(cudaStream_t stream, const nvopsTensor_t* dst, const nvopsTensor_t* src) {
  if (!dst || !src || element_size(dst->dtype) == 0 || element_size(src->dtype) == 0) {
    return fail(NVOPS_ERROR_NOT_SUPPORTED, "nvopsCopy: unsupported dtype");
  }
  Walk<2> walk{dst->dim, {}, {}};
  for (int d = 0; d < dst->dim; ++d) walk.shape[d] = dst->shape[d], walk.stride[0][d] = dst->stride[d];
  if (!broadcast_strides(*src, *dst, walk.stride[1])) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsCopy: source does not broadcast to the destination");
  }
  const int64_t n = numel(*dst);
  if (n == 0) return NVOPS_SUCCESS;
  NVOPS_ENTER(stream, "nvopsCopy");
  copy_kernel<<<blocks_for(n), 256, 0, stream>>>(walk, n, dst->data, dst->dtype, src->data, src->dtype);
  return check_launch("nvopsCopy");
}

nvopsStatus_t nvopsReduceSum(cudaStream_t stream, const nvopsTensor_t* x, nvopsDims_t dims, bool mean,
                             const nvopsTensor_t* out) {
  if (!x || !out || !floating(x->dtype) || element_size(out->dtype) == 0) {
    return fail(NVOPS_ERROR_NOT_SUPPORTED, "nvopsReduceSum: unsupported dtype");
  }
  bool reduce[NVOPS_MAX_DIMS] = {};
  for (int i = 0; i < dims.count; ++i) {
    // A 0-dim tensor takes dim 0 or -1, as PyTorch's reductions do: nothing to reduce.
    if (x->dim == 0 && (dims.dims[i] == 0 || dims.dims[i] == -1)) continue;
    const int64_t d = dims.dims[i] < 0 ? dims.dims[i] + x->dim : dims.dims[i];
    if (d < 0 || d >= x->dim) return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsReduceSum: dim out of range");
    reduce[d] = true;
  }
  if (dims.count == 0) for (int d = 0; d < x->dim; ++d) reduce[d] = true;
  const bool keepdim = out->dim == x->dim;
  Reduction r{};
  r.reduced_count = 1;
  int out_dim = 0;
  for (int d = 0; d < x->dim; ++d) {
    if (reduce[d]) {
      r.reduced.shape[r.reduced.dim] = x->shape[d];
      r.reduced.stride[0][r.reduced.dim++] = x->stride[d];
      r.reduced_count *= x->shape[d];
      if (keepdim) ++out_dim;
    } else {
      if (out_dim >= out->dim) return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsReduceSum: result rank mismatch");
      r.kept.shape[r.kept.dim] = x->shape[d];
      r.kept.stride[0][r.kept.dim] = x->stride[d];
      r.kept.stride[1][r.kept.dim++] = out->stride[out_dim++];
    }
  }
  const int64_t outputs = numel(*out);
  if (outputs == 0) return NVOPS_SUCCESS;
  if (outputs > 0x7fffffff) return fail(NVOPS_ERROR_NOT_SUPPORTED, "nvopsReduceSum: more than 2^31-1 outputs");
  NVOPS_ENTER(stream, "nvopsReduceSum");
  int threads = 32;  // a power of two (block_sum's tree), no more than there are elements to add
  while (threads < kReduceThreads && threads < r.reduced_count) threads *= 2;
  reduce_sum_kernel<<<static_cast<unsigned>(outputs), threads, 0, stream>>>(r, mean, out->data, out->dtype, x->data,
                                                                              x->dtype);
  return check_launch("nvopsReduceSum");
}

nvopsStatus_t nvopsSoftmax(cudaStream_t stream, const nvopsTensor_t* x, int64_t dim, bool log, const nvopsTensor_t* out) {
  if (!x || !out || x->dtype != out->dtype || x->dim != out->dim) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsSoftmax: input and result must match in dtype and shape");
  }
  NVOPS_ENTER(stream, "nvopsSoftmax");
  SoftmaxRows r{};
  if (x->dim == 0) {  // one element along dim 0 or -1: softmax 1, log-softmax 0
    if (dim != 0 && dim != -1) return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsSoftmax: dim out of range");
    r.count = 1;
    NVOPS_DISPATCH_FLOATING(x->dtype, softmax_kernel<scalar_t><<<1, 1, 0, stream>>>(
        r, 1, log, static_cast<scalar_t*>(out->data), static_cast<const scalar_t*>(x->data)));
    return check_launch("nvopsSoftmax");
  }
  if (dim < 0) dim += x->dim;
  if (dim < 0 || dim >= x->dim) return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsSoftmax: dim out of range");
  for (int d = 0; d < x->dim; ++d) {
    if (d == dim) continue;
    r.rows.shape[r.rows.dim] = x->shape[d];
    r.rows.stride[0][r.rows.dim] = x->stride[d];
    r.rows.stride[1][r.rows.dim++] = out->stride[d];
  }
  r.count = x->shape[dim];
  r.in_step = x->stride[dim];
  r.out_step = out->stride[dim];
  int64_t rows = 1;
  for (int d = 0; d < r.rows.dim; ++d) rows *= r.rows.shape[d];
  if (rows == 0 || r.count == 0) return NVOPS_SUCCESS;
  NVOPS_DISPATCH_FLOATING(x->dtype, softmax_kernel<scalar_t><<<blocks_for(rows), 256, 0, stream>>>(
      r, rows, log, static_cast<scalar_t*>(out->data), static_cast<const scalar_t*>(x->data)));
  return check_launch("nvopsSoftmax");
}

nvopsStatus_t nvopsLayerNorm(cudaStream_t stream, const nvopsTensor_t* x, int32_t normalized_dims,
                             const nvopsTensor_t* weight, const nvopsTensor_t* bias, double eps,
                             const nvopsTensor_t* out, const nvopsTensor_t* mean, const nvopsTensor_t* rstd) {
  if (!x || !out || x->dtype != out->dtype || !row_major(*x) || !row_major(*out) || normalized_dims > x->dim) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsLayerNorm: input and result must be contiguous and alike");
  }
  for (const nvopsTensor_t* affine : {weight, bias}) {
    if (affine && affine->data && (!floating(affine->dtype) || !row_major(*affine))) {
      return fail(NVOPS_ERROR_NOT_SUPPORTED, "nvopsLayerNorm: weight and bias must be contiguous and floating");
    }
  }
  int64_t row_size = 1;
  for (int d = x->dim - normalized_dims; d < x->dim; ++d) row_size *= x->shape[d];
  const int64_t rows = row_size == 0 ? 0 : numel(*x) / row_size;
  if (rows == 0) return NVOPS_SUCCESS;
  NVOPS_ENTER(stream, "nvopsLayerNorm");
  const nvopsDtype_t stat_type = mean && mean->data ? mean->dtype : NVOPS_F32;
  NVOPS_DISPATCH_FLOATING(x->dtype, layer_norm_kernel<scalar_t><<<static_cast<unsigned>(rows), kLayerNormThreads, 0, stream>>>(
      row_size, static_cast<float>(eps), static_cast<scalar_t*>(out->data), static_cast<const scalar_t*>(x->data),
      weight ? weight->data : nullptr, weight ? weight->dtype : NVOPS_INVALID, bias ? bias->data : nullptr,
      bias ? bias->dtype : NVOPS_INVALID, mean ? mean->data : nullptr, rstd ? rstd->data : nullptr, stat_type));
  return check_launch("nvopsLayerNorm");
}

nvopsStatus_t nvopsMatmul(cudaStream_t stream, const nvopsTensor_t* a, const nvopsTensor_t* b,
                          const nvopsTensor_t* bias, double beta, double alpha, const nvopsTensor_t* out) {
  if (!a || !b || !out || a->dim != b->dim || a->dim != out->dim || (a->dim != 2 && a->dim != 3) ||
      a->dtype != b->dtype || a->dtype != out->dtype || !floating(a->dtype)) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsMatmul: 2-D or 3-D operands of one floating dtype");
  }
  if (!row_major(*a) || !row_major(*b) || !row_major(*out)) {
    return fail(NVOPS_ERROR_NOT_SUPPORTED, "nvopsMatmul: operands must be contiguous (row-major)");
  }
  const int batched = a->dim == 3;
  const int64_t batch = batched ? a->shape[0] : 1;
  const int64_t m = a->shape[batched], k = a->shape[batched + 1], n = b->shape[batched + 1];
  if (b->shape[batched] != k || out->shape[batched] != m || out->shape[batched + 1] != n) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsMatmul: shapes do not chain");
  }
  NVOPS_ENTER(stream, "nvopsMatmul");
  float beta_value = 0.f;
  if (bias && bias->data && beta != 0.0) {
    const nvopsStatus_t status = nvopsCopy(stream, out, bias);  // out = bias, broadcast
    if (status != NVOPS_SUCCESS) return status;
    beta_value = static_cast<float>(beta);
  }
  if (m == 0 || n == 0) return NVOPS_SUCCESS;
  if (k == 0) {  // an empty product (cuBLAS refuses k = 0): out = beta * bias, or zeros
    if (beta_value == 0.f) return nvopsFill(stream, out, 0.0);
    const int64_t total = numel(*out);
    NVOPS_DISPATCH_FLOATING(out->dtype, scale_kernel<scalar_t><<<blocks_for(total), 256, 0, stream>>>(
        total, beta_value, static_cast<scalar_t*>(out->data)));
    return check_launch("nvopsMatmul");
  }
  int device = 0;
  cudaGetDevice(&device);  // the stream's (NVOPS_ENTER)
  cublasHandle_t handle = cublas_handle(device);
  if (!handle) return fail(NVOPS_ERROR_CUBLAS, "nvopsMatmul: cublasCreate failed");
  void* workspace = cublas_workspace(device, stream);
  if (!workspace) return fail(NVOPS_ERROR_CUDA, "nvopsMatmul: no memory for cuBLAS's workspace");
  cublasStatus_t setup = cublasSetStream(handle, stream);
  if (setup == CUBLAS_STATUS_SUCCESS) setup = cublasSetWorkspace(handle, workspace, kCublasWorkspaceBytes);
  if (setup != CUBLAS_STATUS_SUCCESS) {
    return fail(NVOPS_ERROR_CUBLAS, std::string("nvopsMatmul: binding cuBLAS to the stream: ") +
                                        cublasGetStatusString(setup));
  }
  const float alpha_value = static_cast<float>(alpha);
  const cudaDataType_t type = cuda_type(a->dtype);
  // Row-major C = A B is column-major C^T = B^T A^T: swap the operands.
  const cublasStatus_t status = cublasGemmStridedBatchedEx(
      handle, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(m), static_cast<int>(k), &alpha_value,
      b->data, type, static_cast<int>(n), k * n, a->data, type, static_cast<int>(k), m * k, &beta_value, out->data,
      type, static_cast<int>(n), m * n, static_cast<int>(batch), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  if (status != CUBLAS_STATUS_SUCCESS) {
    return fail(NVOPS_ERROR_CUBLAS, std::string("nvopsMatmul: ") + cublasGetStatusString(status));
  }
  return NVOPS_SUCCESS;
}

}  // extern "C"
