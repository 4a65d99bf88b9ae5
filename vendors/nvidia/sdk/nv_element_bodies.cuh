// The op library's element-wise and index kernels as bodies: body(i) computes
// element i. A GPU runs them with launch_each (a thread per element); the tests
// run the same bodies on the host (nv_element_bodies_test.cu), so their indexing,
// broadcasting and formulas are checked against CPU values on a machine without
// a GPU. Formulas follow ATen's CPU kernels, in float32 as its opmath type.
#pragma once

#include "nv_element_math.cuh"
#include "nv_internal.cuh"

namespace nvops {

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
