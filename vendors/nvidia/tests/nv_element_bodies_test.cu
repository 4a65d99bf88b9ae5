// The op library's element bodies (sdk/nv_element_bodies.cuh) run on the host:
// the same code a GPU runs a thread per element of, so indexing, broadcasting,
// dtypes and formulas are checked on any machine. Expected values come from the
// ops' definitions (PyTorch's documentation of each), computed here in double.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <vector>

#include "descriptors.h"
#include "nv_element_bodies.cuh"

namespace nvops {
namespace {

template <class Body>
void run_on_host(int64_t n, const Body& body) {
  for (int64_t i = 0; i < n; ++i) body(i);
}

std::vector<__nv_bfloat16> bf16(const std::vector<float>& values) {
  std::vector<__nv_bfloat16> out;
  for (float v : values) out.push_back(__float2bfloat16(v));
  return out;
}


TEST(NvElementBodies, BinaryBroadcastsAndReadsEachOperandInItsOwnDtype) {
  // (2, 3) float32 + alpha * (3,) bfloat16 → float32, written into a transposed out.
  std::vector<float> a = {1, 2, 3, 4, 5, 6};
  std::vector<__nv_bfloat16> b = bf16({0.5f, -1.25f, 3.f});
  std::vector<float> out(6, -1.f);
  const nvopsTensor_t ta = described(a.data(), NVOPS_F32, {2, 3}), tb = described(b.data(), NVOPS_BF16, {3});
  const nvopsTensor_t tout = described(out.data(), NVOPS_F32, {2, 3}, {1, 2});  // column-major
  BinaryBody body{};
  ASSERT_TRUE(walk_of<3>(tout, {&ta, &tb}, body.walk));
  body.bind(tout, {&ta, &tb});
  body.op = NVOPS_SUB, body.alpha = 2.f;
  run_on_host(6, body);
  const float bv[3] = {0.5f, -1.25f, 3.f};
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 3; ++c) EXPECT_EQ(out[r + 2 * c], a[3 * r + c] - 2.f * bv[c]) << r << "," << c;
  }
  nvopsTensor_t wrong = described(b.data(), NVOPS_BF16, {2});
  EXPECT_FALSE(walk_of<3>(tout, {&ta, &wrong}, body.walk)) << "(2,) does not broadcast to (2, 3)";
}

TEST(NvElementBodies, ContiguousBinaryCoversTheTailAndUnalignedPointers) {
  for (const int64_t n : {1, 4, 10, 13}) {
    for (const int shift : {0, 1}) {  // 1: pointers off the 16-byte boundary
      std::vector<float> storage_a(n + 4), storage_b(n + 4), storage_out(n + 4, 0.f);
      float* a = storage_a.data() + shift;
      float* b = storage_b.data() + shift;
      float* out = storage_out.data() + shift;
      for (int64_t i = 0; i < n; ++i) a[i] = 0.5f * i, b[i] = 3.f - i;
      BinaryContiguousBody<float> body{};
      body.n = n, body.op = NVOPS_MUL, body.alpha = 1.f, body.out = out, body.a = a, body.b = b;
      body.aligned = reinterpret_cast<uintptr_t>(a) % 16 == 0 && reinterpret_cast<uintptr_t>(b) % 16 == 0 &&
                     reinterpret_cast<uintptr_t>(out) % 16 == 0;
      run_on_host((n + 3) / 4, body);
      for (int64_t i = 0; i < n; ++i) EXPECT_EQ(out[i], a[i] * b[i]) << "n=" << n << " i=" << i;
      EXPECT_EQ(storage_out[shift + n], 0.f) << "wrote past the end, n=" << n;
      body.b = nullptr, body.scalar = 2.5f, body.op = NVOPS_ADD, body.alpha = -2.f;  // a + (-2) * 2.5
      run_on_host((n + 3) / 4, body);
      for (int64_t i = 0; i < n; ++i) EXPECT_EQ(out[i], a[i] - 5.f) << "n=" << n << " i=" << i;
    }
  }
}

TEST(NvElementBodies, BinaryScalarOnAStridedBfloat16View) {
  std::vector<__nv_bfloat16> a = bf16({1, 2, 3, 4, 5, 6});
  std::vector<__nv_bfloat16> out(3);
  const nvopsTensor_t ta = described(a.data(), NVOPS_BF16, {3}, {2});  // every other element
  const nvopsTensor_t tout = described(out.data(), NVOPS_BF16, {3});
  BinaryScalarBody body{};
  ASSERT_TRUE(walk_of<2>(tout, {&ta}, body.walk));
  body.bind(tout, {&ta});
  body.op = NVOPS_DIV, body.right = 4.f;
  run_on_host(3, body);
  EXPECT_EQ(__bfloat162float(out[0]), 0.25f);
  EXPECT_EQ(__bfloat162float(out[1]), 0.75f);
  EXPECT_EQ(__bfloat162float(out[2]), 1.25f);
}

TEST(NvElementBodies, AddAndSubRoundTheirNumberToAHalfResultAsATenDoes) {
  EXPECT_EQ(binary_operand(NVOPS_ADD, NVOPS_BF16, 0.1), 0.10009765625f) << "0.1 in bfloat16";
  EXPECT_EQ(binary_operand(NVOPS_SUB, NVOPS_F16, 0.1), 0.0999755859375f) << "0.1 in float16";
  EXPECT_EQ(binary_operand(NVOPS_MUL, NVOPS_BF16, 0.1), 0.1f) << "mul takes the number as it is";
  EXPECT_EQ(binary_operand(NVOPS_ADD, NVOPS_F32, 0.1), 0.1f);
}

TEST(NvElementBodies, UnaryOpsFollowTheirDefinitions) {
  const std::vector<float> x = {-2.f, -0.5f, 0.f, 0.75f, 4.f, NAN};
  const struct {
    nvopsUnaryOp_t op;
    double (*expected)(double);
  } cases[] = {
      {NVOPS_SQRT, [](double v) { return std::sqrt(v); }},
      {NVOPS_EXP, [](double v) { return std::exp(v); }},
      {NVOPS_TANH, [](double v) { return std::tanh(v); }},
      {NVOPS_SIGMOID, [](double v) { return 1.0 / (1.0 + std::exp(-v)); }},
      {NVOPS_SILU, [](double v) { return v / (1.0 + std::exp(-v)); }},
      {NVOPS_NEG, [](double v) { return -v; }},
      {NVOPS_GELU, [](double v) { return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))); }},
      {NVOPS_RELU, [](double v) { return std::isnan(v) ? v : std::max(v, 0.0); }},
  };
  for (const auto& c : cases) {
    std::vector<float> out(x.size());
    std::vector<float> in = x;
    const nvopsTensor_t t = described(in.data(), NVOPS_F32, {6});
    UnaryBody body{};
    walk_of<2>(t, {&t}, body.walk);
    body.bind(described(out.data(), NVOPS_F32, {6}), {&t});
    body.op = c.op;
    run_on_host(6, body);
    for (size_t i = 0; i < x.size(); ++i) {
      const double expected = c.expected(x[i]);
      if (std::isnan(expected)) {
        EXPECT_TRUE(std::isnan(out[i])) << "op " << c.op << " at " << x[i];
      } else {
        EXPECT_NEAR(out[i], expected, 1e-6 * std::max(1.0, std::fabs(expected))) << "op " << c.op << " at " << x[i];
      }
    }
  }
}

double gelu(double v) { return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))); }
double gelu_tanh(double v) { return 0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v))); }
double silu(double v) { return v / (1.0 + std::exp(-v)); }
double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }
double tanh_of(double v) { return std::tanh(v); }

TEST(NvElementBodies, UnaryBackwardsAreTheDerivativesOfTheirOps) {
  const struct {
    nvopsUnaryOp_t op;
    double (*f)(double);
    bool saves_output;  // tanh and sigmoid's backwards take the forward's result
  } cases[] = {{NVOPS_GELU, gelu, false}, {NVOPS_GELU_TANH, gelu_tanh, false}, {NVOPS_SILU, silu, false},
               {NVOPS_TANH, tanh_of, true}, {NVOPS_SIGMOID, sigmoid, true}};
  for (const auto& c : cases) {
    for (const float x : {-3.f, -1.f, -0.25f, 0.f, 0.5f, 2.f}) {
      const double h = 1e-4;
      const double slope = (c.f(x + h) - c.f(x - h)) / (2 * h);
      const float saved = c.saves_output ? static_cast<float>(c.f(x)) : x;
      EXPECT_NEAR(unary_backward_value(c.op, 1.5f, saved, 0.f), 1.5 * slope, 1e-5) << "op " << c.op << " x=" << x;
    }
  }
  // threshold_backward: the gradient where the input exceeds the threshold, else 0
  EXPECT_EQ(unary_backward_value(NVOPS_RELU, 2.f, 0.5f, 0.f), 2.f);
  EXPECT_EQ(unary_backward_value(NVOPS_RELU, 2.f, 0.f, 0.f), 0.f);
  EXPECT_EQ(unary_backward_value(NVOPS_RELU, 2.f, 0.5f, 1.f), 0.f);
}

TEST(NvElementBodies, DropoutKeepsAboutOneMinusPScalesAndFollowsItsSeed) {
  const int64_t n = 20000;
  std::vector<float> x(n, 2.f), out(n), again(n);
  std::vector<uint8_t> mask_storage(n), other_storage(n);
  bool* mask = reinterpret_cast<bool*>(mask_storage.data());
  const nvopsTensor_t t = described(x.data(), NVOPS_F32, {n});
  DropoutBody body{};
  walk_of<3>(t, {&t, &t}, body.walk);
  body.keep_probability = 0.7f, body.scale = 1.f / 0.7f, body.train = true, body.seed = 42, body.offset = 3;
  body.out = Output{out.data(), NVOPS_F32}, body.mask = mask, body.x = Input{x.data(), NVOPS_F32};
  run_on_host(n, body);
  int64_t kept = 0;
  for (int64_t i = 0; i < n; ++i) {
    kept += mask[i];
    ASSERT_EQ(out[i], mask[i] ? 2.f / 0.7f : 0.f) << i;
  }
  EXPECT_NEAR(static_cast<double>(kept) / n, 0.7, 0.015);
  body.out.data = again.data(), body.mask = reinterpret_cast<bool*>(other_storage.data());
  run_on_host(n, body);
  EXPECT_EQ(out, again) << "the same (seed, offset) gives the same mask";
  body.offset = 4;
  run_on_host(n, body);
  EXPECT_NE(out, again) << "the next offset gives another mask";
  body.train = false;
  run_on_host(n, body);
  EXPECT_EQ(again, x) << "not training: the input, unscaled";
}

TEST(NvElementBodies, TernaryOpsBroadcastAndLerpIsExactAtItsEnds) {
  std::vector<float> a = {1, 2, 3, 4}, b = {10, 20}, c = {4, 8, 16, 32}, out(4);
  const nvopsTensor_t ta = described(a.data(), NVOPS_F32, {2, 2}), tb = described(b.data(), NVOPS_F32, {2}),
                      tc = described(c.data(), NVOPS_F32, {2, 2}), tout = described(out.data(), NVOPS_F32, {2, 2});
  TernaryBody body{};
  ASSERT_TRUE(walk_of<4>(tout, {&ta, &tb, &tc}, body.walk));
  body.bind(tout, {&ta, &tb, &tc});
  body.op = NVOPS_ADDCMUL, body.value = 0.5f;
  run_on_host(4, body);
  EXPECT_EQ(out, (std::vector<float>{1 + 0.5f * 10 * 4, 2 + 0.5f * 20 * 8, 3 + 0.5f * 10 * 16, 4 + 0.5f * 20 * 32}));
  body.op = NVOPS_ADDCDIV, body.value = -2.f;
  run_on_host(4, body);
  EXPECT_EQ(out, (std::vector<float>{1 - 2.f * 10 / 4, 2 - 2.f * 20 / 8, 3 - 2.f * 10 / 16, 4 - 2.f * 20 / 32}));
  body.op = NVOPS_LERP, body.in[2] = Input{nullptr, NVOPS_INVALID};
  for (const float w : {0.f, 0.3f, 0.7f, 1.f}) {
    body.value = w;
    run_on_host(4, body);
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(out[i], a[i] + w * (b[i % 2] - a[i]), 1e-5) << "w=" << w;
    if (w == 0.f) EXPECT_EQ(out[3], 4.f) << "lerp with weight 0 is exactly `self`";
  }
  // Weight 1 gives exactly `end`, which self + 1 * (end - self) misses in float32 (3 → 0.1: 0.099999905).
  float self_value = 3.f, end_value = 0.1f, result = 0.f;
  const nvopsTensor_t one = described(&result, NVOPS_F32, {});
  TernaryBody lerp{};
  walk_of<4>(one, {&one, &one, &one}, lerp.walk);
  lerp.op = NVOPS_LERP, lerp.value = 1.f, lerp.out = Output{&result, NVOPS_F32};
  lerp.in[0] = Input{&self_value, NVOPS_F32}, lerp.in[1] = Input{&end_value, NVOPS_F32};
  run_on_host(1, lerp);
  EXPECT_EQ(result, 0.1f);
}

TEST(NvElementBodies, WhereTakesBytesOrCastsAndAnyConditionDtype) {
  bool condition[3] = {true, false, true};
  std::vector<float> a = {1.5f, 2.5f, 3.5f};
  std::vector<__nv_bfloat16> b = bf16({-1.f, -2.f, -3.f});
  std::vector<float> out(3);
  const nvopsTensor_t tcond = described(condition, NVOPS_BOOL, {3}), ta = described(a.data(), NVOPS_F32, {3}),
                      tb = described(b.data(), NVOPS_BF16, {3}), tout = described(out.data(), NVOPS_F32, {3});
  WhereBody body{};
  ASSERT_TRUE(walk_of<4>(tout, {&tcond, &ta, &tb}, body.walk));
  body.bind(tout, {&tcond, &ta, &tb});
  run_on_host(3, body);
  EXPECT_EQ(out, (std::vector<float>{1.5f, -2.f, 3.5f}));
  uint8_t byte_condition[3] = {0, 7, 0};
  body.in[0] = Input{byte_condition, NVOPS_U8};
  run_on_host(3, body);
  EXPECT_EQ(out, (std::vector<float>{-1.f, 2.5f, -3.f}));
}

TEST(NvElementBodies, IsNegInfIsTrueOnlyForMinusInfinity) {
  std::vector<float> x = {-INFINITY, INFINITY, NAN, -3.f, 0.f};
  bool out[5];
  const nvopsTensor_t tx = described(x.data(), NVOPS_F32, {5}), tout = described(out, NVOPS_BOOL, {5});
  IsNegInfBody body{};
  walk_of<2>(tout, {&tx}, body.walk);
  body.bind(tout, {&tx});
  run_on_host(5, body);
  EXPECT_TRUE(out[0]);
  for (int i = 1; i < 5; ++i) EXPECT_FALSE(out[i]) << x[i];
}

TEST(NvElementBodies, TriangleKeepsTheDiagonalsAsTrilAndTriuDefineThem) {
  const int64_t batch = 2, rows = 3, cols = 4, n = batch * rows * cols;
  for (const bool upper : {false, true}) {
    for (const int64_t diagonal : {-1, 0, 2}) {
      std::vector<int32_t> x(n), out(n, -9);
      for (int64_t i = 0; i < n; ++i) x[i] = static_cast<int32_t>(i + 1);
      const nvopsTensor_t tx = described(x.data(), NVOPS_I32, {batch, rows, cols});
      TriangleBody body{};
      walk_of<2>(tx, {&tx}, body.walk);
      body.rows = rows, body.cols = cols, body.diagonal = diagonal, body.upper = upper;
      body.bind(described(out.data(), NVOPS_I32, {batch, rows, cols}), {&tx});
      body.bytes = 4;
      run_on_host(n, body);
      for (int64_t i = 0; i < n; ++i) {
        const int64_t r = (i / cols) % rows, c = i % cols;
        const bool kept = upper ? c - r >= diagonal : c - r <= diagonal;
        EXPECT_EQ(out[i], kept ? x[i] : 0) << "upper=" << upper << " diagonal=" << diagonal << " i=" << i;
      }
      body.out.data = x.data();  // in place: tril_ / triu_
      run_on_host(n, body);
      EXPECT_EQ(x, out);
    }
  }
}

TEST(NvElementBodies, ArangeComputesInDoubleAndWritesTheResultsDtype) {
  int64_t out[6];
  const nvopsTensor_t two_by_three = described(out, NVOPS_I64, {2, 3});  // an out= of the right size keeps its shape
  run_on_host(6, ArangeBody{walk_over(two_by_three), 3.0, 4.0, Output{out, NVOPS_I64}});
  EXPECT_EQ(std::vector<int64_t>(out, out + 6), (std::vector<int64_t>{3, 7, 11, 15, 19, 23}));
  float strided[6] = {};
  run_on_host(3, ArangeBody{walk_over(described(strided, NVOPS_F32, {3}, {2})), 0.0, 0.1, Output{strided, NVOPS_F32}});
  EXPECT_EQ(strided[2], static_cast<float>(0.1)) << "start + i * step, rounded once";
  EXPECT_EQ(strided[4], static_cast<float>(0.2));
  EXPECT_EQ(strided[1], 0.f) << "stride 2 leaves the odd elements alone";
}

TEST(NvElementBodies, IndexSelectAlongEitherDimRefusingNegativeAndOutOfRangeIndices) {
  std::vector<float> x(12);
  for (int i = 0; i < 12; ++i) x[i] = static_cast<float>(i);
  const nvopsTensor_t tx = described(x.data(), NVOPS_F32, {3, 4});
  for (const int32_t dim : {0, 1}) {
    int32_t index[3] = {2, 1, 0};
    std::vector<float> out(dim == 0 ? 12 : 9, -1.f);
    const nvopsTensor_t tout = described(out.data(), NVOPS_F32, dim == 0 ? std::vector<int64_t>{3, 4} : std::vector<int64_t>{3, 3});
    IndexSelectBody body{};
    body.walk.dim = 2;
    for (int d = 0; d < 2; ++d) {
      body.walk.shape[d] = tout.shape[d];
      body.walk.stride[0][d] = tout.stride[d];
      body.walk.stride[1][d] = d == dim ? 0 : tx.stride[d];
    }
    int flag = 0;
    body.dim = dim, body.x_dim_size = tx.shape[dim], body.x_dim_stride = tx.stride[dim];
    body.index = index, body.index_type = NVOPS_I32, body.index_stride = 1;
    body.out = out.data(), body.x = x.data(), body.bytes = 4, body.out_of_range = &flag;
    run_on_host(numel(tout), body);
    const int64_t resolved[3] = {2, 1, 0};
    for (int64_t r = 0; r < tout.shape[0]; ++r) {
      for (int64_t c = 0; c < tout.shape[1]; ++c) {
        const float expected = dim == 0 ? x[resolved[r] * 4 + c] : x[r * 4 + resolved[c]];
        EXPECT_EQ(out[r * tout.shape[1] + c], expected) << "dim " << dim << " at " << r << "," << c;
      }
    }
    EXPECT_EQ(flag, 0);
    index[1] = static_cast<int32_t>(tx.shape[dim]);
    run_on_host(numel(tout), body);
    EXPECT_EQ(flag, 1) << "an index past the dim is reported, not read";
    flag = 0;
    index[1] = -1;
    run_on_host(numel(tout), body);
    EXPECT_EQ(flag, 1) << "a negative index is refused, as ATen's index_select refuses it";
  }
}

TEST(NvElementBodies, EmbeddingBackwardAddsRepeatedRowsAndSkipsPadding) {
  const int64_t indices[4] = {1, 3, 1, 0};
  const std::vector<float> grad = {1, 2, 10, 20, 100, 200, 1000, 2000};  // 4 positions x width 2
  std::vector<float> out(8, 0.f);  // 4 rows x width 2, zeroed as nvopsEmbeddingBackward does
  int flag = 0;
  EmbeddingBackwardBody body{2, 4, /*padding_idx=*/0, grad.data(), indices, NVOPS_I64, out.data(), &flag};
  run_on_host(8, body);
  EXPECT_EQ(out, (std::vector<float>{0, 0, 101, 202, 0, 0, 10, 20}));
  EXPECT_EQ(flag, 0);
}

TEST(NvElementBodies, NllLossBackwardWeighsAveragesAndIgnores) {
  const int64_t target[3] = {2, -100, 0};
  const float weight[3] = {0.5f, 1.f, 2.f};
  const float grad_output = 3.f, total_weight = 2.5f;  // mean over the weights of targets 2 and 0
  std::vector<float> grad_input(9, 0.f);
  NllLossBackwardBody body{};
  body.classes = 3, body.grad_input_row_stride = 3, body.grad_input_class_stride = 1;
  body.reduction = NVOPS_MEAN, body.ignore_index = -100;
  body.grad_output = &grad_output, body.grad_type = NVOPS_F32, body.grad_stride = 0;
  body.target = target, body.target_type = NVOPS_I64, body.target_stride = 1;
  body.weight = weight, body.weight_type = NVOPS_F32, body.weight_stride = 1;
  body.total_weight = &total_weight, body.grad_input = grad_input.data(), body.grad_input_type = NVOPS_F32;
  run_on_host(3, body);
  EXPECT_EQ(grad_input, (std::vector<float>{0, 0, -2.f * 3 / 2.5f, 0, 0, 0, -0.5f * 3 / 2.5f, 0, 0}));
}

TEST(NvElementBodies, CopyCastsKeepsComplexPartsAndFollowsStrides) {
  const float x[4] = {1.9f, -2.7f, 100.f, 4.f};  // 2 x 2, read transposed
  int8_t out[4];
  const nvopsTensor_t tx = described(const_cast<float*>(x), NVOPS_F32, {2, 2}, {1, 2}),
                      tout = described(out, NVOPS_I8, {2, 2});
  CopyBody body{};
  ASSERT_TRUE(walk_of<2>(tout, {&tx}, body.walk));
  body.bind(tout, {&tx});
  run_on_host(4, body);
  EXPECT_EQ(out[0], 1);
  EXPECT_EQ(out[1], 100) << "x[0][1] is x's element 2";
  EXPECT_EQ(out[2], -2);
  EXPECT_EQ(out[3], 4);
  const std::complex<float> c64[1] = {{1.5f, -2.5f}};
  std::complex<double> c128[1];
  const nvopsTensor_t from = described(const_cast<std::complex<float>*>(c64), NVOPS_C64, {1}),
                      to = described(c128, NVOPS_C128, {1});
  walk_of<2>(to, {&from}, body.walk);
  body.bind(to, {&from});
  run_on_host(1, body);
  EXPECT_EQ(c128[0], std::complex<double>(1.5, -2.5));
}

TEST(NvElementBodies, MatmulReadsRowMajorAndTransposedOperandsAsTheyAre) {
  float fake[64];
  const MatrixOperand row_major_operand = matrix_operand(described(fake, NVOPS_F32, {3, 4}));
  EXPECT_TRUE(row_major_operand.ok);
  EXPECT_FALSE(row_major_operand.transposed);
  EXPECT_EQ(row_major_operand.leading, 4);
  const MatrixOperand transposed = matrix_operand(described(fake, NVOPS_F32, {4, 3}, {1, 4}));  // (3, 4).t()
  EXPECT_TRUE(transposed.ok);
  EXPECT_TRUE(transposed.transposed);
  EXPECT_EQ(transposed.leading, 4);
  const MatrixOperand column_slice = matrix_operand(described(fake, NVOPS_F32, {2, 3, 4}, {36, 12, 1}));  // qkv.split
  EXPECT_TRUE(column_slice.ok);
  EXPECT_EQ(column_slice.leading, 12);
  EXPECT_EQ(column_slice.batch_stride, 36);
  EXPECT_FALSE(matrix_operand(described(fake, NVOPS_F32, {3, 4}, {8, 2})).ok) << "strided both ways: copied";
  EXPECT_FALSE(matrix_operand(described(fake, NVOPS_F32, {3, 4}, {2, 1})).ok) << "rows overlap";
  const MatrixOperand one_row = matrix_operand(described(fake, NVOPS_F32, {1, 5}, {99, 1}));
  EXPECT_TRUE(one_row.ok);
  EXPECT_EQ(one_row.leading, 5) << "a single row's stride is never used";
}

}  // namespace
}  // namespace nvops
