// Device indices and the per-thread current device.
#pragma once

#include <c10/core/Device.h>

namespace torch_fl {

c10::DeviceIndex device_count();
c10::DeviceIndex current_device();
void set_current_device(c10::DeviceIndex index);
// For c10's noexcept uncheckedSetDevice: the index was checked when it was current before.
void set_current_device_unchecked(c10::DeviceIndex index) noexcept;
// Raises RuntimeError (as CUDA does for an invalid ordinal) naming the vendor and the valid range.
void check_device_index(c10::DeviceIndex index);

// Device state (worker threads, streams, cached memory) does not survive fork():
// a child forked after the device was initialised must not use it.
bool in_bad_fork();
// Raises a clear error in such a child; cheap enough for every op.
void check_not_forked();
// Marks the device initialised (the first driver call does this).
void mark_initialized();
// Whether the driver has been started in this process (CUDA's torch.cuda.is_initialized()).
bool is_initialized();

inline c10::Device make_device(c10::DeviceIndex index) { return c10::Device(c10::DeviceType::PrivateUse1, index); }

// RAII: switches the current device for a scope (a no-op when it is already current).
class DeviceGuard {
 public:
  explicit DeviceGuard(c10::Device device) : previous_(current_device()) {
    if (device.index() != previous_) set_current_device(device.index());
    else previous_ = -1;
  }
  ~DeviceGuard() {
    if (previous_ >= 0) set_current_device(previous_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  c10::DeviceIndex previous_;
};

}  // namespace torch_fl
