// The parts of a simulated chip that do not depend on its API conventions:
// its devices (memory arenas sized from the environment), which device owns a
// pointer, running work on a queue with device memory accessible, and copies.
// Each simulated vendor wraps one Chip in its own runtime API.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "busy_clock.h"
#include "device_arena.h"
#include "shared_pages.h"
#include "work_queue.h"

namespace torch_fl::sim {

struct ChipConfig {
  // <env_prefix>_DEVICES, <env_prefix>_MEMORY_MB, <env_prefix>_PROTECT=1 and
  // <env_prefix>_SPIN_US override the defaults, e.g. TORCH_FL_MLU_DEVICES.
  std::string env_prefix;
  size_t default_devices = 2;
  size_t default_memory_mb = 4096;
  size_t alignment = 512;  // every allocation's address is a multiple of this
};

// The accepted ranges of the environment settings.
constexpr size_t kMaxDevices = 64;
constexpr size_t kMaxMemoryMb = size_t{1} << 20;  // 1 TiB of address space per device
constexpr size_t kDefaultSpinUs = 50;
constexpr size_t kMaxSpinUs = 100000;

class Chip {
 public:
  explicit Chip(const ChipConfig& config);
  Chip(const Chip&) = delete;
  Chip& operator=(const Chip&) = delete;

  // Non-empty when the environment asked for something the chip cannot be
  // (then it has no devices): the variable, the value and the accepted range.
  const std::string& configuration_error() const { return configuration_error_; }
  int device_count() const { return static_cast<int>(arenas_.size()); }
  size_t alignment() const { return alignment_; }
  // nullptr for an index out of range.
  DeviceArena* arena(int device) const;
  // The device whose memory holds ptr, or -1.
  int device_owning(const void* ptr) const {
    for (size_t i = 0; i < arenas_.size(); ++i) {
      if (arenas_[i]->contains(ptr)) return static_cast<int>(i);
    }
    return -1;
  }
  // Why an allocation of `bytes` failed: free bytes and the largest free block,
  // which is what fails when fragmentation is the cause.
  std::string out_of_memory_detail(int device, size_t bytes) const;
  // Whether [ptr, ptr + bytes) lies inside one live allocation of some device.
  bool resident(const void* ptr, size_t bytes) const {
    const int device = device_owning(ptr);
    return device >= 0 && arenas_[device]->covers(ptr, bytes);
  }

  // A new queue of `device` (which must exist), counted in the device's busy time.
  std::unique_ptr<WorkQueue> new_queue(int device, int priority) const;
  // nullptr for an index out of range.
  BusyClock* busy_clock(int device) const;
  // The device's memory shared with other processes; nullptr for an index out of range.
  SharedPages* shared_pages(int device) const;

  // Queues `work` on `queue`; it runs with every device's memory accessible
  // to the simulator (see DeviceArena's protection mode).
  template <class F>
  void enqueue(WorkQueue& queue, F&& work) const {
    if (!protected_) {  // nothing to open around the work: it goes into the queue as it is
      queue.submit(std::forward<F>(work));
      return;
    }
    enqueue_protected(queue, WorkQueue::Task(std::forward<F>(work)));
  }
  // A copy ordered on `queue`. A host source is staged first, so the caller may
  // reuse its buffer on return; a device source is read when the copy runs.
  void copy_async(WorkQueue& queue, void* dst, const void* src, size_t bytes, bool stage_host_source) const;

 private:
  void enqueue_protected(WorkQueue& queue, WorkQueue::Task work) const;

  std::vector<std::unique_ptr<DeviceArena>> arenas_;
  std::vector<std::unique_ptr<BusyClock>> busy_clocks_;  // one per arena
  // One per arena; declared after arenas_ so that it is destroyed first (it refers
  // to its arena).
  std::vector<std::unique_ptr<SharedPages>> shared_pages_;
  size_t alignment_;
  bool protected_ = false;  // <prefix>_PROTECT=1: device work opens the arenas around each task
  size_t idle_spin_us_ = kDefaultSpinUs;  // how long an idle queue's worker stays awake
  std::string configuration_error_;
};

}  // namespace torch_fl::sim
