// The nvidia op library (vendors/nvidia/sdk/nv_ops.h) without torch: argument
// checks that refuse before any CUDA call (run on any machine), and the kernels'
// defects found by reading (k = 0 products, 0-dim reductions and softmax, float32
// sums of many elements, relu of NaN, copies of every dtype and 12 dims, layer
// norm with float32 weights beside bfloat16 input), which need a GPU.
#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <string>
#include <vector>

#include "descriptors.h"
#include "nv_ops.h"

namespace {

int gpu_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

#define REQUIRE_A_GPU() \
  if (gpu_count() < 1) GTEST_SKIP() << "needs an NVIDIA GPU, this machine has none"

std::string detail() { return nvopsGetLastErrorDetail(); }

// ---- argument checks: before any CUDA call, so on any machine ----------------

TEST(NvOpsArguments, MatmulRefusesOperandsThatDoNotChainNamingItself) {
  char fake[16];
  const nvopsTensor_t a = described(fake, NVOPS_F32, {2, 3}), b = described(fake, NVOPS_F32, {4, 5}),
                      out = described(fake, NVOPS_F32, {2, 5});
  EXPECT_EQ(nvopsMatmul(nullptr, &a, &b, nullptr, 0.0, 1.0, &out), NVOPS_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(detail().find("nvopsMatmul: shapes do not chain"), std::string::npos) << detail();
  const nvopsTensor_t four_d = described(fake, NVOPS_F32, {1, 1, 2, 2});
  EXPECT_EQ(nvopsMatmul(nullptr, &four_d, &four_d, nullptr, 0.0, 1.0, &four_d), NVOPS_ERROR_INVALID_ARGUMENT);
}

TEST(NvOpsArguments, IntegerAndUnknownDtypesAreRefused) {
  char fake[16];
  const nvopsTensor_t f = described(fake, NVOPS_F32, {2}), i = described(fake, NVOPS_I32, {2});
  EXPECT_EQ(nvopsBinary(nullptr, NVOPS_ADD, &f, &i, 1.0, &f), NVOPS_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(nvopsBinaryScalar(nullptr, NVOPS_MUL, &i, 2.0, 1.0, &i), NVOPS_ERROR_NOT_SUPPORTED);
  const nvopsTensor_t unknown = described(fake, NVOPS_INVALID, {2});
  EXPECT_EQ(nvopsCopy(nullptr, &f, &unknown), NVOPS_ERROR_NOT_SUPPORTED);
  EXPECT_NE(detail().find("nvopsCopy"), std::string::npos) << detail();
}

TEST(NvOpsArguments, TheTrainingStepsOpsRefuseBadArgumentsNamingThemselves) {
  char fake[256];
  const nvopsTensor_t x = described(fake, NVOPS_F32, {2, 3}), row = described(fake, NVOPS_F32, {3});
  // lerp takes no third operand, addcmul needs one
  EXPECT_EQ(nvopsTernary(nullptr, NVOPS_LERP, &x, &x, &x, 0.5, &x), NVOPS_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(nvopsTernary(nullptr, NVOPS_ADDCMUL, &x, &x, nullptr, 0.5, &x), NVOPS_ERROR_NOT_SUPPORTED);
  EXPECT_NE(detail().find("nvopsTernary"), std::string::npos) << detail();
  // nll_loss's targets are int64 or uint8, as ATen's: not float, not int32
  const nvopsTensor_t float_target = described(fake, NVOPS_F32, {2}), int_target = described(fake, NVOPS_I32, {2}),
                      scalar = described(fake, NVOPS_F32, {});
  EXPECT_EQ(nvopsNllLoss(nullptr, &x, &float_target, nullptr, 1, -100, &scalar, &scalar), NVOPS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(nvopsNllLoss(nullptr, &x, &int_target, nullptr, 1, -100, &scalar, &scalar), NVOPS_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(detail().find("int64 or uint8 target"), std::string::npos) << detail();
  // sums into an integral result are ATen's cast-then-add: not this kernel's
  const nvopsTensor_t long_result = described(fake, NVOPS_I64, {});
  EXPECT_EQ(nvopsReduceSum(nullptr, &x, nvopsDims_t{}, false, &long_result), NVOPS_ERROR_NOT_SUPPORTED);
  const nvopsTensor_t target = described(fake, NVOPS_I64, {2});
  EXPECT_EQ(nvopsNllLoss(nullptr, &x, &target, nullptr, 3, -100, &scalar, &scalar), NVOPS_ERROR_INVALID_ARGUMENT);
  // cat: an input that does not fit refuses the whole call before any copy
  const nvopsTensor_t parts[2] = {row, described(fake, NVOPS_F32, {4})};
  const nvopsTensor_t joined = described(fake, NVOPS_F32, {6});
  EXPECT_EQ(nvopsCat(nullptr, nvopsTensorList_t{2, parts}, 0, &joined), NVOPS_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(detail().find("do not fill"), std::string::npos) << detail();
  const nvopsTensor_t wrong_rank[2] = {row, x};
  EXPECT_EQ(nvopsCat(nullptr, nvopsTensorList_t{2, wrong_rank}, 0, &joined), NVOPS_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(detail().find("input 1 does not fit"), std::string::npos) << detail();
  // index_select's index is integral; the embedding's gradient is float32 and contiguous
  EXPECT_EQ(nvopsIndexSelect(nullptr, &x, 0, &x, &x), NVOPS_ERROR_INVALID_ARGUMENT);
  const nvopsTensor_t half_grad = described(fake, NVOPS_F16, {2, 3});
  EXPECT_EQ(nvopsEmbeddingBackward(nullptr, &half_grad, &target, -1, &x), NVOPS_ERROR_INVALID_ARGUMENT);
  // softmax backward: gradient and output alike
  const nvopsTensor_t half_x = described(fake, NVOPS_F16, {2, 3});
  EXPECT_EQ(nvopsSoftmaxBackward(nullptr, &half_x, &x, 1, false, &x), NVOPS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(nvopsSoftmaxBackward(nullptr, &x, &x, 2, false, &x), NVOPS_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(detail().find("dim out of range"), std::string::npos) << detail();
  // layer norm backward: mean and rstd of one floating dtype
  const nvopsTensor_t stats = described(fake, NVOPS_F32, {2, 1}), int_stats = described(fake, NVOPS_I32, {2, 1});
  EXPECT_EQ(nvopsLayerNormBackward(nullptr, &x, &x, 1, &stats, &int_stats, nullptr, &x, nullptr, nullptr),
            NVOPS_ERROR_INVALID_ARGUMENT);
  // triangles need 2 dims; arange a real result
  EXPECT_EQ(nvopsTriangle(nullptr, &row, 0, false, &row), NVOPS_ERROR_INVALID_ARGUMENT);
  const nvopsTensor_t complex_result = described(fake, NVOPS_C64, {3});
  EXPECT_EQ(nvopsArange(nullptr, 0.0, 1.0, &complex_result), NVOPS_ERROR_INVALID_ARGUMENT);
}

TEST(NvOpsArguments, MatmulRefusesAnOperandStridedBothWays) {
  char fake[256];
  const nvopsTensor_t a = described(fake, NVOPS_F32, {2, 3}), out = described(fake, NVOPS_F32, {2, 4});
  nvopsTensor_t b = described(fake, NVOPS_F32, {3, 4});
  b.stride[0] = 8, b.stride[1] = 2;  // a view of every other column of every other row
  EXPECT_FALSE(nvopsMatmulTakesOperand(&b));
  EXPECT_EQ(nvopsMatmul(nullptr, &a, &b, nullptr, 0.0, 1.0, &out), NVOPS_ERROR_NOT_SUPPORTED);
  EXPECT_NE(detail().find("row-major or transposed"), std::string::npos) << detail();
  nvopsTensor_t transposed = described(fake, NVOPS_F32, {3, 4});
  transposed.stride[0] = 1, transposed.stride[1] = 3;
  EXPECT_TRUE(nvopsMatmulTakesOperand(&transposed));
}

TEST(NvOpsArguments, ZeroDimSoftmaxAndSumTakeDimZeroOrMinusOneOnly) {
  char fake[16];
  const nvopsTensor_t scalar = described(fake, NVOPS_F32, {});
  nvopsDims_t dim_one{};
  dim_one.count = 1;
  dim_one.dims[0] = 1;
  EXPECT_EQ(nvopsReduceSum(nullptr, &scalar, dim_one, false, &scalar), NVOPS_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(detail().find("dim out of range"), std::string::npos) << detail();
}

TEST(NvOpsArguments, LayerNormRefusesAnIntegerWeightAndAStridedGradient) {
  char fake[64];
  const nvopsTensor_t x = described(fake, NVOPS_BF16, {2, 4});
  const nvopsTensor_t int_weight = described(fake, NVOPS_I32, {4});
  EXPECT_EQ(nvopsLayerNorm(nullptr, &x, 1, &int_weight, nullptr, 1e-5, &x, nullptr, nullptr),
            NVOPS_ERROR_NOT_SUPPORTED);
  EXPECT_NE(detail().find("weight and bias must be floating"), std::string::npos) << detail();
  // A strided weight is read as it is; the gradients it gets are written contiguous.
  const nvopsTensor_t stats = described(fake, NVOPS_F32, {2, 1});
  nvopsTensor_t strided_gradient = described(fake, NVOPS_F32, {4});
  strided_gradient.stride[0] = 2;
  EXPECT_EQ(nvopsLayerNormBackward(nullptr, &x, &x, 1, &stats, &stats, nullptr, nullptr, &strided_gradient, nullptr),
            NVOPS_ERROR_NOT_SUPPORTED);
  EXPECT_NE(detail().find("contiguous floating affine gradients"), std::string::npos) << detail();
}

TEST(NvOpsArguments, DescriptorsHoldTheDriverAbisTwelveDims) { EXPECT_GE(NVOPS_MAX_DIMS, 12); }

// ---- kernels: on a GPU ------------------------------------------------------

// Device memory holding `values`, freed with the test.
template <class T>
struct DeviceArray {
  explicit DeviceArray(const std::vector<T>& values) : count(values.size()) {
    cudaMalloc(&data, std::max<size_t>(1, count) * sizeof(T));
    cudaMemcpy(data, values.data(), count * sizeof(T), cudaMemcpyHostToDevice);
  }
  ~DeviceArray() { cudaFree(data); }
  std::vector<T> read() const {
    std::vector<T> out(count);
    cudaDeviceSynchronize();
    cudaMemcpy(out.data(), data, count * sizeof(T), cudaMemcpyDeviceToHost);
    return out;
  }
  void* data = nullptr;
  size_t count;
};

TEST(NvOpsKernels, ReluOfNanIsNan) {
  REQUIRE_A_GPU();
  DeviceArray<float> x({NAN, -1.f, 2.f}), out({0.f, 0.f, 0.f});
  const nvopsTensor_t xd = described(x.data, NVOPS_F32, {3}), od = described(out.data, NVOPS_F32, {3});
  ASSERT_EQ(nvopsUnary(nullptr, NVOPS_RELU, &xd, &od), NVOPS_SUCCESS) << detail();
  const auto got = out.read();
  EXPECT_TRUE(std::isnan(got[0]));
  EXPECT_EQ(got[1], 0.f);
  EXPECT_EQ(got[2], 2.f);
}

TEST(NvOpsKernels, Float32SumOfTwoToThe25OnesIsExact) {
  REQUIRE_A_GPU();
  DeviceArray<float> ones(std::vector<float>(size_t{1} << 25, 1.f)), sum({0.f});
  const nvopsTensor_t xd = described(ones.data, NVOPS_F32, {int64_t{1} << 25}), od = described(sum.data, NVOPS_F32, {});
  ASSERT_EQ(nvopsReduceSum(nullptr, &xd, nvopsDims_t{}, false, &od), NVOPS_SUCCESS) << detail();
  EXPECT_EQ(sum.read()[0], 33554432.f);  // a serial float32 sum stops at 16777216
}

TEST(NvOpsKernels, ZeroDimSumAndSoftmax) {
  REQUIRE_A_GPU();
  DeviceArray<float> x({3.5f}), out({0.f});
  const nvopsTensor_t xd = described(x.data, NVOPS_F32, {}), od = described(out.data, NVOPS_F32, {});
  nvopsDims_t last{};
  last.count = 1;
  last.dims[0] = -1;
  ASSERT_EQ(nvopsReduceSum(nullptr, &xd, last, false, &od), NVOPS_SUCCESS) << detail();
  EXPECT_EQ(out.read()[0], 3.5f);
  ASSERT_EQ(nvopsSoftmax(nullptr, &xd, 0, false, &od), NVOPS_SUCCESS) << detail();
  EXPECT_EQ(out.read()[0], 1.f);
  ASSERT_EQ(nvopsSoftmax(nullptr, &xd, -1, true, &od), NVOPS_SUCCESS) << detail();
  EXPECT_EQ(out.read()[0], 0.f);
}

TEST(NvOpsKernels, AProductOverZeroElementsIsBetaTimesBiasOrZeros) {
  REQUIRE_A_GPU();
  DeviceArray<float> empty(std::vector<float>{}), bias({1.f, 2.f, 3.f}), out(std::vector<float>(6, -7.f));
  const nvopsTensor_t a = described(empty.data, NVOPS_F32, {2, 0}), b = described(empty.data, NVOPS_F32, {0, 3}),
                      bd = described(bias.data, NVOPS_F32, {3}), od = described(out.data, NVOPS_F32, {2, 3});
  ASSERT_EQ(nvopsMatmul(nullptr, &a, &b, &bd, 0.5, 2.0, &od), NVOPS_SUCCESS) << detail();
  EXPECT_EQ(out.read(), (std::vector<float>{0.5f, 1.f, 1.5f, 0.5f, 1.f, 1.5f}));
  ASSERT_EQ(nvopsMatmul(nullptr, &a, &b, nullptr, 0.0, 1.0, &od), NVOPS_SUCCESS) << detail();
  EXPECT_EQ(out.read(), std::vector<float>(6, 0.f));
}

TEST(NvOpsKernels, CopiesTakeEveryDtypeAndTwelveDims) {
  REQUIRE_A_GPU();
  DeviceArray<double> doubles({1.25, -2.5}), doubles_back({0, 0});
  DeviceArray<int8_t> bytes({0, 0});
  const nvopsTensor_t d = described(doubles.data, NVOPS_F64, {2}), i8 = described(bytes.data, NVOPS_I8, {2}),
                      back = described(doubles_back.data, NVOPS_F64, {2});
  ASSERT_EQ(nvopsCopy(nullptr, &i8, &d), NVOPS_SUCCESS) << detail();
  EXPECT_EQ(bytes.read(), (std::vector<int8_t>{1, -2}));
  ASSERT_EQ(nvopsCopy(nullptr, &back, &d), NVOPS_SUCCESS) << detail();
  EXPECT_EQ(doubles_back.read(), (std::vector<double>{1.25, -2.5}));
  DeviceArray<std::complex<float>> c64(std::vector<std::complex<float>>{{1.f, 2.f}});
  DeviceArray<std::complex<double>> c128(std::vector<std::complex<double>>{{0.0, 0.0}});
  const nvopsTensor_t from = described(c64.data, NVOPS_C64, {1}), to = described(c128.data, NVOPS_C128, {1});
  ASSERT_EQ(nvopsCopy(nullptr, &to, &from), NVOPS_SUCCESS) << detail();
  EXPECT_EQ(c128.read()[0], std::complex<double>(1.0, 2.0));
  std::vector<int64_t> twelve_ones(12, 1);
  twelve_ones[11] = 2;
  DeviceArray<float> src({3.f, 4.f}), dst({0.f, 0.f});
  const nvopsTensor_t s12 = described(src.data, NVOPS_F32, twelve_ones), d12 = described(dst.data, NVOPS_F32, twelve_ones);
  ASSERT_EQ(nvopsCopy(nullptr, &d12, &s12), NVOPS_SUCCESS) << detail();
  EXPECT_EQ(dst.read(), (std::vector<float>{3.f, 4.f}));
}

TEST(NvOpsKernels, LayerNormReadsAFloat32WeightBesideBfloat16Input) {
  REQUIRE_A_GPU();
  std::vector<__nv_bfloat16> x_values;
  for (float v : {1.f, 2.f, 3.f, 4.f}) x_values.push_back(__float2bfloat16(v));
  DeviceArray<__nv_bfloat16> x(x_values), out(std::vector<__nv_bfloat16>(4));
  DeviceArray<float> weight({1.f, 2.f, 3.f, 4.f}), bias({0.5f, 0.5f, 0.5f, 0.5f});
  const nvopsTensor_t xd = described(x.data, NVOPS_BF16, {1, 4}), od = described(out.data, NVOPS_BF16, {1, 4}),
                      wd = described(weight.data, NVOPS_F32, {4}), bd = described(bias.data, NVOPS_F32, {4});
  ASSERT_EQ(nvopsLayerNorm(nullptr, &xd, 1, &wd, &bd, 1e-5, &od, nullptr, nullptr), NVOPS_SUCCESS) << detail();
  const auto got = out.read();
  const float rstd = 1.f / std::sqrt(1.25f + 1e-5f);  // mean 2.5, variance 1.25
  const float expected[] = {-1.5f * rstd * 1 + 0.5f, -0.5f * rstd * 2 + 0.5f, 0.5f * rstd * 3 + 0.5f,
                            1.5f * rstd * 4 + 0.5f};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(__bfloat162float(got[i]), expected[i], 0.05f) << i;
}

// Softmax along a row longer than a warp, over the last dim (coalesced) and over
// dim 0 (strided), and its backward, against the definitions in double.
TEST(NvOpsKernels, SoftmaxAndItsBackwardOnLongRowsAndOtherDims) {
  REQUIRE_A_GPU();
  const int64_t rows = 3, count = 1000;
  std::vector<float> values(rows * count), grads(rows * count);
  for (int64_t i = 0; i < rows * count; ++i) values[i] = std::sin(0.37f * i) * 4.f, grads[i] = std::cos(0.11f * i);
  DeviceArray<float> x(values), y(std::vector<float>(rows * count)), g(grads), dx(std::vector<float>(rows * count));
  for (const int64_t dim : {1, 0}) {
    const int64_t n = dim == 1 ? count : rows, outer = dim == 1 ? rows : count;
    const nvopsTensor_t xd = described(x.data, NVOPS_F32, {rows, count}), yd = described(y.data, NVOPS_F32, {rows, count}),
                        gd = described(g.data, NVOPS_F32, {rows, count}), dd = described(dx.data, NVOPS_F32, {rows, count});
    ASSERT_EQ(nvopsSoftmax(nullptr, &xd, dim, false, &yd), NVOPS_SUCCESS) << detail();
    ASSERT_EQ(nvopsSoftmaxBackward(nullptr, &gd, &yd, dim, false, &dd), NVOPS_SUCCESS) << detail();
    const auto got = y.read(), got_grad = dx.read();
    for (int64_t o = 0; o < outer; ++o) {
      auto at = [&](int64_t j) { return dim == 1 ? o * count + j : j * count + o; };
      double max_value = -INFINITY, sum = 0, dot = 0;
      for (int64_t j = 0; j < n; ++j) max_value = std::max<double>(max_value, values[at(j)]);
      for (int64_t j = 0; j < n; ++j) sum += std::exp(values[at(j)] - max_value);
      for (int64_t j = 0; j < n; ++j) dot += grads[at(j)] * std::exp(values[at(j)] - max_value) / sum;
      for (int64_t j = 0; j < n; ++j) {
        const double p = std::exp(values[at(j)] - max_value) / sum;
        ASSERT_NEAR(got[at(j)], p, 1e-6) << "dim " << dim << " row " << o << " at " << j;
        ASSERT_NEAR(got_grad[at(j)], p * (grads[at(j)] - dot), 1e-6) << "dim " << dim << " row " << o << " at " << j;
      }
    }
  }
}

// A sum over the leading dim keeps neighbouring outputs' inputs side by side: the
// column-tiled kernel (70 outputs: a partial tile), against a sum in double.
TEST(NvOpsKernels, SumOverTheBatchOfABiasGradient) {
  REQUIRE_A_GPU();
  const int64_t rows = 5000, cols = 70;
  std::vector<float> values(rows * cols);
  for (int64_t i = 0; i < rows * cols; ++i) values[i] = std::sin(0.7f * i) + 0.25f;
  DeviceArray<float> x(values), out(std::vector<float>(cols, 0.f)), mean_out(std::vector<float>(cols, 0.f));
  nvopsDims_t first{};
  first.count = 1;
  const nvopsTensor_t xd = described(x.data, NVOPS_F32, {rows, cols}), od = described(out.data, NVOPS_F32, {cols}),
                      md = described(mean_out.data, NVOPS_F32, {cols});
  ASSERT_EQ(nvopsReduceSum(nullptr, &xd, first, false, &od), NVOPS_SUCCESS) << detail();
  ASSERT_EQ(nvopsReduceSum(nullptr, &xd, first, true, &md), NVOPS_SUCCESS) << detail();
  const auto sums = out.read(), means = mean_out.read();
  for (int64_t c = 0; c < cols; ++c) {
    double expected = 0;
    for (int64_t r = 0; r < rows; ++r) expected += values[r * cols + c];
    EXPECT_NEAR(sums[c], expected, 1e-6 * rows) << c;
    EXPECT_NEAR(means[c], expected / rows, 1e-6) << c;
  }
}

// An inf in a column sums to inf, as on CPU: Kahan's compensation must not turn it into NaN.
TEST(NvOpsKernels, AColumnSumWithAnInfinityIsInfinite) {
  REQUIRE_A_GPU();
  std::vector<float> values(21 * 2, 1.f);
  values[0] = INFINITY;
  DeviceArray<float> x(values), out(std::vector<float>(2, 0.f));
  nvopsDims_t first{};
  first.count = 1;
  const nvopsTensor_t xd = described(x.data, NVOPS_F32, {21, 2}), od = described(out.data, NVOPS_F32, {2});
  ASSERT_EQ(nvopsReduceSum(nullptr, &xd, first, false, &od), NVOPS_SUCCESS) << detail();
  const auto got = out.read();
  EXPECT_EQ(got[0], INFINITY);
  EXPECT_EQ(got[1], 21.f);
}

// Two outputs over a million elements each: the two-pass reduction (slices, then
// partials), for a mean and for all() with one zero far into the second output.
TEST(NvOpsKernels, FewOutputsOverManyElementsReduceInTwoPasses) {
  REQUIRE_A_GPU();
  const int64_t count = (int64_t{1} << 20) + 3;
  std::vector<float> values(2 * count);
  for (int64_t i = 0; i < 2 * count; ++i) values[i] = std::cos(0.001f * i) + 2.f;
  values[count + 777777] = 0.f;
  DeviceArray<float> x(values), means(std::vector<float>(2, 0.f));
  DeviceArray<uint8_t> all(std::vector<uint8_t>(2, 0));  // bool elements, one byte each
  nvopsDims_t last{};
  last.count = 1;
  last.dims[0] = 1;
  const nvopsTensor_t xd = described(x.data, NVOPS_F32, {2, count}), md = described(means.data, NVOPS_F32, {2}),
                      ad = described(all.data, NVOPS_BOOL, {2});
  ASSERT_EQ(nvopsReduceSum(nullptr, &xd, last, true, &md), NVOPS_SUCCESS) << detail();
  ASSERT_EQ(nvopsReduceAll(nullptr, &xd, last, &ad), NVOPS_SUCCESS) << detail();
  const auto got = means.read();
  for (int row = 0; row < 2; ++row) {
    double expected = 0;
    for (int64_t i = 0; i < count; ++i) expected += values[row * count + i];
    EXPECT_NEAR(got[row], expected / count, 1e-5) << row;
  }
  const auto flags = all.read();
  EXPECT_EQ(flags[0], 1);
  EXPECT_EQ(flags[1], 0) << "the zero at 777777 of the second row";
}

TEST(NvOpsKernels, NllLossAveragesOverTheWeightsOfTargetsNotIgnored) {
  REQUIRE_A_GPU();
  DeviceArray<float> x({-1.f, -2.f, -3.f, -4.f, -5.f, -6.f}), weight({0.5f, 1.f, 2.f}), loss({0.f}), total({0.f});
  DeviceArray<int64_t> target({2, -100});
  const nvopsTensor_t xd = described(x.data, NVOPS_F32, {2, 3}), td = described(target.data, NVOPS_I64, {2}),
                      wd = described(weight.data, NVOPS_F32, {3}), ld = described(loss.data, NVOPS_F32, {}),
                      totd = described(total.data, NVOPS_F32, {});
  ASSERT_EQ(nvopsNllLoss(nullptr, &xd, &td, &wd, 1, -100, &ld, &totd), NVOPS_SUCCESS) << detail();
  EXPECT_EQ(total.read()[0], 2.f);
  EXPECT_EQ(loss.read()[0], 3.f);  // -(2 * -3) / 2
}

TEST(NvOpsKernels, MatmulOfTransposedOperandsMatchesTheProduct) {
  REQUIRE_A_GPU();
  // a (2 x 3) given as the transpose of a 3 x 2 buffer, b (3 x 2) row-major.
  DeviceArray<float> a_t({1.f, 4.f, 2.f, 5.f, 3.f, 6.f}), b({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}), out(std::vector<float>(4));
  nvopsTensor_t ad = described(a_t.data, NVOPS_F32, {2, 3});
  ad.stride[0] = 1, ad.stride[1] = 2;
  const nvopsTensor_t bd = described(b.data, NVOPS_F32, {3, 2}), od = described(out.data, NVOPS_F32, {2, 2});
  ASSERT_EQ(nvopsMatmul(nullptr, &ad, &bd, nullptr, 0.0, 1.0, &od), NVOPS_SUCCESS) << detail();
  EXPECT_EQ(out.read(), (std::vector<float>{22.f, 28.f, 49.f, 64.f}));  // [[1,2,3],[4,5,6]] @ [[1,2],[3,4],[5,6]]
}

TEST(NvOpsKernels, CallsGoToTheStreamsDeviceWhateverIsCurrent) {
  if (gpu_count() < 2) GTEST_SKIP() << "needs 2 NVIDIA GPUs, this machine has " << gpu_count();
  cudaSetDevice(1);
  cudaStream_t on_one = nullptr;
  cudaStreamCreate(&on_one);
  DeviceArray<float> x({-1.f, 1.f}), out({5.f, 5.f});
  cudaSetDevice(0);  // the stream is device 1's: the op library must switch
  const nvopsTensor_t xd = described(x.data, NVOPS_F32, {2}), od = described(out.data, NVOPS_F32, {2});
  ASSERT_EQ(nvopsUnary(on_one, NVOPS_RELU, &xd, &od), NVOPS_SUCCESS) << detail();
  cudaSetDevice(1);
  EXPECT_EQ(out.read(), (std::vector<float>{0.f, 1.f}));
  cudaStreamDestroy(on_one);
  cudaSetDevice(0);
}

}  // namespace
