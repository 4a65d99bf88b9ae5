// Device memory of the OpenCL driver: buffers behind opaque addresses
// (ocl_address_space.h), within each device's capacity.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ocl_address_space.h"

namespace torch_fl::ocl {

// A buffer of `bytes` on `device`, behind a fresh opaque address. kOutOfMemory,
// with a detail naming the sizes and the device, above the device's largest
// single allocation (CL_DEVICE_MAX_MEM_ALLOC_SIZE) or past its capacity.
int32_t allocate(int32_t device, size_t bytes, void** address);
// kInvalidAddress unless `address` is the start of a live allocation.
int32_t release(void* address);
// [address, address + bytes) inside one allocation: its buffer and offset.
// kInvalidAddress (with a detail) otherwise.
int32_t resolve(const void* address, size_t bytes, Resolved* resolved);
// Free and total bytes of the device's capacity.
int32_t memory_info(int32_t device, size_t* free_bytes, size_t* total_bytes);

}  // namespace torch_fl::ocl
