// The op library's element-wise and index kernels as bodies: body(i) computes
// element i. A GPU runs them with launch_each (a thread per element); the tests
// run the same bodies on the host (nv_element_bodies_test.cu), so their indexing,
// broadcasting and formulas are checked against CPU values on a machine without
// a GPU. Formulas follow ATen's CPU kernels, in float32 as its opmath type.
#pragma once

#include "nv_internal.cuh"

namespace nvops {

// ---- arithmetic of one element ----------------------------------------------

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

// ---- bodies -----------------------------------------------------------------

// dst = cast(src): same dtype bit for bit (int64 beyond 2^53, complex), complex to
// complex with both parts, anything else through double (a complex source gives
// its real part, as PyTorch's cast does).
struct CopyBody {
  Walk<2> walk;  // dst, src
  void* dst;
  const void* src;
  nvopsDtype_t dst_type, src_type;

  __host__ __device__ void operator()(int64_t i) const {
    int64_t off[2];
    walk.offsets(i, off);
    if (dst_type == src_type) {
      copy_element(dst, off[0], src, off[1], element_size(dst_type));
    } else if (is_complex(dst_type) && is_complex(src_type)) {
      const bool from_c64 = src_type == NVOPS_C64;
      const double re = from_c64 ? static_cast<const float*>(src)[2 * off[1]] : static_cast<const double*>(src)[2 * off[1]];
      const double im = from_c64 ? static_cast<const float*>(src)[2 * off[1] + 1]
                                 : static_cast<const double*>(src)[2 * off[1] + 1];
      if (dst_type == NVOPS_C64) {
        static_cast<float*>(dst)[2 * off[0]] = static_cast<float>(re);
        static_cast<float*>(dst)[2 * off[0] + 1] = static_cast<float>(im);
      } else {
        static_cast<double*>(dst)[2 * off[0]] = re;
        static_cast<double*>(dst)[2 * off[0] + 1] = im;
      }
    } else {
      store_any(dst, off[0], dst_type, load_any(src, off[1], src_type));
    }
  }
};

struct FillBody {
  Walk<1> walk;
  void* dst;
  nvopsDtype_t type;
  double value;

  __host__ __device__ void operator()(int64_t i) const {
    int64_t off[1];
    walk.offsets(i, off);
    store_any(dst, off[0], type, value);
  }
};

// out = a op (alpha * b), each operand in its own floating dtype, strided and broadcast.
struct BinaryBody {
  Walk<3> walk;
  nvopsBinaryOp_t op;
  float alpha;
  void* out;
  const void* a;
  const void* b;
  nvopsDtype_t out_type, a_type, b_type;

  __host__ __device__ void operator()(int64_t i) const {
    int64_t off[3];
    walk.offsets(i, off);
    const float x = load_float(a, off[1], a_type), y = alpha * load_float(b, off[2], b_type);
    store_float(out, off[0], out_type, binary_value(op, x, y));
  }
};

// The same on contiguous operands of one dtype: four elements per call, read
// and written as one vector where the pointers are aligned for it.
template <class T>
struct BinaryContiguousBody {
  struct alignas(4 * sizeof(T)) Four { T value[4]; };
  int64_t n;
  nvopsBinaryOp_t op;
  float alpha;
  T* out;
  const T* a;
  const T* b;  // null: the number `scalar` instead (nvopsBinaryScalar)
  float scalar;
  bool aligned;  // out, a and b on 4 * sizeof(T) boundaries

  __host__ __device__ void operator()(int64_t group) const {
    const int64_t first = 4 * group;
    if (aligned && first + 4 <= n) {
      const Four x = *reinterpret_cast<const Four*>(a + first);
      Four y{};
      if (b) y = *reinterpret_cast<const Four*>(b + first);
      Four r;
      for (int k = 0; k < 4; ++k) {
        const float right = alpha * (b ? to_float(y.value[k]) : scalar);
        r.value[k] = from_float<T>(binary_value(op, to_float(x.value[k]), right));
      }
      *reinterpret_cast<Four*>(out + first) = r;
      return;
    }
    for (int64_t i = first; i < first + 4 && i < n; ++i) {
      const float right = alpha * (b ? to_float(b[i]) : scalar);
      out[i] = from_float<T>(binary_value(op, to_float(a[i]), right));
    }
  }
};

// out = a op (alpha * scalar), strided.
struct BinaryScalarBody {
  Walk<2> walk;
  nvopsBinaryOp_t op;
  float right;  // alpha * scalar
  void* out;
  const void* a;
  nvopsDtype_t out_type, a_type;

  __host__ __device__ void operator()(int64_t i) const {
    int64_t off[2];
    walk.offsets(i, off);
    store_float(out, off[0], out_type, binary_value(op, load_float(a, off[1], a_type), right));
  }
};

struct UnaryBody {
  Walk<2> walk;
  nvopsUnaryOp_t op;
  void* out;
  const void* x;
  nvopsDtype_t out_type, x_type;  // out= may ask for another floating dtype

  __host__ __device__ void operator()(int64_t i) const {
    int64_t off[2];
    walk.offsets(i, off);
    store_float(out, off[0], out_type, unary_value(op, load_float(x, off[1], x_type)));
  }
};

struct UnaryBackwardBody {
  Walk<3> walk;  // out, grad, saved
  nvopsUnaryOp_t op;
  float threshold;
  void* out;
  const void* grad;
  const void* saved;
  nvopsDtype_t out_type, grad_type, saved_type;

  __host__ __device__ void operator()(int64_t i) const {
    int64_t off[3];
    walk.offsets(i, off);
    const float value =
        unary_backward_value(op, load_float(grad, off[1], grad_type), load_float(saved, off[2], saved_type), threshold);
    store_float(out, off[0], out_type, value);
  }
};

// Dropout of element i (of x's row-major order): its mask and scaled value.
struct DropoutBody {
  Walk<3> walk;  // out, mask, x
  float keep_probability, scale;
  bool train;
  uint64_t seed, offset;
  void* out;
  bool* mask;
  const void* x;
  nvopsDtype_t out_type, x_type;

  __host__ __device__ void operator()(int64_t i) const {
    int64_t off[3];
    walk.offsets(i, off);
    const bool keep = !train || uniform_at(seed, offset, static_cast<uint64_t>(i)) < keep_probability;
    mask[off[1]] = keep;
    const float value = load_float(x, off[2], x_type);
    // x * mask * scale, as ATen computes it: a dropped inf or NaN gives NaN.
    store_float(out, off[0], out_type, !train ? value : value * (keep ? 1.f : 0.f) * scale);
  }
};

// grad * mask * scale.
struct MaskScaleBody {
  Walk<3> walk;  // out, grad, mask
  float scale;
  void* out;
  const void* grad;
  const bool* mask;
  nvopsDtype_t out_type, grad_type;

  __host__ __device__ void operator()(int64_t i) const {
    int64_t off[3];
    walk.offsets(i, off);
    const float g = load_float(grad, off[1], grad_type);
    store_float(out, off[0], out_type, g * (mask[off[2]] ? 1.f : 0.f) * scale);
  }
};

struct TernaryBody {
  Walk<4> walk;  // out, a, b, c
  nvopsTernaryOp_t op;
  float value;
  void* out;
  const void* a;
  const void* b;
  const void* c;  // null for lerp
  nvopsDtype_t out_type, a_type, b_type, c_type;

  __host__ __device__ void operator()(int64_t i) const {
    int64_t off[4];
    walk.offsets(i, off);
    const float third = c ? load_float(c, off[3], c_type) : 0.f;
    const float r = ternary_value(op, load_float(a, off[1], a_type), load_float(b, off[2], b_type), third, value);
    store_float(out, off[0], out_type, r);
  }
};

// The operands' bytes where their dtype is out's; else a cast through double.
struct WhereBody {
  Walk<4> walk;  // out, condition, a, b
  void* out;
  const void* condition;
  const void* a;
  const void* b;
  nvopsDtype_t out_type, condition_type, a_type, b_type;

  __host__ __device__ void operator()(int64_t i) const {
    int64_t off[4];
    walk.offsets(i, off);
    const bool take_a = condition_type == NVOPS_BOOL ? static_cast<const bool*>(condition)[off[1]]
                                                     : load_any(condition, off[1], condition_type) != 0.0;
    const void* from = take_a ? a : b;
    const nvopsDtype_t from_type = take_a ? a_type : b_type;
    const int64_t from_offset = take_a ? off[2] : off[3];
    if (from_type == out_type) {
      copy_element(out, off[0], from, from_offset, element_size(out_type));
    } else {
      store_any(out, off[0], out_type, load_any(from, from_offset, from_type));
    }
  }
};

struct IsNegInfBody {
  Walk<2> walk;
  bool* out;
  const void* x;
  nvopsDtype_t type;

  __host__ __device__ void operator()(int64_t i) const {
    int64_t off[2];
    walk.offsets(i, off);
    const float v = load_float(x, off[1], type);
    out[off[0]] = v == -INFINITY;
  }
};

// Element i of the row-major order is at (.., row, col) of the last two dims.
struct TriangleBody {
  Walk<2> walk;  // out, x
  int64_t rows, cols;
  int64_t diagonal;
  bool upper;
  void* out;
  const void* x;
  size_t bytes;

  __host__ __device__ void operator()(int64_t i) const {
    int64_t off[2];
    walk.offsets(i, off);
    const int64_t col = i % cols, row = (i / cols) % rows;
    const bool kept = upper ? col - row >= diagonal : col - row <= diagonal;
    if (kept) {
      copy_element(out, off[0], x, off[1], bytes);
    } else {
      zero_element(out, off[0], bytes);
    }
  }
};

// In double, as ATen's CPU arange accumulates (its acc_type of float is double);
// element i of out's row-major order (an out= tensor of the right size keeps its shape).
struct ArangeBody {
  Walk<1> walk;
  double start, step;
  void* out;
  nvopsDtype_t type;

  __host__ __device__ void operator()(int64_t i) const {
    int64_t off[1];
    walk.offsets(i, off);
    store_any(out, off[0], type, start + step * static_cast<double>(i));
  }
};

// out[.., j, ..] = x[.., index[j], ..] along dim.
struct IndexSelectBody {
  Walk<2> walk;  // over out: out and x strides, x's along dim set to 0 (added from the index)
  int32_t dim;
  int64_t x_dim_size, x_dim_stride;
  const void* index;
  nvopsDtype_t index_type;
  int64_t index_stride;
  void* out;
  const void* x;
  size_t bytes;
  int* out_of_range;  // host tests only

  __host__ __device__ void operator()(int64_t i) const {
    int64_t off[2];
    walk.offsets(i, off);
    int64_t linear = i, coord = 0;
    for (int d = walk.dim - 1; d >= dim; --d) {
      coord = linear % walk.shape[d];
      linear /= walk.shape[d];
    }
    const int64_t selected = load_index(index, coord * index_stride, index_type);
    if (selected < 0 || selected >= x_dim_size) {  // negative ones too: ATen refuses them
      index_out_of_range(out_of_range);
      return;
    }
    copy_element(out, off[0], x, off[1] + selected * x_dim_stride, bytes);
  }
};

// Element i = (position, column) of a contiguous grad (positions x width) added
// into row indices[position] of a contiguous float32 out.
struct EmbeddingBackwardBody {
  int64_t width, rows;
  int64_t padding_idx;
  const float* grad;
  const void* indices;
  nvopsDtype_t index_type;
  float* out;
  int* out_of_range;  // host tests only

  __host__ __device__ void operator()(int64_t i) const {
    const int64_t position = i / width, column = i % width;
    const int64_t row = load_index(indices, position, index_type);
    if (row == padding_idx) return;
    if (row < 0 || row >= rows) {
      index_out_of_range(out_of_range);
      return;
    }
    accumulate(out + row * width + column, grad[i]);
  }
};

// Sample i's gradient into a zeroed grad_input: -weight[t] * grad (/ total weight for mean).
struct NllLossBackwardBody {
  int64_t classes;
  int64_t grad_input_row_stride, grad_input_class_stride;
  int64_t reduction, ignore_index;
  const void* grad_output;
  nvopsDtype_t grad_type;
  int64_t grad_stride;  // reduction none over a batch: grad_output's stride; else 0
  const void* target;  // any integral dtype
  nvopsDtype_t target_type;
  int64_t target_stride;
  const void* weight;  // null: 1
  nvopsDtype_t weight_type;
  int64_t weight_stride;
  const void* total_weight;
  void* grad_input;
  nvopsDtype_t grad_input_type;
  int* out_of_range;  // host tests only

  __host__ __device__ void operator()(int64_t i) const {
    const int64_t t = load_integer(target, i * target_stride, target_type);
    if (t == ignore_index) return;
    if (t < 0 || t >= classes) {
      index_out_of_range(out_of_range);
      return;
    }
    float g = load_float(grad_output, i * grad_stride, grad_type);
    if (reduction == NVOPS_MEAN) g /= load_float(total_weight, 0, grad_input_type);
    const float w = weight ? load_float(weight, t * weight_stride, weight_type) : 1.f;
    store_float(grad_input, i * grad_input_row_stride + t * grad_input_class_stride, grad_input_type, -w * g);
  }
};

}  // namespace nvops
