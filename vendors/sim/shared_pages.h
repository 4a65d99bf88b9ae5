// Device memory shared between processes (CUDA's IPC memory handles), for a
// simulated chip whose device memory is an address range of the host process
// (device_arena.h).
//
// Sharing moves an allocation's pages, bytes kept, onto a memfd mapped at the same
// addresses: the producer's pointers stay valid, and only shared allocations lose
// the arena's huge pages. The handle names that memfd through the producer's
// /proc/<pid>/fd, and another process maps it into a page-aligned hole of its own
// arena, where it is a live allocation like any other: device work, residency checks
// and protected mode treat it as the consumer's device memory. Writes on either
// side are seen on the other once the writer's device work has completed.
//
// Only page-aligned allocations are shared (allocate_pages; the caching
// allocator's segments are), so a handle never exposes a neighbour's bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "device_arena.h"

namespace torch_fl::sim {

// Trivially copyable: it travels between processes as bytes.
struct SharedPagesHandle {
  uint64_t magic;      // kSharedPagesMagic: a handle of this simulator
  uint64_t chip;       // a tag naming the chip (vendor) that made it
  int32_t device;      // the producer's device
  int32_t pid;         // the producer
  int32_t fd;          // its memfd, in the producer's fd table
  int32_t unused;
  uint64_t inode;      // the memfd's inode: a reused pid or fd does not match
  uint64_t bytes;      // the allocation's size (whole pages)
};
constexpr uint64_t kSharedPagesMagic = 0x7466'6c5f'7368'7231ULL;  // "tfl_shr1"

class SharedPages {
 public:
  SharedPages(DeviceArena& arena, uint64_t chip, int32_t device) : arena_(arena), chip_(chip), device_(device) {}
  ~SharedPages();
  SharedPages(const SharedPages&) = delete;
  SharedPages& operator=(const SharedPages&) = delete;

  // The handle of the allocation starting at ptr, shared from now on. The caller
  // makes sure no device work writes it meanwhile (the driver synchronizes the device).
  // Empty string: done; otherwise why not.
  std::string share(void* ptr, SharedPagesHandle* handle);
  // Before the arena releases an allocation: a shared one gets private pages back.
  // Non-empty: it could not, and the allocation must stay allocated (its pages are
  // still the ones other processes map).
  std::string forget(void* ptr);

  // Maps another process's handle; *ptr is then a live allocation of this arena.
  std::string open(const SharedPagesHandle& handle, void** ptr, size_t* bytes);
  // Unmaps what open() returned and releases its hole. Non-empty: it could not, and
  // the range stays opened (released, the next allocation there would write the
  // producer's memory).
  std::string close(void* ptr);
  bool is_opened(const void* ptr) const;

 private:
  struct Mapping {
    int fd;         // the producer's memfd (-1 in a consumer: the mapping keeps it)
    uint64_t inode;
    size_t bytes;
  };
  DeviceArena& arena_;
  const uint64_t chip_;
  const int32_t device_;
  mutable std::mutex mutex_;
  std::map<void*, Mapping> shared_;  // this process's allocations others may map
  std::map<void*, Mapping> opened_;  // other processes' allocations mapped here
};

}  // namespace torch_fl::sim
