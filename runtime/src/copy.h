// Copies between host and device, and between devices, through the driver.
#pragma once

#include <ATen/ATen.h>

namespace torch_fl {

// dst.copy_(src) where at least one side is on the device. Handles dtype
// conversion, broadcasting and arbitrary strides; non_blocking leaves the copy
// queued on the current stream instead of waiting for it.
void copy_between(const at::Tensor& dst, const at::Tensor& src, bool non_blocking);

}  // namespace torch_fl
