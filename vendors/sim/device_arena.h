// A simulated chip's device memory: one reserved address range per device,
// backed by a memfd so that another process can map part of it (shared_pages.h).
//
// Host code must never dereference device memory. In protected mode the whole
// range is PROT_NONE except while the simulator itself (a copy or a kernel)
// is touching it, so a host-side bug segfaults instead of passing silently —
// the same idea as PyTorch OpenReg's memory protection.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

namespace torch_fl::sim {

class DeviceArena {
 public:
  DeviceArena(size_t capacity, size_t alignment, bool protect);
  ~DeviceArena();
  DeviceArena(const DeviceArena&) = delete;
  DeviceArena& operator=(const DeviceArena&) = delete;

  // nullptr when no free range is large enough.
  void* allocate(size_t bytes);
  // false when ptr is not the start of a live allocation.
  bool release(void* ptr);
  bool contains(const void* ptr) const {
    const auto* p = static_cast<const uint8_t*>(ptr);
    return p >= base_ && p < base_ + capacity_ + alignment_;
  }
  // Whether one live allocation covers [ptr, ptr + bytes). Inline up to the
  // hint: every operand of every op is checked (#33).
  bool covers(const void* ptr, size_t bytes) const {
    if (!contains(ptr)) return false;
    const size_t offset = static_cast<size_t>(static_cast<const uint8_t*>(ptr) - base_);
    return hinted(offset, bytes) || covered_by_live(offset, bytes);
  }

  // Whole pages (and whole alignment units), for a range another process may map
  // (shared_pages.h).
  void* allocate_pages(size_t bytes);
  // The size of the live allocation starting at ptr; 0 when none starts there.
  size_t allocation_size(const void* ptr) const;
  // Maps [offset, offset + bytes) of `fd` (another process's arena; fd < 0: this
  // arena's own memory at these addresses) over the whole pages [page, page + bytes)
  // of this arena, with the arena's current protection. Returns errno (0: mapped;
  // EINVAL: not whole pages of this arena). On failure the range keeps its
  // previous mapping (Linux checks before it replaces).
  int map_over(void* page, size_t bytes, int fd, uint64_t offset);
  // The memfd behind the arena, its inode (which a reused fd number does not
  // match), and where ptr lies in it.
  int fd() const { return fd_; }
  uint64_t inode() const { return inode_; }
  uint64_t offset_of(const void* ptr) const { return static_cast<uint64_t>(static_cast<const uint8_t*>(ptr) - base_); }

  size_t capacity() const { return capacity_; }
  size_t alignment() const { return alignment_; }
  size_t used() const;
  // The largest allocation that can succeed now (free space may be fragmented).
  size_t largest_free_block() const;

  // While at least one scope is alive, the arena is host-accessible.
  class AccessScope {
   public:
    explicit AccessScope(DeviceArena& arena);
    ~AccessScope();
    AccessScope(const AccessScope&) = delete;
    AccessScope& operator=(const AccessScope&) = delete;

   private:
    DeviceArena& arena_;
  };

 private:
  void open_access();
  void close_access();

  uint8_t* base_ = nullptr;
  int fd_ = -1;
  uint64_t inode_ = 0;
  size_t capacity_;
  size_t alignment_;
  bool protect_;
  mutable std::mutex mutex_;  // guards the maps below and used_
  std::map<size_t, size_t> free_;  // offset → size, coalesced
  std::map<size_t, size_t> live_;  // offset → size
  size_t used_ = 0;

  // The live allocation covers() found last, read without the mutex: every
  // operand of every op is checked, and the caching allocator's operands
  // mostly lie in one segment. A seqlock: writers (under mutex_) make
  // hint_sequence_ odd while they write; a release empties the hint, as it
  // may end the allocation the hint names.
  bool hinted(size_t offset, size_t bytes) const {
    const uint64_t before = hint_sequence_.load(std::memory_order_acquire);
    if (before & 1) return false;  // a writer is between its two increments
    const size_t begin = hint_begin_.load(std::memory_order_relaxed);
    const size_t end = hint_end_.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (hint_sequence_.load(std::memory_order_relaxed) != before) return false;  // torn: ask the map
    return begin < end && begin <= offset && offset + bytes <= end;
  }
  void set_hint(size_t begin, size_t end) const;  // under mutex_
  bool covered_by_live(size_t offset, size_t bytes) const;  // the map, under mutex_; sets the hint
  mutable std::atomic<uint64_t> hint_sequence_{0};
  mutable std::atomic<size_t> hint_begin_{0};
  mutable std::atomic<size_t> hint_end_{0};  // begin == end: no hint
  std::mutex access_mutex_;  // guards access_count_ and the page protection
  int access_count_ = 0;
};

}  // namespace torch_fl::sim
