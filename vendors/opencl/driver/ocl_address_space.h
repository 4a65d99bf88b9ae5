// Opaque device addresses for OpenCL buffers.
//
// A cl_mem is a handle, not an address, and a sub-buffer needs a 128-byte
// aligned origin, so neither can be what PyTorch holds as a tensor's data
// pointer (views point anywhere inside). Each allocation instead reserves a
// range of the process's address space with no access (PROT_NONE) and hands out
// its start; any address inside resolves to (cl_mem, byte offset). The range is
// never backed, so a host-side dereference of device memory faults at once.
#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

namespace torch_fl::ocl {

struct Resolved {
  cl_mem buffer = nullptr;
  size_t offset = 0;     // bytes from the buffer's start
  size_t available = 0;  // bytes from there to the buffer's end
  int32_t device = -1;
};

class AddressSpace {
 public:
  // Reserves a range for `buffer` of `bytes` on `device`; nullptr when the
  // address space is exhausted. The range is page-aligned.
  void* insert(int32_t device, cl_mem buffer, size_t bytes);
  // Records `buffer` at an address it already has (an SVM allocation, ocl_svm.h).
  void insert_at(int32_t device, cl_mem buffer, size_t bytes, void* address);
  // Forgets the allocation that starts at `address`; its buffer, or nullptr
  // when `address` is not the start of one.
  cl_mem erase(const void* address);
  // The allocation that holds `address` (a start or any interior address).
  bool resolve(const void* address, Resolved* resolved) const;
  // Bytes allocated on `device`.
  size_t used(int32_t device) const;

 private:
  struct Allocation {
    cl_mem buffer;
    size_t bytes;
    size_t reserved;  // bytes rounded up to pages; 0: not reserved here (SVM)
    int32_t device;
  };
  mutable std::mutex mutex_;  // guards the maps: allocations come from any thread
  std::map<uintptr_t, Allocation> allocations_;  // by start address
  std::map<int32_t, size_t> used_;
};

AddressSpace& address_space();

}  // namespace torch_fl::ocl
