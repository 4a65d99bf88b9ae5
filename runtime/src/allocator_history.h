// What the caching allocator did, recorded while asked (torch.<device>.memory.
// _record_memory_history): each allocation and free of a block, each segment taken
// from or given back to the driver, and each out-of-memory, with the time, in
// PyTorch's memory-snapshot actions, so that torch.cuda._memory_viz reads them. A
// bounded ring per device: the oldest events go first. Off, it costs each
// allocation and free one relaxed load.
#pragma once

#include <c10/core/Device.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace torch_fl {

enum class HistoryAction { kAlloc, kFreeRequested, kFreeCompleted, kSegmentAlloc, kSegmentFree, kOom };

struct HistoryEvent {
  HistoryAction action;
  uintptr_t address;
  size_t size;
  int64_t stream;
  int64_t time_us;       // since the epoch (the visualiser's axis)
  size_t device_free;    // kOom: what the driver had free
};

namespace allocator_history_detail {
extern std::atomic<bool> recording;
void record(c10::DeviceIndex device, const HistoryEvent& event);
}  // namespace allocator_history_detail

inline bool recording_allocator_history() {
  return allocator_history_detail::recording.load(std::memory_order_relaxed);
}

inline void record_allocator_event(c10::DeviceIndex device, HistoryAction action, const void* address, size_t size,
                                   int64_t stream, size_t device_free = 0) {
  if (!recording_allocator_history()) return;
  allocator_history_detail::record(
      device, {action, reinterpret_cast<uintptr_t>(address), size, stream, 0, device_free});
}

// Called on an out-of-memory before it is raised, without the allocator's locks held
// (torch_fl's Python side writes a snapshot there when TORCH_FL_OOM_SNAPSHOT is set).
using OutOfMemoryObserver = void (*)(int device);
void set_out_of_memory_observer(OutOfMemoryObserver observer);
void notify_out_of_memory(c10::DeviceIndex device);

// Starts (max_entries > 0 per device) or stops recording; either clears what was recorded.
void set_allocator_history(size_t max_entries);
std::vector<HistoryEvent> allocator_history(c10::DeviceIndex device);

}  // namespace torch_fl
