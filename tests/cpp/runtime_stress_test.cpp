// Many threads at once on several devices and streams: allocating, running
// ops, copying across devices and to the host, freeing. Results are checked
// exactly. Built also under ThreadSanitizer (make test-sanitize), where a data
// race in the runtime (allocator, stream tables, conversion cache, fallback
// counters) is a failure.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <c10/core/DeviceGuard.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "allocator.h"
#include <torch_fl/device.h>
#include "driver.h"
#include <torch_fl/stream.h>

namespace {

TEST(RuntimeStress, ThreadsOnSeveralStreamsAndDevicesComputeExactly) {
  if (torch_fl::device_count() < 1) {
    GTEST_SKIP() << "needs a " << torch_fl::driver().vendor << " device, this machine has none";
  }
  // Two devices where there are two; on a one-GPU machine the cross-device copy becomes
  // a copy within the device and the threads share it.
  const int devices = std::min<int>(torch_fl::device_count(), 2);
  constexpr int kThreads = 8, kIterations = 40;
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, devices, &mismatches] {
      const c10::DeviceIndex device = static_cast<c10::DeviceIndex>(t % devices);
      const c10::Device here(c10::DeviceType::PrivateUse1, device);
      const c10::Device there(c10::DeviceType::PrivateUse1, static_cast<c10::DeviceIndex>((device + 1) % devices));
      c10::DeviceGuard guard(here);
      // Half the threads on a pool stream of their own, half on the default stream.
      if (t % 4 < 2) torch_fl::exchange_stream(torch_fl::stream_from_pool(device, t % 2 == 0 ? 0 : -1));
      for (int i = 0; i < kIterations; ++i) {
        const int64_t n = 256 + 64 * ((t + i) % 16);
        at::Tensor x = at::arange(n, at::TensorOptions().dtype(at::kFloat)).to(here);
        at::Tensor y = (x * 2.0f + static_cast<float>(t)).sum();  // native kernels on this stream
        at::Tensor moved = x.to(there).to(here);                  // cross-device round trip
        const float expected = static_cast<float>(n * (n - 1) + t * n);
        if (y.item<float>() != expected || !at::equal(moved.cpu(), x.cpu())) ++mismatches;
      }
      torch_fl::synchronize_device(device);
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(mismatches.load(), 0);
  torch_fl::empty_cache();
  for (int device = 0; device < devices; ++device) EXPECT_EQ(torch_fl::memory_stats(device).allocated_bytes, 0);
}

}  // namespace
