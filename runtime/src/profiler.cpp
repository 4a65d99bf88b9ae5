// The device in PyTorch's profiler. PyTorch 2.13 profiles a PrivateUse1 device
// through ProfilerStubs (the legacy path: `torch.autograd.profiler.profile(
// use_device="<device>")`, state KINETO_PRIVATEUSE1_FALLBACK): at the start and end
// of every range it asks the stubs for a device event on the current stream and the
// CPU time, then reads the elapsed device time between the two events. Without
// stubs it logs "PrivateUse1 used in profiler but not enabled" for every op and
// reports garbage times. The ranges inside an op (SDK calls, copies, fallbacks) are
// ProfilerRange (profiler_range.h).
#include <c10/util/ApproximateClock.h>
#include <torch/csrc/profiler/stubs/base.h>

#include <torch_fl/device.h>
#include "driver.h"
#include <torch_fl/stream.h>

#include <memory>

namespace torch_fl {
namespace {

using torch::profiler::impl::ProfilerVoidEventStub;

tflEvent as_event(const ProfilerVoidEventStub& stub) { return static_cast<tflEvent>(stub.get()); }

struct DeviceProfilerStubs final : torch::profiler::impl::ProfilerStubs {
  void record(c10::DeviceIndex* device, ProfilerVoidEventStub* event, int64_t* cpu_ns) const override {
    const c10::DeviceIndex index = current_device();
    if (device != nullptr) *device = index;
    tflEvent created = nullptr;
    TORCH_FL_DRIVER_CHECK(driver().event_create(index, &created));
    *event = std::shared_ptr<void>(created, [](void* e) { driver().event_destroy(static_cast<tflEvent>(e)); });
    if (cpu_ns != nullptr) *cpu_ns = c10::getTime();
    TORCH_FL_DRIVER_CHECK(driver().event_record(created, current_driver_stream(index)));
  }

  // Microseconds, as the CUDA stubs return them.
  float elapsed(const ProfilerVoidEventStub* start, const ProfilerVoidEventStub* end) const override {
    TORCH_FL_DRIVER_CHECK(driver().event_synchronize(as_event(*end)));
    float ms = 0;
    TORCH_FL_DRIVER_CHECK(driver().event_elapsed_ms(as_event(*start), as_event(*end), &ms));
    return ms * 1000.0f;
  }

  // Markers and push/pop ranges are a tracing tool's (NVTX, ITT): the chips have none.
  void mark(const char*) const override {}
  void rangePush(const char*) const override {}
  void rangePop() const override {}

  bool enabled() const override { return true; }

  void onEachDevice(std::function<void(int)> op) const override {
    for (c10::DeviceIndex index = 0; index < device_count(); ++index) {
      const DeviceGuard guard(c10::Device(c10::DeviceType::PrivateUse1, index));
      op(index);
    }
  }

  void synchronize() const override {
    for (c10::DeviceIndex index = 0; index < device_count(); ++index) synchronize_device(index);
  }
};

// Registered when the backend library loads, like its kernels.
const bool registered = [] {
  static DeviceProfilerStubs stubs;
  torch::profiler::impl::registerPrivateUse1Methods(&stubs);
  return true;
}();

}  // namespace
}  // namespace torch_fl
