// Op calls per device, for the monitor's fallback rate and calls per second
// (torch_fl.monitor, `torch-fl info`): a native kernel counts when it launches (it
// asks for its stream), a CPU fallback when it runs. Always on, so they cost one
// relaxed increment per op: each device's counters sit on their own cache line, so
// threads driving different devices never share one.
#pragma once

#include <c10/core/Device.h>

#include <atomic>
#include <cstdint>

namespace torch_fl {

struct OpCalls {
  uint64_t native = 0;
  uint64_t fallback = 0;
};

namespace op_calls_detail {
constexpr int kMaxDevices = 64;  // more than any driver reports; beyond it calls go uncounted
struct alignas(64) DeviceCounters {
  std::atomic<uint64_t> native{0};
  std::atomic<uint64_t> fallback{0};
};
extern DeviceCounters counters[kMaxDevices];
}  // namespace op_calls_detail

inline void count_native_call(c10::DeviceIndex device) {
  if (device >= 0 && device < op_calls_detail::kMaxDevices) {
    op_calls_detail::counters[device].native.fetch_add(1, std::memory_order_relaxed);
  }
}

inline void count_fallback_call(c10::DeviceIndex device) {
  if (device >= 0 && device < op_calls_detail::kMaxDevices) {
    op_calls_detail::counters[device].fallback.fetch_add(1, std::memory_order_relaxed);
  }
}

// Since the process started (monotonic: readers take differences).
OpCalls op_calls(c10::DeviceIndex device);

}  // namespace torch_fl
