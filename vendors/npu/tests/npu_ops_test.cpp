// The simulated NPU op library's calling convention: the two phases, the
// executor, the workspace, int32 indices, no float64, and the NC1HWC0 layout.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "npu_ops.h"
#include "npu_runtime.h"

namespace {

struct DeviceBuffer {
  explicit DeviceBuffer(size_t bytes) { EXPECT_EQ(npurtMalloc(&ptr, bytes), NPU_SUCCESS); }
  ~DeviceBuffer() { npurtFree(ptr); }
  void* ptr = nullptr;
};

struct Fixture : ::testing::Test {
  void SetUp() override {
    ASSERT_EQ(npurtSetDevice(0), NPU_SUCCESS);
    ASSERT_EQ(npurtCreateStreamWithPriority(&stream, 0), NPU_SUCCESS);
  }
  void TearDown() override { npurtDestroyStream(stream); }

  npuTensor* vector(void* data, int64_t n, npuDataType dtype) {
    const int64_t dims[] = {n}, strides[] = {1};
    return npuCreateTensor(dims, 1, dtype, strides, 0, NPU_FORMAT_ND, data);
  }
  void upload(void* dst, const void* src, size_t bytes) {
    ASSERT_EQ(npurtMemcpy(dst, bytes, src, bytes, NPU_MEMCPY_HOST_TO_DEVICE, stream), NPU_SUCCESS);
  }
  void download(void* dst, const void* src, size_t bytes) {
    ASSERT_EQ(npurtMemcpy(dst, bytes, src, bytes, NPU_MEMCPY_DEVICE_TO_HOST, stream), NPU_SUCCESS);
  }

  npurtStream stream = nullptr;
};

using NpuOps = Fixture;

TEST_F(NpuOps, TwoPhaseCallComputesAndConsumesTheExecutor) {
  DeviceBuffer a(16), b(16), out(16);
  const float x[] = {1, 2, 3, 4}, y[] = {10, 20, 30, 40};
  upload(a.ptr, x, 16);
  upload(b.ptr, y, 16);
  npuTensor *ta = vector(a.ptr, 4, NPU_FLOAT), *tb = vector(b.ptr, 4, NPU_FLOAT), *to = vector(out.ptr, 4, NPU_FLOAT);
  const float one = 1.0f;
  npuScalar* alpha = npuCreateScalar(&one, NPU_FLOAT);
  uint64_t workspace = 99;
  npunnExecutor* executor = nullptr;
  ASSERT_EQ(npunnAddGetWorkspaceSize(ta, tb, alpha, to, &workspace, &executor), NPU_SUCCESS);
  EXPECT_EQ(workspace, 0u);
  // Handles may go as soon as the query returns: the executor keeps what it needs.
  for (npuTensor* t : {ta, tb, to}) npuDestroyTensor(t);
  npuDestroyScalar(alpha);
  ASSERT_EQ(npunnAdd(nullptr, 0, executor, stream), NPU_SUCCESS);
  float result[4] = {};
  download(result, out.ptr, 16);
  EXPECT_EQ(std::vector<float>(result, result + 4), (std::vector<float>{11, 22, 33, 44}));
}

TEST_F(NpuOps, AnExecutorRunsOnlyWithTheOperatorThatMadeIt) {
  DeviceBuffer a(16);
  npuTensor* t = vector(a.ptr, 4, NPU_FLOAT);
  uint64_t workspace = 0;
  npunnExecutor* executor = nullptr;
  ASSERT_EQ(npunnExpGetWorkspaceSize(t, t, &workspace, &executor), NPU_SUCCESS);
  EXPECT_EQ(npunnLog(nullptr, 0, executor, stream), NPU_ERROR_INVALID_PARAM);
  EXPECT_NE(std::string(npurtGetRecentErrMsg()).find("made by npunnExpGetWorkspaceSize"), std::string::npos);
  npuDestroyTensor(t);
}

TEST_F(NpuOps, HalfMatmulNeedsItsFloatWorkspace) {
  DeviceBuffer a(8), b(8), out(8), scratch(64);
  const int64_t dims[] = {2, 2}, strides[] = {2, 1};
  npuTensor* ta = npuCreateTensor(dims, 2, NPU_FLOAT16, strides, 0, NPU_FORMAT_ND, a.ptr);
  npuTensor* tb = npuCreateTensor(dims, 2, NPU_FLOAT16, strides, 0, NPU_FORMAT_ND, b.ptr);
  npuTensor* to = npuCreateTensor(dims, 2, NPU_FLOAT16, strides, 0, NPU_FORMAT_ND, out.ptr);
  uint64_t workspace = 0;
  npunnExecutor* executor = nullptr;
  ASSERT_EQ(npunnMmGetWorkspaceSize(ta, tb, to, &workspace, &executor), NPU_SUCCESS);
  EXPECT_EQ(workspace, 4 * sizeof(float));
  EXPECT_EQ(npunnMm(nullptr, workspace, executor, stream), NPU_ERROR_INVALID_PARAM);
  ASSERT_EQ(npunnMmGetWorkspaceSize(ta, tb, to, &workspace, &executor), NPU_SUCCESS);
  EXPECT_EQ(npunnMm(scratch.ptr, workspace, executor, stream), NPU_SUCCESS);
  EXPECT_EQ(npurtSynchronizeStream(stream), NPU_SUCCESS);
  for (npuTensor* t : {ta, tb, to}) npuDestroyTensor(t);
}

TEST_F(NpuOps, Float64HasNoArithmeticAndIndicesMustBeInt32) {
  DeviceBuffer a(64), idx(32), out(64);
  npuTensor* doubles = vector(a.ptr, 4, NPU_DOUBLE);
  uint64_t workspace = 0;
  npunnExecutor* executor = nullptr;
  EXPECT_EQ(npunnExpGetWorkspaceSize(doubles, doubles, &workspace, &executor), NPU_ERROR_NOT_SUPPORTED);
  EXPECT_NE(std::string(npurtGetRecentErrMsg()).find("Double has no arithmetic units"), std::string::npos);
  npuTensor* table = vector(a.ptr, 4, NPU_FLOAT);
  npuTensor* longs = vector(idx.ptr, 2, NPU_INT64);
  npuTensor* result = vector(out.ptr, 2, NPU_FLOAT);
  EXPECT_EQ(npunnIndexSelectGetWorkspaceSize(table, 0, longs, result, &workspace, &executor), NPU_ERROR_NOT_SUPPORTED);
  EXPECT_NE(std::string(npurtGetRecentErrMsg()).find("must be int32"), std::string::npos);
  for (npuTensor* t : {doubles, table, longs, result}) npuDestroyTensor(t);
}

TEST_F(NpuOps, TransDataBlocksChannelsIntoC0WithZeroPadding) {
  // (N=1, C=3, H=1, W=2) → (1, C1=1, 1, 2, C0=16)
  const float nchw[] = {1, 2, 3, 4, 5, 6};
  DeviceBuffer src(sizeof(nchw)), dst(2 * 16 * sizeof(float));
  upload(src.ptr, nchw, sizeof(nchw));
  const int64_t sdims[] = {1, 3, 1, 2}, sstrides[] = {6, 2, 2, 1};
  const int64_t ddims[] = {1, 1, 1, 2, 16}, dstrides[] = {32, 32, 32, 16, 1};
  npuTensor* s = npuCreateTensor(sdims, 4, NPU_FLOAT, sstrides, 0, NPU_FORMAT_ND, src.ptr);
  npuTensor* d = npuCreateTensor(ddims, 5, NPU_FLOAT, dstrides, 0, NPU_FORMAT_NC1HWC0, dst.ptr);
  uint64_t workspace = 0;
  npunnExecutor* executor = nullptr;
  ASSERT_EQ(npunnTransDataGetWorkspaceSize(s, d, &workspace, &executor), NPU_SUCCESS);
  ASSERT_EQ(npunnTransData(nullptr, workspace, executor, stream), NPU_SUCCESS);
  float blocked[32] = {};
  download(blocked, dst.ptr, sizeof(blocked));
  // w = 0: channels 1, 3, 5 then zeros; w = 1: 2, 4, 6 then zeros.
  const std::vector<float> w0(blocked, blocked + 4), w1(blocked + 16, blocked + 20);
  EXPECT_EQ(w0, (std::vector<float>{1, 3, 5, 0}));
  EXPECT_EQ(w1, (std::vector<float>{2, 4, 6, 0}));
  EXPECT_EQ(blocked[15], 0);
  EXPECT_EQ(blocked[31], 0);
  // A convolution refuses an ND activation.
  npuTensor* out = npuCreateTensor(sdims, 4, NPU_FLOAT, sstrides, 0, NPU_FORMAT_ND, src.ptr);
  EXPECT_EQ(npunnConvolutionGetWorkspaceSize(s, d, nullptr, nullptr, nullptr, nullptr, 1, out, &workspace, &executor),
            NPU_ERROR_INVALID_PARAM);
  EXPECT_NE(std::string(npurtGetRecentErrMsg()).find("input must be in NC1HWC0"), std::string::npos);
  for (npuTensor* t : {s, d, out}) npuDestroyTensor(t);
}

}  // namespace
