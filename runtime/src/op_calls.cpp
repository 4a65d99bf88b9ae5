#include "op_calls.h"

namespace torch_fl {

namespace op_calls_detail {
DeviceCounters counters[kMaxDevices];
}  // namespace op_calls_detail

OpCalls op_calls(c10::DeviceIndex device) {
  if (device < 0 || device >= op_calls_detail::kMaxDevices) return {};
  const auto& counters = op_calls_detail::counters[device];
  return {counters.native.load(std::memory_order_relaxed), counters.fallback.load(std::memory_order_relaxed)};
}

}  // namespace torch_fl
