// Device memory shared between processes (CUDA's IPC memory handles), for a
// simulated chip whose device memory is an address range of the host process
// backed by a memfd (device_arena.h).
//
// A handle names a page-aligned allocation's range of the producer's memfd,
// through the producer's /proc/<pid>/fd. Another process maps that range into a
// page-aligned hole of its own arena, where it is a live allocation like any
// other: device work, residency checks and protected mode treat it as the
// consumer's device memory. Writes on either side are seen on the other once the
// writer's device work has completed. Nothing moves when an allocation is shared,
// so sharing never races device work. The mapping keeps the producer's memory
// alive after the producer exits; while it lives, a range the producer frees and
// reuses is seen by the consumer (the runtime keeps a sent block allocated until
// every consumer has released it).
//
// The handle names the allocation exactly; the consumer maps the whole pages it
// lies on, so a neighbour's bytes on its first and last page are visible too
// (CUDA maps at 2 MiB granules, with the same effect). Allocations are not
// page-aligned for sharing: page-aligned segments changed the npu's acos results
// in conformance.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <type_traits>

#include "device_arena.h"

namespace torch_fl::sim {

// Trivially copyable: it travels between processes as bytes.
struct SharedPagesHandle {
  uint64_t magic;      // kSharedPagesMagic: a handle of this simulator
  uint64_t chip;       // a tag naming the chip (vendor) that made it
  int32_t device;      // the producer's device
  int32_t pid;         // the producer
  int32_t fd;          // its arena's memfd, in the producer's fd table
  int32_t unused;
  uint64_t inode;      // the memfd's inode: a reused pid or fd does not match
  uint64_t offset;     // the allocation's place in the memfd
  uint64_t bytes;      // the allocation's size
};
constexpr uint64_t kSharedPagesMagic = 0x7466'6c5f'7368'7232ULL;  // "tfl_shr2"

// A chip API's opaque handle type (CUDA's is 64 bytes) carries a SharedPagesHandle
// in its first bytes, the rest zero.
template <class ApiHandle>
ApiHandle to_api_handle(const SharedPagesHandle& handle) {
  static_assert(std::is_trivially_copyable_v<ApiHandle> && sizeof(ApiHandle) >= sizeof(SharedPagesHandle));
  ApiHandle api{};
  std::memcpy(&api, &handle, sizeof handle);
  return api;
}
template <class ApiHandle>
SharedPagesHandle from_api_handle(const ApiHandle& api) {
  static_assert(std::is_trivially_copyable_v<ApiHandle> && sizeof(ApiHandle) >= sizeof(SharedPagesHandle));
  SharedPagesHandle handle{};
  std::memcpy(&handle, &api, sizeof handle);
  return handle;
}

class SharedPages {
 public:
  SharedPages(DeviceArena& arena, uint64_t chip, int32_t device) : arena_(arena), chip_(chip), device_(device) {}
  SharedPages(const SharedPages&) = delete;
  SharedPages& operator=(const SharedPages&) = delete;

  // The handle of the allocation starting at ptr. Empty string: done; otherwise why not.
  std::string share(void* ptr, SharedPagesHandle* handle) const;

  // Maps another process's handle; *ptr is then a live allocation of this arena.
  // *out_of_memory (when given) tells a full arena from the other failures.
  std::string open(const SharedPagesHandle& handle, void** ptr, size_t* bytes, bool* out_of_memory = nullptr);
  // Unmaps what open() returned and releases its hole. Non-empty: it could not, and
  // the range stays opened (released, the next allocation there would write the
  // producer's memory).
  std::string close(void* ptr);
  bool is_opened(const void* ptr) const;

 private:
  DeviceArena& arena_;
  const uint64_t chip_;
  const int32_t device_;
  mutable std::mutex mutex_;
  std::map<void*, size_t> opened_;  // other processes' allocations mapped here, and their sizes
};

}  // namespace torch_fl::sim
