// The op library alone (no torch): each kernel path against a host reference,
// on descriptors that name buffers with interior offsets and strides.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <numeric>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "ocl_copy.h"
#include "ocl_memory.h"
#include "ocl_ops.h"
#include "ocl_test_support.h"

namespace torch_fl::ocl {
namespace {

using testing::OclTest;

class OclOpsTest : public OclTest {
 protected:
  void TearDown() override {
    for (void* address : owned_) release(address);
  }
  // Device memory holding `values`, described from element `offset` with `shape` and `strides`.
  oclopsTensor_t upload(const std::vector<float>& values, std::vector<int64_t> shape, std::vector<int64_t> strides,
                        int64_t offset = 0) {
    void* address = nullptr;
    EXPECT_EQ(allocate(0, values.size() * sizeof(float), &address), kSuccess) << last_detail();
    owned_.push_back(address);
    EXPECT_EQ(write(*stream_, address, values.data(), values.size() * sizeof(float), HostSource::kStaged), kSuccess);
    Resolved resolved;
    address_space().resolve(address, &resolved);
    oclopsTensor_t t{};
    t.buffer = resolved.buffer;
    t.offset = offset;
    t.dtype = ElementType::kF32;
    t.dim = static_cast<int32_t>(shape.size());
    for (size_t d = 0; d < shape.size(); ++d) t.shape[d] = shape[d], t.stride[d] = strides[d];
    buffers_[t.buffer] = address;
    return t;
  }
  std::vector<float> download(const oclopsTensor_t& t, size_t count) {
    std::vector<float> values(count);
    EXPECT_EQ(read(*stream_, values.data(), buffers_[t.buffer], count * sizeof(float)), kSuccess);
    EXPECT_EQ(stream_->synchronize(), kSuccess) << last_detail();
    return values;
  }

  std::vector<void*> owned_;
  std::map<cl_mem, void*> buffers_;
};

TEST_F(OclOpsTest, AddBroadcastsARowWithAlphaFromInteriorOffsets) {
  const oclopsTensor_t a = upload({9, 1, 2, 3, 4, 5, 6}, {2, 3}, {3, 1}, /*offset=*/1);
  const oclopsTensor_t b = upload({10, 20, 30}, {3}, {1});
  const oclopsTensor_t out = upload(std::vector<float>(6, 0), {2, 3}, {3, 1});
  ASSERT_EQ(oclopsBinary(stream_.get(), OCLOPS_ADD, &a, &b, oclopsScalar_t{0.5, 0, true}, &out), OCLOPS_SUCCESS)
      << oclopsGetLastErrorDetail();
  EXPECT_EQ(download(out, 6), (std::vector<float>{6, 12, 18, 9, 15, 21}));
}

TEST_F(OclOpsTest, ReluNegAndFillWriteStridedOutputs) {
  const oclopsTensor_t a = upload({-1, 2, -3, NAN}, {4}, {1});
  const oclopsTensor_t out = upload(std::vector<float>(8, 7), {4}, {2});  // every other element
  ASSERT_EQ(oclopsUnary(stream_.get(), OCLOPS_RELU, &a, &out), OCLOPS_SUCCESS) << oclopsGetLastErrorDetail();
  const std::vector<float> relu = download(out, 8);
  EXPECT_EQ(relu[0], 0);
  EXPECT_EQ(relu[1], 7);
  EXPECT_EQ(relu[2], 2);
  EXPECT_TRUE(std::isnan(relu[6]));
  ASSERT_EQ(oclopsFill(stream_.get(), &out, oclopsScalar_t{-2.5, -2, true}), OCLOPS_SUCCESS);
  EXPECT_EQ(download(out, 8), (std::vector<float>{-2.5, 7, -2.5, 7, -2.5, 7, -2.5, 7}));
}

TEST_F(OclOpsTest, SumReducesChosenDimsOfATransposedView) {
  std::vector<float> values(24);
  std::iota(values.begin(), values.end(), 0.0f);
  const oclopsTensor_t a = upload(values, {4, 3, 2}, {1, 8, 4});  // a permuted view of (3, 2, 4)
  const oclopsTensor_t out = upload(std::vector<float>(4, 0), {4}, {1});
  oclopsDims_t dims{2, {1, -1}};
  ASSERT_EQ(oclopsReduceSum(stream_.get(), &a, dims, /*keepdim=*/false, &out), OCLOPS_SUCCESS)
      << oclopsGetLastErrorDetail();
  std::vector<float> expected(4, 0);
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 3; ++j) {
      for (int k = 0; k < 2; ++k) expected[static_cast<size_t>(i)] += values[static_cast<size_t>(i + 8 * j + 4 * k)];
    }
  }
  EXPECT_EQ(download(out, 4), expected);
  dims.count = 0;  // every dim
  const oclopsTensor_t total = upload({0}, {}, {});
  ASSERT_EQ(oclopsReduceSum(stream_.get(), &a, dims, false, &total), OCLOPS_SUCCESS) << oclopsGetLastErrorDetail();
  EXPECT_EQ(download(total, 1)[0], 276.0f);
}

TEST_F(OclOpsTest, GemmTakesATransposedOperandOffsetsAndABroadcastBias) {
  // a = [[1, 2], [3, 4], [5, 6]] (3x2) stored column-major after one padding element.
  const oclopsTensor_t a = upload({0, 1, 3, 5, 2, 4, 6}, {3, 2}, {1, 3}, /*offset=*/1);
  const oclopsTensor_t b = upload({1, 0, -1, 2, 1, 0}, {2, 3}, {3, 1});
  const oclopsTensor_t bias = upload({100, 200, 300}, {3}, {1});
  const oclopsTensor_t out = upload(std::vector<float>(9, 0), {3, 3}, {3, 1});
  EXPECT_TRUE(oclopsGemmTakesOperand(&a));
  ASSERT_EQ(oclopsGemm(stream_.get(), &a, &b, &bias, oclopsScalar_t{1.0, 1, false}, oclopsScalar_t{2.0, 2, false}, &out),
            OCLOPS_SUCCESS)
      << oclopsGetLastErrorDetail();
  // a @ b = [[5, 2, -1], [11, 4, -3], [17, 6, -5]]
  EXPECT_EQ(download(out, 9), (std::vector<float>{110, 204, 298, 122, 208, 294, 134, 212, 290}));
}

TEST_F(OclOpsTest, ClampKeepsNaNAndTakesAnAbsentBoundAsUnbounded) {
  const oclopsTensor_t a = upload({-5, 0.25f, 7, NAN}, {4}, {1});
  const oclopsTensor_t out = upload(std::vector<float>(4, 0), {4}, {1});
  const oclopsScalar_t lower{-1.0, -1, false}, above{INFINITY, INT64_MAX, false}, none{0.0, 0, false};
  ASSERT_EQ(oclopsUnaryParams(stream_.get(), OCLOPS_CLAMP, &a, lower, above, none, &out), OCLOPS_SUCCESS)
      << oclopsGetLastErrorDetail();
  const std::vector<float> clamped = download(out, 4);
  EXPECT_EQ(clamped[0], -1);
  EXPECT_EQ(clamped[1], 0.25f);
  EXPECT_EQ(clamped[2], 7);
  EXPECT_TRUE(std::isnan(clamped[3]));
}

TEST_F(OclOpsTest, ComparisonWithAScalarReadsAStridedColumn) {
  const oclopsTensor_t a = upload({1, 9, 2, 9, 3, 9}, {3}, {2});  // every other element
  const oclopsTensor_t out = upload(std::vector<float>(3, 7), {3}, {1});
  ASSERT_EQ(oclopsBinaryScalar(stream_.get(), OCLOPS_GE, &a, oclopsScalar_t{2.0, 2, false}, oclopsScalar_t{1.0, 1, false},
                               &out),
            OCLOPS_SUCCESS)
      << oclopsGetLastErrorDetail();
  EXPECT_EQ(download(out, 3), (std::vector<float>{0, 1, 1}));
}

TEST_F(OclOpsTest, TernaryBroadcastsItsThirdOperandAndWhereSelects) {
  const oclopsTensor_t self = upload({1, 2, 3, 4, 5, 6}, {2, 3}, {3, 1});
  const oclopsTensor_t t1 = upload({2, 2, 2, 2, 2, 2}, {2, 3}, {3, 1});
  const oclopsTensor_t column = upload({10, 100}, {2, 1}, {1, 1});  // broadcast along dim 1
  const oclopsTensor_t out = upload(std::vector<float>(6, 0), {2, 3}, {3, 1});
  ASSERT_EQ(oclopsTernary(stream_.get(), OCLOPS_ADDCMUL, &self, &t1, &column, oclopsScalar_t{0.5, 0, true}, &out),
            OCLOPS_SUCCESS)
      << oclopsGetLastErrorDetail();
  EXPECT_EQ(download(out, 6), (std::vector<float>{11, 12, 13, 104, 105, 106}));
  const oclopsTensor_t condition = upload({1, 0, 1}, {3}, {1});  // a float condition: nonzero is true
  ASSERT_EQ(oclopsTernary(stream_.get(), OCLOPS_WHERE, &condition, &self, &column, oclopsScalar_t{0.0, 0, false}, &out),
            OCLOPS_SUCCESS)
      << oclopsGetLastErrorDetail();
  EXPECT_EQ(download(out, 6), (std::vector<float>{1, 10, 3, 4, 100, 6}));
}

TEST_F(OclOpsTest, MaxOfEachRowTakesTheFirstNaNAndItsIndex) {
  const oclopsTensor_t a = upload({1, 2, 5, 5, 3, NAN, NAN}, {2, 3}, {3, 1}, /*offset=*/1);  // rows [2 5 5], [3 nan nan]
  const oclopsTensor_t values = upload(std::vector<float>(2, 0), {2}, {1});
  const oclopsTensor_t indices_as_float = upload(std::vector<float>(4, 0), {2}, {1});  // room for two int64
  oclopsTensor_t indices = indices_as_float;
  indices.dtype = ElementType::kI64;
  oclopsDims_t dims{1, {1}};
  ASSERT_EQ(oclopsReduceIndex(stream_.get(), OCLOPS_ARGMAX, &a, dims, false, &values, &indices), OCLOPS_SUCCESS)
      << oclopsGetLastErrorDetail();
  const std::vector<float> max = download(values, 2);
  EXPECT_EQ(max[0], 5);
  EXPECT_TRUE(std::isnan(max[1]));
  std::vector<int64_t> where(2);
  ASSERT_EQ(read(*stream_, where.data(), buffers_[indices.buffer], sizeof(int64_t) * 2), kSuccess);
  ASSERT_EQ(stream_->synchronize(), kSuccess);
  EXPECT_EQ(where, (std::vector<int64_t>{1, 1}));
}

TEST_F(OclOpsTest, SoftmaxAlongAStridedDimSumsToOne) {
  const oclopsTensor_t a = upload({0, 1, 2, 3, 4, 5}, {3, 2}, {1, 3});  // a transposed (2, 3)
  const oclopsTensor_t out = upload(std::vector<float>(6, 0), {3, 2}, {2, 1});
  ASSERT_EQ(oclopsSoftmax(stream_.get(), OCLOPS_SOFTMAX, &a, 0, &out), OCLOPS_SUCCESS) << oclopsGetLastErrorDetail();
  const std::vector<float> p = download(out, 6);
  const float z = 1 + std::exp(1.0f) + std::exp(2.0f);
  for (int row = 0; row < 3; ++row) {
    EXPECT_NEAR(p[static_cast<size_t>(row * 2)], std::exp(static_cast<float>(row)) / z, 1e-6);
    EXPECT_NEAR(p[static_cast<size_t>(row * 2 + 1)], std::exp(static_cast<float>(row)) / z, 1e-6);
  }
}

TEST_F(OclOpsTest, LayerNormNormalisesEachRowAndReportsItsStatistics) {
  const oclopsTensor_t x = upload({1, 2, 3, 10, 10, 10}, {2, 3}, {3, 1});
  const oclopsTensor_t out = upload(std::vector<float>(6, 0), {2, 3}, {3, 1});
  const oclopsTensor_t mean = upload(std::vector<float>(2, 0), {2, 1}, {1, 1});
  const oclopsTensor_t rstd = upload(std::vector<float>(2, 0), {2, 1}, {1, 1});
  ASSERT_EQ(oclopsLayerNorm(stream_.get(), &x, 1, nullptr, nullptr, 0.0, &out, &mean, &rstd), OCLOPS_SUCCESS)
      << oclopsGetLastErrorDetail();
  const std::vector<float> y = download(out, 6);
  const float r = 1.0f / std::sqrt(2.0f / 3.0f);
  EXPECT_NEAR(y[0], -r, 1e-6);
  EXPECT_NEAR(y[1], 0, 1e-6);
  EXPECT_NEAR(y[2], r, 1e-6);
  EXPECT_EQ(download(mean, 2), (std::vector<float>{2, 10}));
  EXPECT_TRUE(std::isinf(download(rstd, 2)[1]));  // a constant row without eps
}

// The child's side of the test below: `threads` threads, spread over every device, each
// with its own stream and operands, make the process's first GEMMs at the same moment.
// Each product is of small integers, so exact; a failure is reported with its thread.
std::vector<std::string> first_gemms_at_once(int threads) {
  Platform* platform = nullptr;
  if (Platform::get(&platform) != kSuccess) return {"Platform::get: " + std::string(last_detail())};
  constexpr int64_t m = 16, k = 12, n = 8;
  std::mutex mutex;
  std::vector<std::string> errors;
  const auto report = [&](int thread, const std::string& what) {
    std::lock_guard<std::mutex> lock(mutex);
    errors.push_back("thread " + std::to_string(thread) + ": " + what);
  };
  std::atomic<int> ready{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      const int32_t device = t % platform->device_count();
      std::vector<float> a(m * k), b(k * n), expected(m * n, 0), got(m * n, -1);
      for (int64_t i = 0; i < m * k; ++i) a[i] = static_cast<float>((i + t) % 7 - 3);
      for (int64_t i = 0; i < k * n; ++i) b[i] = static_cast<float>((i * 3 + t) % 5 - 2);
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          for (int64_t l = 0; l < k; ++l) expected[i * n + j] += a[i * k + l] * b[l * n + j];
        }
      }
      // a, b and out in one allocation, row-major, from elements 0, m*k and m*k + k*n.
      const int64_t out_at = m * k + k * n;
      Stream* created = nullptr;
      bool ok = Stream::create(device, &created) == kSuccess;
      std::unique_ptr<Stream> stream(created);
      void* address = nullptr;
      Resolved resolved;
      ok = ok && allocate(device, (a.size() + b.size() + got.size()) * sizeof(float), &address) == kSuccess &&
           write(*stream, address, a.data(), a.size() * sizeof(float), HostSource::kWaited) == kSuccess &&
           write(*stream, static_cast<float*>(address) + m * k, b.data(), b.size() * sizeof(float),
                 HostSource::kWaited) == kSuccess &&
           address_space().resolve(address, &resolved);
      if (!ok) report(t, last_detail());
      const auto matrix = [&](int64_t offset, int64_t rows, int64_t cols) {
        oclopsTensor_t tensor{};
        tensor.buffer = resolved.buffer;
        tensor.offset = offset;
        tensor.dtype = ElementType::kF32;
        tensor.dim = 2;
        tensor.shape[0] = rows, tensor.shape[1] = cols;
        tensor.stride[0] = cols, tensor.stride[1] = 1;
        return tensor;
      };
      const oclopsTensor_t ta = matrix(0, m, k), tb = matrix(m * k, k, n), tout = matrix(out_at, m, n);
      ready.fetch_add(1);
      while (ready.load() < threads) std::this_thread::yield();  // every thread's first GEMM at once
      if (ok) {
        if (oclopsGemm(stream.get(), &ta, &tb, nullptr, oclopsScalar_t{0.0, 0, false}, oclopsScalar_t{1.0, 1, false},
                       &tout) != OCLOPS_SUCCESS) {
          report(t, std::string("oclopsGemm: ") + oclopsGetLastErrorDetail());
        } else if (read(*stream, got.data(), static_cast<float*>(address) + out_at, got.size() * sizeof(float)) !=
                       kSuccess ||
                   stream->synchronize() != kSuccess) {
          report(t, last_detail());
        } else if (got != expected) {
          report(t, "a wrong product");
        }
      }
      if (address) release(address);
    });
  }
  for (std::thread& worker : workers) worker.join();
  return errors;
}

// CLBlast fills a static table at its first call with no lock (ocl_gemm.cpp): only a
// process's first GEMMs can race on it, and two at once crashed nn.DataParallel's replicas
// now and then (SIGSEGV, or std::bad_alloc). So each round runs this test again in a fresh
// process (this binary, filtered to it, with TORCH_FL_TEST_FIRST_GEMMS set), where eight
// threads make their first GEMMs at once; a round that crashes or computes wrong fails it.
// Without the guard about one round in ten died (SIGSEGV, or an abort on a corrupt
// std::string): 30 rounds of about a tenth of a second each catch it nearly always.
TEST(OclGemmThreads, TheProcesssFirstGemmsFromManyThreadsAtOnceAreExactInEveryFreshProcess) {
  constexpr int kThreads = 8, kRounds = 30;
  if (std::getenv("TORCH_FL_TEST_FIRST_GEMMS")) {
    for (const std::string& error : first_gemms_at_once(kThreads)) ADD_FAILURE() << error;
    return;
  }
  Platform* platform = nullptr;
  ASSERT_OCL_OK(Platform::get(&platform));
  if (platform->device_count() == 0) GTEST_SKIP() << "no OpenCL device on this machine";
  const std::string self = "/proc/self/exe";
  const std::string filter = std::string("--gtest_filter=") +
                             ::testing::UnitTest::GetInstance()->current_test_info()->test_suite_name() + "." +
                             ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::vector<std::string> environment{"TORCH_FL_TEST_FIRST_GEMMS=1"};
  for (char** variable = environ; *variable; ++variable) environment.emplace_back(*variable);
  std::vector<char*> envp;
  for (std::string& variable : environment) envp.push_back(variable.data());
  envp.push_back(nullptr);
  for (int round = 0; round < kRounds; ++round) {
    // The child's output goes to a file, shown only when its round fails.
    char log[] = "/tmp/torch_fl_first_gemms_XXXXXX";
    const int fd = mkstemp(log);
    ASSERT_GE(fd, 0) << "mkstemp";
    close(fd);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log, O_WRONLY | O_TRUNC, 0);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    std::string program = self, argument = filter;
    char* argv[] = {program.data(), argument.data(), nullptr};
    pid_t child = 0;
    const int spawned = posix_spawn(&child, self.c_str(), &actions, nullptr, argv, envp.data());
    posix_spawn_file_actions_destroy(&actions);
    ASSERT_EQ(spawned, 0) << "posix_spawn " << self;
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    std::stringstream output;
    output << std::ifstream(log).rdbuf();
    unlink(log);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "round " << round << ": the child "
        << (WIFSIGNALED(status) ? "was killed by signal " + std::to_string(WTERMSIG(status))
                                : "exited with status " + std::to_string(WEXITSTATUS(status)))
        << "; its output:\n"
        << output.str();
  }
}

}  // namespace
}  // namespace torch_fl::ocl
