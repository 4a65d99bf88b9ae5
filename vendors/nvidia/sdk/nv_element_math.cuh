// The arithmetic of one element that the op library's bodies (nv_element_bodies.cuh)
// share: each op's formula, as ATen's CPU kernels compute it in float32 (its opmath
// type), a counter-based uniform, element moves, atomic accumulation, and the
// out-of-range index trap. Host and device alike, so the host tests check them too.
#pragma once

#include "nv_internal.cuh"

namespace nvops {

__host__ __device__ inline float binary_value(nvopsBinaryOp_t op, float x, float y) {
  switch (op) {
    case NVOPS_ADD: return x + y;
    case NVOPS_SUB: return x - y;
    case NVOPS_MUL: return x * y;
    case NVOPS_DIV: return x / y;
  }
  return 0.f;
}

// ATen adds and subtracts in float16 and bfloat16 with the number and alpha rounded
// to the result's dtype first (mul and div take the number as it is).
inline float binary_operand(nvopsBinaryOp_t op, nvopsDtype_t result, double value) {
  if (op != NVOPS_ADD && op != NVOPS_SUB) return static_cast<float>(value);
  if (result == NVOPS_F16) return __half2float(__float2half(static_cast<float>(value)));
  if (result == NVOPS_BF16) return __bfloat162float(__float2bfloat16(static_cast<float>(value)));
  return static_cast<float>(value);
}

__host__ __device__ inline float unary_value(nvopsUnaryOp_t op, float v) {
  switch (op) {
    case NVOPS_RELU: return v < 0.f ? 0.f : v;  // NaN stays NaN, as on CPU
    case NVOPS_GELU: return 0.5f * v * (1.f + erff(v * 0.70710678118654752f));
    case NVOPS_GELU_TANH: return 0.5f * v * (1.f + tanhf(0.79788456080286536f * (v + 0.044715f * v * v * v)));
    case NVOPS_SILU: return v / (1.f + expf(-v));
    case NVOPS_EXP: return expf(v);
    case NVOPS_TANH: return tanhf(v);
    case NVOPS_SIGMOID: return 1.f / (1.f + expf(-v));
    case NVOPS_NEG: return -v;
    case NVOPS_SQRT: return sqrtf(v);
  }
  return 0.f;
}

// grad times the derivative of op at what its backward saved (nv_ops.h's
// nvopsUnaryBackward), as ATen's backward kernels compute it.
__host__ __device__ inline float unary_backward_value(nvopsUnaryOp_t op, float grad, float saved, float threshold) {
  switch (op) {
    case NVOPS_GELU_TANH: {
      const float beta = 0.79788456080286536f, kappa = 0.044715f;  // sqrt(2/pi)
      const float x = saved, x_sq = x * x, tanh_inner = tanhf(beta * (x + kappa * x_sq * x));
      const float left = 0.5f * x, right = 1.f + tanh_inner;
      const float left_derivative = 0.5f * right;
      const float right_derivative = left * (1.f - tanh_inner * tanh_inner) * beta * (1.f + 3.f * kappa * x_sq);
      return grad * (left_derivative + right_derivative);
    }
    case NVOPS_GELU: {
      const float cdf = 0.5f * (1.f + erff(saved * 0.70710678118654752f));
      const float pdf = expf(-0.5f * saved * saved) * 0.39894228040143268f;  // 1/sqrt(2 pi)
      return grad * (cdf + saved * pdf);
    }
    case NVOPS_SILU: {
      const float sigmoid = 1.f / (1.f + expf(-saved));
      return grad * sigmoid * (1.f + saved * (1.f - sigmoid));
    }
    case NVOPS_TANH: return grad * (1.f - saved * saved);  // saved: tanh(x)
    case NVOPS_SIGMOID: return grad * (1.f - saved) * saved;  // saved: sigmoid(x)
    case NVOPS_RELU: return saved <= threshold ? 0.f : grad;  // threshold_backward
    default: return 0.f;
  }
}

// A uniform float in [0, 1) for element `i` of the call that reserved (seed, offset):
// splitmix64 of the three, a counter-based generator (no state between elements).
__host__ __device__ inline float uniform_at(uint64_t seed, uint64_t offset, uint64_t i) {
  uint64_t z = seed ^ (offset * 0xD1B54A32D192ED03ull) ^ (i * 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<float>(z >> 40) * (1.f / 16777216.f);  // 24 bits
}

__host__ __device__ inline float ternary_value(nvopsTernaryOp_t op, float a, float b, float c, float value) {
  switch (op) {
    case NVOPS_LERP:  // ATen's two-sided form: exact at both ends
      return fabsf(value) < 0.5f ? a + value * (b - a) : b - (b - a) * (1.f - value);
    case NVOPS_ADDCMUL: return a + value * b * c;
    case NVOPS_ADDCDIV: return a + value * b / c;
  }
  return 0.f;
}

// One element moved bit for bit (same dtype on both sides).
__host__ __device__ inline void copy_element(void* dst, int64_t dst_offset, const void* src, int64_t src_offset,
                                             size_t bytes) {
  switch (bytes) {
    case 1: static_cast<uint8_t*>(dst)[dst_offset] = static_cast<const uint8_t*>(src)[src_offset]; break;
    case 2: static_cast<uint16_t*>(dst)[dst_offset] = static_cast<const uint16_t*>(src)[src_offset]; break;
    case 4: static_cast<uint32_t*>(dst)[dst_offset] = static_cast<const uint32_t*>(src)[src_offset]; break;
    case 8: static_cast<uint64_t*>(dst)[dst_offset] = static_cast<const uint64_t*>(src)[src_offset]; break;
    case 16: {
      const uint64_t* from = static_cast<const uint64_t*>(src) + 2 * src_offset;
      uint64_t* to = static_cast<uint64_t*>(dst) + 2 * dst_offset;
      to[0] = from[0];
      to[1] = from[1];
      break;
    }
  }
}

// An element of any dtype set to zero.
__host__ __device__ inline void zero_element(void* dst, int64_t offset, size_t bytes) {
  uint8_t* bytes_at = static_cast<uint8_t*>(dst) + offset * static_cast<int64_t>(bytes);
  for (size_t b = 0; b < bytes; ++b) bytes_at[b] = 0;
}

// A float added into memory other threads add into too.
__host__ __device__ inline void accumulate(float* where, float value) {
#ifdef __CUDA_ARCH__
  atomicAdd(where, value);
#else
  *where += value;
#endif
}

// An index outside its dimension: a device-side trap, as CUDA's own index kernels
// assert (the error surfaces at the next synchronisation); on the host, a flag.
__host__ __device__ inline void index_out_of_range(int* flag) {
#ifdef __CUDA_ARCH__
  (void)flag;
  __trap();
#else
  if (flag) *flag = 1;
#endif
}

}  // namespace nvops
