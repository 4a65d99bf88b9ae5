// PrivateUse1HooksInterface: how PyTorch asks generic questions of the device
// (availability, generators, which device owns a pointer, storage resizing).
#include <ATen/detail/PrivateUse1HooksInterface.h>
#include <c10/core/Storage.h>

#include <torch_fl/device.h>
#include "driver.h"
#include <torch_fl/generator.h>
#include "pinned_memory.h"
#include "storage.h"

namespace torch_fl {
namespace {

struct Hooks final : public at::PrivateUse1HooksInterface {
  bool isBuilt() const override { return true; }
  bool isAvailable() const override {
    try {
      return device_count() > 0;
    } catch (const c10::Error&) {
      return false;  // a driver that cannot start: unavailable, as torch.cuda.is_available() says
    }
  }
  const at::Generator& getDefaultGenerator(c10::DeviceIndex device) const override {
    return default_generator(device);
  }
  at::Generator getNewGenerator(c10::DeviceIndex device) const override {
    return make_generator(device < 0 ? current_device() : device);
  }
  at::Device getDeviceFromPtr(void* data) const override {
    const int32_t device = driver().device_of_pointer(data);
    TORCH_CHECK(device >= 0, "[", driver().vendor, "] pointer ", data, " is not device memory");
    return make_device(static_cast<c10::DeviceIndex>(device));
  }
  bool hasPrimaryContext(c10::DeviceIndex) const override { return true; }
  bool isPinnedPtr(const void* data) const override { return is_pinned_host_pointer(data); }
  at::Allocator* getPinnedMemoryAllocator() const override { return pinned_host_allocator(); }
  c10::DeviceIndex deviceCount() const override { return device_count(); }
  void setCurrentDevice(c10::DeviceIndex device) const override { set_current_device(device); }
  c10::DeviceIndex getCurrentDevice() const override { return current_device(); }
  c10::DeviceIndex exchangeDevice(c10::DeviceIndex device) const override {
    const c10::DeviceIndex previous = current_device();
    set_current_device(device);
    return previous;
  }
  c10::DeviceIndex maybeExchangeDevice(c10::DeviceIndex device) const override { return exchangeDevice(device); }
  void resizePrivateUse1Bytes(const c10::Storage& storage, size_t new_bytes) const override {
    resize_storage_bytes(storage.unsafeGetStorageImpl(), new_bytes);
  }
};

// Registered at library load, before Python can ask anything of the device.
const bool registered = [] {
  static Hooks hooks;
  at::RegisterPrivateUse1HooksInterface(&hooks);
  return true;
}();

}  // namespace
}  // namespace torch_fl
