// The device caching allocator.
//
// Memory comes from the driver in segments (2 MiB for requests up to 1 MiB,
// larger ones for larger requests); a segment is split into blocks to fit
// requests, and a freed block merges with its free neighbours. Freed blocks are
// cached per (device, stream) and reused by later allocations on the same
// stream, which is safe without synchronisation because a stream runs in
// order. Segments go back to the driver only when wholly free, on
// empty_cache(), on out-of-memory, or past the garbage-collection threshold
// (TORCH_FL_ALLOC_CONF, see allocator_config.h).
#pragma once

#include <c10/core/Allocator.h>
#include <c10/core/Device.h>
#include <c10/core/Stream.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace torch_fl {

struct MemoryStats {
  int64_t allocated_bytes = 0;       // in live tensors (rounded block sizes)
  int64_t reserved_bytes = 0;        // held from the driver, live or cached
  int64_t active_bytes = 0;          // allocated, plus freed blocks still awaiting other streams
  int64_t peak_active_bytes = 0;
  int64_t peak_allocated_bytes = 0;
  int64_t peak_reserved_bytes = 0;
  int64_t allocations = 0;           // successful allocate() calls
  int64_t driver_allocations = 0;    // cache misses that reached the driver
  int64_t alloc_retries = 0;         // driver OOM → cache flushed → retried
  int64_t ooms = 0;                  // OutOfMemoryError raised
};

// Every field by name: how the stats cross to Python (tfl_memory_stats_json),
// so that neither side depends on the other's field order. The runtime test
// checks that the list covers the struct.
struct MemoryStatField {
  const char* name;
  int64_t MemoryStats::*value;
};
inline constexpr MemoryStatField kMemoryStatFields[] = {
    {"allocated_bytes", &MemoryStats::allocated_bytes},
    {"reserved_bytes", &MemoryStats::reserved_bytes},
    {"active_bytes", &MemoryStats::active_bytes},
    {"peak_active_bytes", &MemoryStats::peak_active_bytes},
    {"peak_allocated_bytes", &MemoryStats::peak_allocated_bytes},
    {"peak_reserved_bytes", &MemoryStats::peak_reserved_bytes},
    {"allocations", &MemoryStats::allocations},
    {"driver_allocations", &MemoryStats::driver_allocations},
    {"alloc_retries", &MemoryStats::alloc_retries},
    {"ooms", &MemoryStats::ooms},
};
static_assert(sizeof(MemoryStats) == sizeof(kMemoryStatFields) / sizeof(MemoryStatField) * sizeof(int64_t),
              "a MemoryStats field is missing from kMemoryStatFields");

// One driver allocation and its blocks, as memory_snapshot() reports them.
enum class BlockState { kAllocated, kPendingFree, kFree };
struct BlockInfo {
  uintptr_t address;
  size_t size;
  BlockState state;
};
struct SegmentInfo {
  uintptr_t address;
  size_t size;
  int64_t stream;  // the stream its blocks serve
  bool small;      // the small-request pool
  std::vector<BlockInfo> blocks;  // in address order
};

c10::Allocator* device_allocator();
MemoryStats memory_stats(c10::DeviceIndex device);
void reset_peak_memory_stats(c10::DeviceIndex device);
// Returns every wholly free segment of every device to the driver.
void empty_cache();
std::vector<SegmentInfo> memory_snapshot(c10::DeviceIndex device);

// The driver allocation (segment) holding the block behind `data`: its start and
// size, and the block's offset in it, for sharing it with another process (ipc.h).
// nullopt for memory that is not a block of this allocator.
struct SegmentOfBlock {
  void* base;
  size_t size;
  size_t offset;
};
std::optional<SegmentOfBlock> segment_of(const c10::DataPtr& data);

// Tensor.record_stream: the block backing `data` is also used on `stream`, so
// when freed it is reused only after the work queued on `stream` so far.
void record_stream(const c10::DataPtr& data, c10::Stream stream);
// `to` now holds what `from` held (a storage's bytes moved to a new block):
// every stream that used `from` is recorded on `to` too.
void record_stream_uses(const c10::DataPtr& from, const c10::DataPtr& to);

}  // namespace torch_fl
