// What a device profiler records of one piece of device work: an SDK call of a
// generated kernel, a copy or a fill. Filled in only while torch.profiler traces
// the device (ProfilerActivity.PrivateUse1); see device_tracer.h.
#pragma once

#include <c10/core/Device.h>

#include <torch_fl/driver_abi.h>

#include <cstdint>

namespace torch_fl {

// The Kineto row kind the work is shown as (CONCURRENT_KERNEL, GPU_MEMCPY, GPU_MEMSET).
enum class DeviceActivityKind : uint8_t { kKernel, kMemcpy, kMemset };

struct DeviceActivity {
  DeviceActivityKind kind = DeviceActivityKind::kKernel;
  c10::DeviceIndex device = 0;
  tflStream stream = nullptr;
  const char* source = nullptr;  // the spec entry of an SDK call: "specs/mlu/nn.yaml:27"
  int64_t bytes = 0;             // a copy's (0: not known)
};

}  // namespace torch_fl
