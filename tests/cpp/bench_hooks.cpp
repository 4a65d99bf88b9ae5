// Timing hooks for bench/runtime_bench.py, kept out of the production C API:
// a small shared library over the backend, loaded by the benchmark through ctypes.
#include <chrono>
#include <cstdint>
#include <exception>

#include "allocator.h"
#include <torch_fl/device.h>

extern "C" {

// Mean nanoseconds of one allocate+free pair of `bytes` through the caching
// allocator on `device`, after one warm-up pair fills the cache. 0 or -1.
int tfl_bench_alloc_free(int device, uint64_t bytes, int64_t iterations, double* ns_per_pair) {
  try {
    const torch_fl::DeviceGuard guard(torch_fl::make_device(static_cast<c10::DeviceIndex>(device)));
    c10::Allocator* allocator = torch_fl::device_allocator();
    { c10::DataPtr warm = allocator->allocate(bytes); }
    const auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < iterations; ++i) {
      c10::DataPtr block = allocator->allocate(bytes);
    }
    const auto elapsed = std::chrono::steady_clock::now() - start;
    *ns_per_pair = std::chrono::duration<double, std::nano>(elapsed).count() / static_cast<double>(iterations);
    return 0;
  } catch (const std::exception&) {
    return -1;
  }
}

}  // extern "C"
