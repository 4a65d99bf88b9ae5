// The simulated NPU runtime alone: its conventions (per-thread current device,
// destMax on copies, 512-byte alignment, its status codes), stream order and
// events.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "npu_device.h"
#include "npu_runtime.h"

namespace {

// The chip reads its environment on first use, after this has run.
const bool kEnvironment = setenv("TORCH_FL_NPU_DEVICES", "3", 1) == 0 && setenv("TORCH_FL_NPU_MEMORY_MB", "32", 1) == 0;

TEST(NpuDriver, DeviceCountAndCapacityComeFromTheEnvironment) {
  ASSERT_TRUE(kEnvironment);
  uint32_t count = 0;
  ASSERT_EQ(npurtGetDeviceCount(&count), NPU_SUCCESS);
  EXPECT_EQ(count, 3u);
  ASSERT_EQ(npurtSetDevice(2), NPU_SUCCESS);
  size_t free_bytes = 0, total = 0;
  ASSERT_EQ(npurtGetMemInfo(&free_bytes, &total), NPU_SUCCESS);
  EXPECT_EQ(total, size_t{32} << 20);
  EXPECT_EQ(npurtSetDevice(3), NPU_ERROR_INVALID_DEVICE);
  EXPECT_NE(std::string(npurtGetRecentErrMsg()).find("no device 3"), std::string::npos);
}

TEST(NpuDriver, AllocationsFollowTheThreadsCurrentDevice) {
  ASSERT_EQ(npurtSetDevice(1), NPU_SUCCESS);
  void* on_one = nullptr;
  ASSERT_EQ(npurtMalloc(&on_one, 1000), NPU_SUCCESS);
  int32_t device = -1;
  std::thread other([&] {
    // A new thread starts on device 0, whatever other threads selected.
    void* on_zero = nullptr;
    ASSERT_EQ(npurtMalloc(&on_zero, 1000), NPU_SUCCESS);
    ASSERT_EQ(npurtPointerGetDevice(on_zero, &device), NPU_SUCCESS);
    npurtFree(on_zero);
  });
  other.join();
  EXPECT_EQ(device, 0);
  ASSERT_EQ(npurtPointerGetDevice(on_one, &device), NPU_SUCCESS);
  EXPECT_EQ(device, 1);
  EXPECT_EQ(npurtFree(on_one), NPU_SUCCESS);
}

TEST(NpuDriver, AllocationsAreAlignedTo512Bytes) {
  ASSERT_EQ(npurtSetDevice(0), NPU_SUCCESS);
  std::vector<void*> ptrs;
  for (size_t bytes : {1, 511, 512, 513, 70000}) {
    void* p = nullptr;
    ASSERT_EQ(npurtMalloc(&p, bytes), NPU_SUCCESS);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % NPU_MEMORY_ALIGNMENT, 0u) << bytes;
    ptrs.push_back(p);
  }
  // 512-byte granularity, not the MLU's 64 KiB: neighbours are close.
  EXPECT_LT(reinterpret_cast<uintptr_t>(ptrs[1]) - reinterpret_cast<uintptr_t>(ptrs[0]), 4096u);
  for (void* p : ptrs) EXPECT_EQ(npurtFree(p), NPU_SUCCESS);
}

TEST(NpuDriver, ExhaustionIsBadAllocAndForeignPointersAreRejected) {
  ASSERT_EQ(npurtSetDevice(0), NPU_SUCCESS);
  void* p = nullptr;
  EXPECT_EQ(npurtMalloc(&p, size_t{64} << 20), NPU_ERROR_BAD_ALLOC);
  EXPECT_NE(std::string(npurtGetRecentErrMsg()).find("the largest free block is"), std::string::npos);
  int host = 0;
  EXPECT_EQ(npurtFree(&host), NPU_ERROR_INVALID_ADDRESS);
  EXPECT_STREQ(npurtGetErrorName(NPU_ERROR_BAD_ALLOC), "NPU_ERROR_BAD_ALLOC: device memory allocation failed");
}

TEST(NpuDriver, CopiesCheckDestMaxAndRoundTrip) {
  ASSERT_EQ(npurtSetDevice(0), NPU_SUCCESS);
  npurtStream stream = nullptr;
  ASSERT_EQ(npurtCreateStreamWithPriority(&stream, 0), NPU_SUCCESS);
  void* dev = nullptr;
  ASSERT_EQ(npurtMalloc(&dev, 4096), NPU_SUCCESS);
  std::vector<uint8_t> in(4096), out(4096, 0);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint8_t>(i * 7);
  EXPECT_EQ(npurtMemcpyAsync(dev, 100, in.data(), 4096, NPU_MEMCPY_HOST_TO_DEVICE, stream), NPU_ERROR_INVALID_PARAM);
  EXPECT_NE(std::string(npurtGetRecentErrMsg()).find("exceeds destMax"), std::string::npos);
  ASSERT_EQ(npurtMemcpyAsync(dev, 4096, in.data(), 4096, NPU_MEMCPY_HOST_TO_DEVICE, stream), NPU_SUCCESS);
  std::fill(in.begin(), in.end(), 0);  // staged: the caller may reuse its buffer at once
  ASSERT_EQ(npurtMemcpyAsync(out.data(), 4096, dev, 4096, NPU_MEMCPY_DEVICE_TO_HOST, stream), NPU_SUCCESS);
  ASSERT_EQ(npurtSynchronizeStream(stream), NPU_SUCCESS);
  for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], static_cast<uint8_t>(i * 7)) << i;
  npurtFree(dev);
  npurtDestroyStream(stream);
}

TEST(NpuDriver, AnEventOrdersWorkAcrossStreams) {
  ASSERT_EQ(npurtSetDevice(0), NPU_SUCCESS);
  npurtStream producer = nullptr, consumer = nullptr;
  ASSERT_EQ(npurtCreateStreamWithPriority(&producer, 0), NPU_SUCCESS);
  ASSERT_EQ(npurtCreateStreamWithPriority(&consumer, 0), NPU_SUCCESS);
  npurtEvent done = nullptr;
  ASSERT_EQ(npurtCreateEvent(&done), NPU_SUCCESS);
  std::atomic<int> value{0};
  int seen = -1;
  npu_sim::chip().enqueue(*producer->work, [&]() -> std::string {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    value = 42;
    return "";
  });
  ASSERT_EQ(npurtRecordEvent(done, producer), NPU_SUCCESS);
  ASSERT_EQ(npurtStreamWaitEvent(consumer, done), NPU_SUCCESS);
  npu_sim::chip().enqueue(*consumer->work, [&]() -> std::string {
    seen = value;
    return "";
  });
  ASSERT_EQ(npurtSynchronizeStream(consumer), NPU_SUCCESS);
  EXPECT_EQ(seen, 42);
  int32_t complete = 0;
  ASSERT_EQ(npurtQueryEvent(done, &complete), NPU_SUCCESS);
  EXPECT_EQ(complete, 1);
  npurtDestroyEvent(done);
  npurtDestroyStream(producer);
  npurtDestroyStream(consumer);
}

TEST(NpuDriver, AFailedTaskSurfacesAtTheNextSynchronisation) {
  ASSERT_EQ(npurtSetDevice(0), NPU_SUCCESS);
  npurtStream stream = nullptr;
  ASSERT_EQ(npurtCreateStreamWithPriority(&stream, 0), NPU_SUCCESS);
  npu_sim::chip().enqueue(*stream->work, [] { return std::string("npunnSomething: index out of range"); });
  EXPECT_EQ(npurtSynchronizeStream(stream), NPU_ERROR_EXECUTION);
  EXPECT_NE(std::string(npurtGetRecentErrMsg()).find("index out of range"), std::string::npos);
  EXPECT_EQ(npurtSynchronizeStream(stream), NPU_SUCCESS);  // reported once
  npurtDestroyStream(stream);
}

}  // namespace
