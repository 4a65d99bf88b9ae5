// What the op library's .cu files share: error reporting, the entry step every
// call takes, element access in any dtype, strided walks and launch helpers.
// Element access and walks are __host__ __device__, so that the element bodies
// (nv_element_bodies.cuh) run on the host in the tests of a machine without a GPU.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "nv_ops.h"

namespace nvops {

// ---- errors and the entry step (host) ---------------------------------------

// The detail nvopsGetLastErrorDetail returns: set with the failing status.
nvopsStatus_t fail(nvopsStatus_t status, std::string detail);

// Every entry point's first step after its argument checks: launches and cuBLAS
// calls go to the thread's current device, which must be the stream's; and a
// pending error of earlier work (cudaGetLastError's, not a sticky context error)
// must not be blamed on this call.
nvopsStatus_t enter(cudaStream_t stream, const char* op);

// The launch's own error, named after the op.
nvopsStatus_t check_launch(const char* op);

#define NVOPS_ENTER(STREAM, OP)                                            \
  if (const nvopsStatus_t entered = ::nvops::enter(STREAM, OP); entered != NVOPS_SUCCESS) return entered

// ---- element access ---------------------------------------------------------

template <class T> __host__ __device__ __forceinline__ float to_float(T v) { return static_cast<float>(v); }
template <> __host__ __device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
template <> __host__ __device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
template <class T> __host__ __device__ __forceinline__ T from_float(float v) { return static_cast<T>(v); }
template <> __host__ __device__ __forceinline__ __half from_float(float v) { return __float2half(v); }
template <> __host__ __device__ __forceinline__ __nv_bfloat16 from_float(float v) { return __float2bfloat16(v); }

// An element of any integral dtype, exactly (int64 beyond 2^53 included).
__host__ __device__ inline int64_t load_integer(const void* base, int64_t offset, nvopsDtype_t dtype) {
  switch (dtype) {
    case NVOPS_I64: return static_cast<const int64_t*>(base)[offset];
    case NVOPS_I32: return static_cast<const int32_t*>(base)[offset];
    case NVOPS_I16: return static_cast<const int16_t*>(base)[offset];
    case NVOPS_I8: return static_cast<const int8_t*>(base)[offset];
    case NVOPS_U8: return static_cast<const uint8_t*>(base)[offset];
    case NVOPS_BOOL: return static_cast<const bool*>(base)[offset] ? 1 : 0;
    default: return 0;
  }
}

// One element of any dtype as a double (a complex one: its real part).
__host__ __device__ inline double load_any(const void* base, int64_t offset, nvopsDtype_t dtype) {
  switch (dtype) {
    case NVOPS_F64: return static_cast<const double*>(base)[offset];
    case NVOPS_C64: return static_cast<const float*>(base)[2 * offset];
    case NVOPS_C128: return static_cast<const double*>(base)[2 * offset];
    case NVOPS_F32: return static_cast<const float*>(base)[offset];
    case NVOPS_F16: return __half2float(static_cast<const __half*>(base)[offset]);
    case NVOPS_BF16: return __bfloat162float(static_cast<const __nv_bfloat16*>(base)[offset]);
    default: return static_cast<double>(load_integer(base, offset, dtype));  // integral (0 for none)
  }
}

// A floating element as a float: the computing type of every floating kernel.
__host__ __device__ __forceinline__ float load_float(const void* base, int64_t offset, nvopsDtype_t dtype) {
  switch (dtype) {
    case NVOPS_F32: return static_cast<const float*>(base)[offset];
    case NVOPS_F16: return __half2float(static_cast<const __half*>(base)[offset]);
    case NVOPS_BF16: return __bfloat162float(static_cast<const __nv_bfloat16*>(base)[offset]);
    default: return static_cast<float>(load_any(base, offset, dtype));
  }
}

// An index element (int32 or int64).
__host__ __device__ __forceinline__ int64_t load_index(const void* base, int64_t offset, nvopsDtype_t dtype) {
  return dtype == NVOPS_I32 ? static_cast<const int32_t*>(base)[offset] : static_cast<const int64_t*>(base)[offset];
}

__host__ __device__ inline void store_any(void* base, int64_t offset, nvopsDtype_t dtype, double value) {
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

__host__ __device__ __forceinline__ void store_float(void* base, int64_t offset, nvopsDtype_t dtype, float value) {
  switch (dtype) {
    case NVOPS_F32: static_cast<float*>(base)[offset] = value; break;
    case NVOPS_F16: static_cast<__half*>(base)[offset] = __float2half(value); break;
    case NVOPS_BF16: static_cast<__nv_bfloat16*>(base)[offset] = __float2bfloat16(value); break;
    default: store_any(base, offset, dtype, value); break;
  }
}

__host__ __device__ inline size_t element_size(nvopsDtype_t dtype) {
  switch (dtype) {
    case NVOPS_F32: case NVOPS_I32: return 4;
    case NVOPS_F16: case NVOPS_BF16: case NVOPS_I16: return 2;
    case NVOPS_I64: case NVOPS_F64: case NVOPS_C64: return 8;
    case NVOPS_C128: return 16;
    case NVOPS_BOOL: case NVOPS_I8: case NVOPS_U8: return 1;
    default: return 0;
  }
}

__host__ __device__ inline bool is_complex(nvopsDtype_t dtype) { return dtype == NVOPS_C64 || dtype == NVOPS_C128; }
inline bool floating(nvopsDtype_t t) { return t == NVOPS_F32 || t == NVOPS_F16 || t == NVOPS_BF16; }
inline bool index_type(nvopsDtype_t t) { return t == NVOPS_I32 || t == NVOPS_I64; }
inline bool present(const nvopsTensor_t* t) { return t != nullptr && t->dtype != NVOPS_INVALID; }

// ---- shapes and walks -------------------------------------------------------

// A walk over `shape` with one stride vector per operand (0 where broadcast):
// element `linear` of the row-major order → each operand's offset.
template <int Operands>
struct Walk {
  int32_t dim;
  int64_t shape[NVOPS_MAX_DIMS];
  int64_t stride[Operands][NVOPS_MAX_DIMS];

  __host__ __device__ void offsets(int64_t linear, int64_t* out) const {
    for (int o = 0; o < Operands; ++o) out[o] = 0;
    for (int d = dim - 1; d >= 0; --d) {
      const int64_t coord = linear % shape[d];
      linear /= shape[d];
      for (int o = 0; o < Operands; ++o) out[o] += coord * stride[o][d];
    }
  }
};

inline int64_t numel(const nvopsTensor_t& t) {
  int64_t n = 1;
  for (int i = 0; i < t.dim; ++i) n *= t.shape[i];
  return n;
}

// Strides of `t` seen with `out`'s shape, right-aligned, 0 where t broadcasts.
inline bool broadcast_strides(const nvopsTensor_t& t, const nvopsTensor_t& out, int64_t* strides) {
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

// A walk over `out` and the operands, each broadcast to out's shape; false when one does not broadcast.
template <int Operands>
bool walk_of(const nvopsTensor_t& out, const nvopsTensor_t* const (&operands)[Operands - 1], Walk<Operands>& walk) {
  walk.dim = out.dim;
  for (int d = 0; d < out.dim; ++d) walk.shape[d] = out.shape[d], walk.stride[0][d] = out.stride[d];
  for (int o = 1; o < Operands; ++o) {
    if (!broadcast_strides(*operands[o - 1], out, walk.stride[o])) return false;
  }
  return true;
}

// A walk over one tensor alone (fills, arange, a strided weight).
inline Walk<1> walk_over(const nvopsTensor_t& t) {
  Walk<1> walk{t.dim, {}, {}};
  for (int d = 0; d < t.dim; ++d) walk.shape[d] = t.shape[d], walk.stride[0][d] = t.stride[d];
  return walk;
}

// Contiguous in row-major order (dims of size 1 may have any stride).
inline bool row_major(const nvopsTensor_t& t) {
  int64_t expected = 1;
  for (int d = t.dim - 1; d >= 0; --d) {
    if (t.shape[d] != 1 && t.stride[d] != expected) return false;
    expected *= t.shape[d];
  }
  return true;
}

inline bool same_shape(const nvopsTensor_t& a, const nvopsTensor_t& b) {
  if (a.dim != b.dim) return false;
  for (int d = 0; d < a.dim; ++d) {
    if (a.shape[d] != b.shape[d]) return false;
  }
  return true;
}

// How cuBLAS reads a matrix operand (the last two dims; a third one is the batch):
// row-major, or transposed (column-major), each with its leading dimension.
struct MatrixOperand {
  bool ok;          // false: neither (the caller copies it to contiguous)
  bool transposed;  // column-major: cuBLAS transposes it (CUBLAS_OP_T)
  int64_t leading;  // the stride between rows (row-major) or columns (transposed)
  int64_t batch_stride;
};
MatrixOperand matrix_operand(const nvopsTensor_t& t);

// ---- launches ---------------------------------------------------------------

constexpr int kThreads = 256;

inline unsigned blocks_for(int64_t n, int threads = kThreads) {
  return static_cast<unsigned>((n + threads - 1) / threads);
}

// body(i) for every i < n: a thread per element.
template <class Body>
__global__ void for_each_kernel(int64_t n, Body body) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) body(i);
}

template <class Body>
nvopsStatus_t launch_each(cudaStream_t stream, int64_t n, const Body& body, const char* op) {
  if (n == 0) return NVOPS_SUCCESS;
  for_each_kernel<<<blocks_for(n), kThreads, 0, stream>>>(n, body);
  return check_launch(op);
}

#define NVOPS_DISPATCH_FLOATING(DTYPE, ...)                                    \
  switch (DTYPE) {                                                             \
    case NVOPS_F32: { using scalar_t = float; __VA_ARGS__; break; }            \
    case NVOPS_F16: { using scalar_t = __half; __VA_ARGS__; break; }           \
    case NVOPS_BF16: { using scalar_t = __nv_bfloat16; __VA_ARGS__; break; }   \
    default: return ::nvops::fail(NVOPS_ERROR_NOT_SUPPORTED, "not a floating dtype"); \
  }

// ---- block and warp sums ----------------------------------------------------

// The sum of a block's values (blockDim.x a power of two, `shared` one float per thread): a tree.
__device__ inline float block_sum(float value, float* shared) {
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

__device__ __forceinline__ float warp_sum(float value) {
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_xor_sync(0xffffffffu, value, offset);
  return value;
}

__device__ __forceinline__ float warp_max(float value) {
  for (int offset = 16; offset > 0; offset /= 2) value = fmaxf(value, __shfl_xor_sync(0xffffffffu, value, offset));
  return value;
}

}  // namespace nvops
