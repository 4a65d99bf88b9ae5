// The c10 DeviceGuardImpl that lets PyTorch (c10::DeviceGuard, torch.Stream,
// torch.Event, torch.accelerator) drive the device.
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/util/Exception.h>

#include "allocator.h"
#include <torch_fl/device.h>
#include "driver.h"
#include <torch_fl/stream.h>

namespace torch_fl {
namespace {

tflEvent as_event(void* event) { return static_cast<tflEvent>(event); }

struct GuardImpl final : public c10::impl::DeviceGuardImplInterface {
  static constexpr c10::DeviceType kType = c10::DeviceType::PrivateUse1;

  c10::DeviceType type() const override { return kType; }

  c10::Device exchangeDevice(c10::Device device) const override {
    const c10::Device previous = getDevice();
    if (device.index() != previous.index()) set_current_device(device.index());
    return previous;
  }
  c10::Device getDevice() const override { return make_device(current_device()); }
  void setDevice(c10::Device device) const override { set_current_device(device.index()); }
  void uncheckedSetDevice(c10::Device device) const noexcept override { set_current_device_unchecked(device.index()); }

  c10::Stream getStream(c10::Device device) const override { return current_stream(device.index()); }
  c10::Stream getDefaultStream(c10::Device device) const override { return default_stream(device.index()); }
  c10::Stream getStreamFromGlobalPool(c10::Device device, bool high_priority) const override {
    return stream_from_pool(device.index(), high_priority ? -1 : 0);
  }
  c10::Stream getNewStream(c10::Device device, int priority) const override {
    return stream_from_pool(device.index(), priority);
  }
  c10::Stream exchangeStream(c10::Stream stream) const override { return exchange_stream(stream); }

  // The dtypes tensors can have on the device and be copied between (what the
  // driver's copies move), for torch.accelerator.get_device_capability().
  c10::DeviceCapability getDeviceCapability(c10::Device) const override {
    c10::DeviceCapability capability;
    capability.capability_data.capability_bits = 0;
    auto& dtypes = capability.capability_data.supported_scalar_types;
    dtypes.has_Bool = dtypes.has_Byte = dtypes.has_Char = dtypes.has_Short = dtypes.has_Int = dtypes.has_Long = 1;
    dtypes.has_Half = dtypes.has_BFloat16 = dtypes.has_Float = dtypes.has_Double = 1;
    dtypes.has_ComplexHalf = dtypes.has_ComplexFloat = dtypes.has_ComplexDouble = 1;
    // Quantized tensors (quantized_ops.cpp): quantized and dequantized by device ops.
    dtypes.has_QInt8 = dtypes.has_QUInt8 = dtypes.has_QInt32 = dtypes.has_QUInt4x2 = dtypes.has_QUInt2x4 = 1;
    return capability;
  }

  c10::DeviceIndex deviceCount() const noexcept override {
    try {
      return device_count();
    } catch (const c10::Error&) {
      return 0;  // noexcept here; the reason is raised by every other use of the device
    }
  }

  void record(void** event, const c10::Stream& stream, const c10::DeviceIndex device_index,
              const c10::EventFlag) const override {
    TORCH_CHECK(device_index == -1 || device_index == stream.device_index(), "[", driver().vendor,
                "] event was created on device ", static_cast<int>(device_index), " but recorded on a stream of device ",
                static_cast<int>(stream.device_index()));
    if (*event == nullptr) {
      tflEvent created = nullptr;
      TORCH_FL_DRIVER_CHECK(driver().event_create(stream.device_index(), &created));
      *event = created;
    }
    TORCH_FL_DRIVER_CHECK(driver().event_record(as_event(*event), driver_stream(stream)));
  }
  void block(void* event, const c10::Stream& stream) const override {
    if (event == nullptr) return;  // never recorded: nothing to wait for
    TORCH_FL_DRIVER_CHECK(driver().stream_wait_event(driver_stream(stream), as_event(event)));
  }
  bool queryEvent(void* event) const override {
    if (event == nullptr) return true;
    int32_t done = 0;
    TORCH_FL_DRIVER_CHECK(driver().event_query(as_event(event), &done));
    return done != 0;
  }
  void destroyEvent(void* event, const c10::DeviceIndex) const noexcept override {
    if (event) driver().event_destroy(as_event(event));
  }
  void synchronizeEvent(void* event) const override {
    if (event) TORCH_FL_DRIVER_CHECK(driver().event_synchronize(as_event(event)));
  }
  double elapsedTime(void* start, void* end, const c10::DeviceIndex) const override {
    TORCH_CHECK(start && end, "[", driver().vendor, "] elapsed_time needs two recorded events");
    float ms = 0;
    TORCH_FL_DRIVER_CHECK(driver().event_elapsed_ms(as_event(start), as_event(end), &ms));
    return ms;
  }

  bool queryStream(const c10::Stream& stream) const override { return query_stream(stream); }
  void synchronizeStream(const c10::Stream& stream) const override { synchronize_stream(stream); }
  void synchronizeDevice(const c10::DeviceIndex device_index) const override { synchronize_device(device_index); }
  void recordDataPtrOnStream(const c10::DataPtr& data, const c10::Stream& stream) const override {
    record_stream(data, stream);
  }
};

C10_REGISTER_GUARD_IMPL(PrivateUse1, GuardImpl);

}  // namespace
}  // namespace torch_fl
