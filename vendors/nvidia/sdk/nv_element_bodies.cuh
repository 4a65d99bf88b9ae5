// The op library's element-wise and index kernels as bodies: body(i) computes
// element i. A GPU runs them with launch_each (a thread per element); the tests
// run the same bodies on the host (nv_element_bodies_test.cu), so their indexing,
// broadcasting and formulas are checked against CPU values on a machine without
// a GPU. Formulas follow ATen's CPU kernels, in float32 as its opmath type.
#pragma once

#include "nv_element_math.cuh"
#include "nv_internal.cuh"

namespace nvops {

// ---- what the strided bodies share ------------------------------------------

// A body's operand: where its elements are and their dtype (the body's walk gives
// each element's offset). The floating ops read and write it in float32, their
// opmath type; the bodies that move bytes or doubles use data and type themselves.
struct Input {
  const void* data;
  nvopsDtype_t type;

  __host__ __device__ float load(int64_t offset) const { return load_float(data, offset, type); }
};

struct Output {
  void* data;
  nvopsDtype_t type;

  __host__ __device__ void store(int64_t offset, float value) const { store_float(data, offset, type, value); }
};

// A body over strided, broadcast operands: element i of out's row-major order lies at
// offset off[k] of operand k (out first), and Body::element(i, off) computes it.
template <int Operands, class Body>
struct Walked {
  Walk<Operands> walk;

  __host__ __device__ void operator()(int64_t i) const {
    int64_t off[Operands];
    walk.offsets(i, off);
    static_cast<const Body&>(*this).element(i, off);
  }
};

// The usual such body: one output and `Inputs` inputs, walked in that order (out,
// in[0], in[1], ...); bind takes their data and dtypes from the entry point's descriptors.
template <int Inputs, class Body>
struct Strided : Walked<Inputs + 1, Body> {
  Output out;
  Input in[Inputs];

  void bind(const nvopsTensor_t& result, const nvopsTensor_t* const (&inputs)[Inputs]) {
    out = Output{result.data, result.dtype};
    for (int k = 0; k < Inputs; ++k) in[k] = Input{inputs[k]->data, inputs[k]->dtype};
  }
};

// ---- the bodies -------------------------------------------------------------

// dst = cast(src): same dtype bit for bit (int64 beyond 2^53, complex), complex to
// complex with both parts, anything else through double (a complex source gives
// its real part, as PyTorch's cast does).
struct CopyBody : Strided<1, CopyBody> {  // out: dst, in: src
  __host__ __device__ void element(int64_t, const int64_t* off) const {
    const void* src = in[0].data;
    void* dst = out.data;
    const nvopsDtype_t dst_type = out.type, src_type = in[0].type;
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

struct FillBody : Walked<1, FillBody> {
  Output out;
  double value;

  __host__ __device__ void element(int64_t, const int64_t* off) const { store_any(out.data, off[0], out.type, value); }
};

// out = a op (alpha * b), each operand in its own floating dtype, strided and broadcast.
struct BinaryBody : Strided<2, BinaryBody> {  // in: a, b
  nvopsBinaryOp_t op;
  float alpha;

  __host__ __device__ void element(int64_t, const int64_t* off) const {
    out.store(off[0], binary_value(op, in[0].load(off[1]), alpha * in[1].load(off[2])));
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
struct BinaryScalarBody : Strided<1, BinaryScalarBody> {  // in: a
  nvopsBinaryOp_t op;
  float right;  // alpha * scalar

  __host__ __device__ void element(int64_t, const int64_t* off) const {
    out.store(off[0], binary_value(op, in[0].load(off[1]), right));
  }
};

// out= may ask for another floating dtype than x's.
struct UnaryBody : Strided<1, UnaryBody> {  // in: x
  nvopsUnaryOp_t op;

  __host__ __device__ void element(int64_t, const int64_t* off) const {
    out.store(off[0], unary_value(op, in[0].load(off[1])));
  }
};

struct UnaryBackwardBody : Strided<2, UnaryBackwardBody> {  // in: grad, saved
  nvopsUnaryOp_t op;
  float threshold;

  __host__ __device__ void element(int64_t, const int64_t* off) const {
    out.store(off[0], unary_backward_value(op, in[0].load(off[1]), in[1].load(off[2]), threshold));
  }
};

// Dropout of element i (of x's row-major order): its mask and scaled value.
struct DropoutBody : Walked<3, DropoutBody> {  // out, mask, x
  float keep_probability, scale;
  bool train;
  uint64_t seed, offset;
  Output out;
  bool* mask;
  Input x;

  __host__ __device__ void element(int64_t i, const int64_t* off) const {
    const bool keep = !train || uniform_at(seed, offset, static_cast<uint64_t>(i)) < keep_probability;
    mask[off[1]] = keep;
    const float value = x.load(off[2]);
    // x * mask * scale, as ATen computes it: a dropped inf or NaN gives NaN.
    out.store(off[0], !train ? value : value * (keep ? 1.f : 0.f) * scale);
  }
};

// grad * mask * scale.
struct MaskScaleBody : Strided<2, MaskScaleBody> {  // in: grad, mask (bool)
  float scale;

  __host__ __device__ void element(int64_t, const int64_t* off) const {
    const bool kept = static_cast<const bool*>(in[1].data)[off[2]];
    out.store(off[0], in[0].load(off[1]) * (kept ? 1.f : 0.f) * scale);
  }
};

struct TernaryBody : Strided<3, TernaryBody> {  // in: a, b, c (c's data null for lerp)
  nvopsTernaryOp_t op;
  float value;

  __host__ __device__ void element(int64_t, const int64_t* off) const {
    const float third = in[2].data ? in[2].load(off[3]) : 0.f;
    out.store(off[0], ternary_value(op, in[0].load(off[1]), in[1].load(off[2]), third, value));
  }
};

// The operands' bytes where their dtype is out's; else a cast through double.
struct WhereBody : Strided<3, WhereBody> {  // in: condition, a, b
  __host__ __device__ void element(int64_t, const int64_t* off) const {
    const Input& condition = in[0];
    const bool take_a = condition.type == NVOPS_BOOL ? static_cast<const bool*>(condition.data)[off[1]]
                                                     : load_any(condition.data, off[1], condition.type) != 0.0;
    const Input& from = take_a ? in[1] : in[2];
    const int64_t from_offset = take_a ? off[2] : off[3];
    if (from.type == out.type) {
      copy_element(out.data, off[0], from.data, from_offset, element_size(out.type));
    } else {
      store_any(out.data, off[0], out.type, load_any(from.data, from_offset, from.type));
    }
  }
};

struct IsNegInfBody : Strided<1, IsNegInfBody> {  // out: bool, in: x
  __host__ __device__ void element(int64_t, const int64_t* off) const {
    static_cast<bool*>(out.data)[off[0]] = in[0].load(off[1]) == -INFINITY;
  }
};

// Element i of the row-major order is at (.., row, col) of the last two dims.
struct TriangleBody : Strided<1, TriangleBody> {  // in: x, of out's dtype
  int64_t rows, cols;
  int64_t diagonal;
  bool upper;
  size_t bytes;

  __host__ __device__ void element(int64_t i, const int64_t* off) const {
    const int64_t col = i % cols, row = (i / cols) % rows;
    const bool kept = upper ? col - row >= diagonal : col - row <= diagonal;
    if (kept) {
      copy_element(out.data, off[0], in[0].data, off[1], bytes);
    } else {
      zero_element(out.data, off[0], bytes);
    }
  }
};

// In double, as ATen's CPU arange accumulates (its acc_type of float is double);
// element i of out's row-major order (an out= tensor of the right size keeps its shape).
struct ArangeBody : Walked<1, ArangeBody> {
  double start, step;
  Output out;

  __host__ __device__ void element(int64_t i, const int64_t* off) const {
    store_any(out.data, off[0], out.type, start + step * static_cast<double>(i));
  }
};

// out[.., j, ..] = x[.., index[j], ..] along dim. Its walk is over out: out's and
// x's strides, x's along dim set to 0 (added from the index).
struct IndexSelectBody : Walked<2, IndexSelectBody> {
  int32_t dim;
  int64_t x_dim_size, x_dim_stride;
  const void* index;
  nvopsDtype_t index_type;
  int64_t index_stride;
  void* out;
  const void* x;
  size_t bytes;
  int* out_of_range;  // host tests only

  __host__ __device__ void element(int64_t i, const int64_t* off) const {
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
