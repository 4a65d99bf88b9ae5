#include "ocl_address_space.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>

namespace torch_fl::ocl {

void* AddressSpace::insert(int32_t device, cl_mem buffer, size_t bytes) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t reserved = (std::max<size_t>(bytes, 1) + page - 1) / page * page;
  // Address space only: no pages are committed, and MAP_NORESERVE keeps it out
  // of the overcommit accounting, so gigabytes of "device memory" cost nothing.
  void* start = mmap(nullptr, reserved, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (start == MAP_FAILED) return nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  allocations_[reinterpret_cast<uintptr_t>(start)] = Allocation{buffer, bytes, reserved, device};
  used_[device] += bytes;
  return start;
}

void AddressSpace::insert_at(int32_t device, cl_mem buffer, size_t bytes, void* address) {
  std::lock_guard<std::mutex> lock(mutex_);
  allocations_[reinterpret_cast<uintptr_t>(address)] = Allocation{buffer, bytes, 0, device};
  used_[device] += bytes;
}

cl_mem AddressSpace::erase(const void* address) {
  Allocation allocation{};
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = allocations_.find(reinterpret_cast<uintptr_t>(address));
    if (it == allocations_.end()) return nullptr;
    allocation = it->second;
    used_[allocation.device] -= allocation.bytes;
    allocations_.erase(it);
  }
  if (allocation.reserved > 0) munmap(const_cast<void*>(address), allocation.reserved);
  return allocation.buffer;
}

bool AddressSpace::resolve(const void* address, Resolved* resolved) const {
  const auto key = reinterpret_cast<uintptr_t>(address);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = allocations_.upper_bound(key);
  if (it == allocations_.begin()) return false;
  --it;
  const size_t offset = key - it->first;
  if (offset >= it->second.bytes) return false;
  *resolved = Resolved{it->second.buffer, offset, it->second.bytes - offset, it->second.device};
  return true;
}

size_t AddressSpace::used(int32_t device) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = used_.find(device);
  return it == used_.end() ? 0 : it->second;
}

AddressSpace& address_space() {
  static AddressSpace* space = new AddressSpace();  // never destroyed: buffers may be freed during exit
  return *space;
}

}  // namespace torch_fl::ocl
