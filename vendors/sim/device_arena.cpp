#include "device_arena.h"

#include <algorithm>

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <stdexcept>
#include <string>

namespace torch_fl::sim {

DeviceArena::DeviceArena(size_t capacity, size_t alignment, bool protect)
    : capacity_(capacity), alignment_(alignment), protect_(protect) {
  // Shared memory from the start, so that sharing an allocation moves nothing:
  // moving pages while a queue writes them would lose the writes. The memfd is
  // sparse; pages are committed when first touched.
  fd_ = memfd_create("torch_fl_device_memory", MFD_CLOEXEC);
  struct stat status {};
  if (fd_ < 0 || ftruncate(fd_, static_cast<off_t>(capacity_ + alignment_)) != 0 || fstat(fd_, &status) != 0) {
    const int error = errno;
    if (fd_ >= 0) close(fd_);
    throw std::runtime_error("simulator: cannot create " + std::to_string(capacity_) +
                             " bytes of device memory: " + std::strerror(error));
  }
  inode_ = static_cast<uint64_t>(status.st_ino);
  const int prot = protect ? PROT_NONE : PROT_READ | PROT_WRITE;
  void* base = mmap(nullptr, capacity_ + alignment_, prot, MAP_SHARED | MAP_NORESERVE, fd_, 0);
  if (base == MAP_FAILED) {
    close(fd_);
    throw std::runtime_error("simulator: cannot reserve " + std::to_string(capacity_) + " bytes of device memory");
  }
  base_ = static_cast<uint8_t*>(base);
  // A process forked from this one must not write memory this one and its
  // consumers see (a private mapping was copied on write).
  madvise(base_, capacity_ + alignment_, MADV_DONTFORK);
  // Offsets are aligned relative to an aligned base address.
  const auto misalignment = reinterpret_cast<uintptr_t>(base_) % alignment_;
  const size_t head = misalignment ? alignment_ - misalignment : 0;
  free_[head] = capacity_;
}

DeviceArena::~DeviceArena() {
  if (base_) munmap(base_, capacity_ + alignment_);
  if (fd_ >= 0) close(fd_);
}

void* DeviceArena::allocate(size_t bytes) {
  if (bytes == 0) bytes = 1;
  const size_t rounded = (bytes + alignment_ - 1) / alignment_ * alignment_;
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < rounded) continue;
    const size_t offset = it->first;
    const size_t remaining = it->second - rounded;
    free_.erase(it);
    if (remaining) free_[offset + rounded] = remaining;
    live_[offset] = rounded;
    used_ += rounded;
    return base_ + offset;
  }
  return nullptr;
}

void* DeviceArena::allocate_pages(size_t bytes) {
  // Whole units of both a page and the arena's alignment (both powers of two), so
  // that what stays free around the allocation keeps the arena's alignment.
  const size_t unit = std::max(static_cast<size_t>(sysconf(_SC_PAGESIZE)), alignment_);
  const size_t rounded = (std::max<size_t>(bytes, 1) + unit - 1) / unit * unit;
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    const uintptr_t address = reinterpret_cast<uintptr_t>(base_) + it->first;
    const size_t lead = (unit - address % unit) % unit;
    if (it->second < lead + rounded) continue;
    const size_t free_start = it->first, free_size = it->second;
    const size_t offset = free_start + lead;
    free_.erase(it);
    if (lead) free_[free_start] = lead;
    if (free_size > lead + rounded) free_[offset + rounded] = free_size - lead - rounded;
    live_[offset] = rounded;
    used_ += rounded;
    return base_ + offset;
  }
  return nullptr;
}

size_t DeviceArena::allocation_size(const void* ptr) const {
  if (!contains(ptr)) return 0;
  std::lock_guard<std::mutex> lock(mutex_);
  const auto live = live_.find(static_cast<size_t>(static_cast<const uint8_t*>(ptr) - base_));
  return live == live_.end() ? 0 : live->second;
}

int DeviceArena::map_over(void* page, size_t bytes, int fd, uint64_t offset) {
  const size_t page_size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const auto* first = static_cast<const uint8_t*>(page);
  if (reinterpret_cast<uintptr_t>(page) % page_size != 0 || bytes % page_size != 0 || !contains(first) ||
      first + bytes > base_ + capacity_ + alignment_) {
    return EINVAL;  // never MAP_FIXED over memory that is not whole pages of this arena
  }
  if (fd < 0) {
    fd = fd_;
    offset = offset_of(page);
  }
  // Under the access mutex: the protection must not change between reading it and mapping.
  std::lock_guard<std::mutex> lock(access_mutex_);
  const int prot = (!protect_ || access_count_ > 0) ? PROT_READ | PROT_WRITE : PROT_NONE;
  if (mmap(page, bytes, prot, MAP_SHARED | MAP_FIXED | MAP_NORESERVE, fd, static_cast<off_t>(offset)) == MAP_FAILED) {
    return errno;
  }
  madvise(page, bytes, MADV_DONTFORK);  // a fresh mapping starts without the flag
  return 0;
}

size_t DeviceArena::largest_free_block() const {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t largest = 0;
  for (const auto& [offset, size] : free_) largest = std::max(largest, size);
  return largest / alignment_ * alignment_;
}

bool DeviceArena::release(void* ptr) {
  std::lock_guard<std::mutex> lock(mutex_);
  set_hint(0, 0);
  const size_t offset = static_cast<uint8_t*>(ptr) - base_;
  auto live = live_.find(offset);
  if (!contains(ptr) || live == live_.end()) return false;
  size_t start = offset, size = live->second;
  used_ -= size;
  live_.erase(live);
  auto next = free_.lower_bound(start);
  if (next != free_.end() && start + size == next->first) {
    size += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      start = prev->first;
      size += prev->second;
      free_.erase(prev);
    }
  }
  free_[start] = size;
  return true;
}

bool DeviceArena::covered_by_live(size_t offset, size_t bytes) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = live_.upper_bound(offset);
  if (it == live_.begin()) return false;
  --it;
  if (offset + bytes > it->first + it->second) return false;
  set_hint(it->first, it->first + it->second);
  return true;
}

void DeviceArena::set_hint(size_t begin, size_t end) const {
  const uint64_t sequence = hint_sequence_.load(std::memory_order_relaxed);
  hint_sequence_.store(sequence + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  hint_begin_.store(begin, std::memory_order_relaxed);
  hint_end_.store(end, std::memory_order_relaxed);
  hint_sequence_.store(sequence + 2, std::memory_order_release);
}

size_t DeviceArena::used() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return used_;
}

void DeviceArena::open_access() {
  if (!protect_) return;
  std::lock_guard<std::mutex> lock(access_mutex_);
  if (access_count_++ == 0) mprotect(base_, capacity_ + alignment_, PROT_READ | PROT_WRITE);
}

void DeviceArena::close_access() {
  if (!protect_) return;
  std::lock_guard<std::mutex> lock(access_mutex_);
  if (--access_count_ == 0) mprotect(base_, capacity_ + alignment_, PROT_NONE);
}

DeviceArena::AccessScope::AccessScope(DeviceArena& arena) : arena_(arena) { arena_.open_access(); }
DeviceArena::AccessScope::~AccessScope() { arena_.close_access(); }

}  // namespace torch_fl::sim
