// The device caching allocator.
//
// Freed blocks return to a per-(device, stream) cache and are reused by later
// allocations on the same stream, which is safe without synchronisation
// because a stream runs in order. Memory goes back to the driver only on
// empty_cache() or when an allocation would otherwise run out of memory.
#pragma once

#include <c10/core/Allocator.h>
#include <c10/core/Device.h>
#include <c10/core/Stream.h>

#include <cstdint>

namespace torch_fl {

struct MemoryStats {
  int64_t allocated_bytes = 0;       // in live tensors (rounded block sizes)
  int64_t reserved_bytes = 0;        // held from the driver, live or cached
  int64_t peak_allocated_bytes = 0;
  int64_t peak_reserved_bytes = 0;
  int64_t allocations = 0;           // successful allocate() calls
  int64_t driver_allocations = 0;    // cache misses that reached the driver
  int64_t alloc_retries = 0;         // driver OOM → cache flushed → retried
  int64_t ooms = 0;                  // OutOfMemoryError raised
};

c10::Allocator* device_allocator();
MemoryStats memory_stats(c10::DeviceIndex device);
void reset_peak_memory_stats(c10::DeviceIndex device);
// Returns every cached (unused) block of every device to the driver.
void empty_cache();

// Tensor.record_stream: the block backing `data` is also used on `stream`, so
// when freed it is reused only after the work queued on `stream` so far.
void record_stream(const c10::DataPtr& data, c10::Stream stream);

}  // namespace torch_fl
