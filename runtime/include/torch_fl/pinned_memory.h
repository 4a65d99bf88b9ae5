// Pinned (page-locked) host memory for fast and asynchronous copies.
//
// A caching host allocator: Tensor.pin_memory() and DataLoader(pin_memory=True)
// allocate here, freed blocks are reused, and is_pinned() recognises any
// address inside a live block. (The simulated chips copy through the CPU, so
// pinning changes no timing there; a real vendor would register the pages with
// its driver in allocate.)
#pragma once

#include <c10/core/Allocator.h>

namespace torch_fl {

c10::Allocator* pinned_host_allocator();
bool is_pinned_host_pointer(const void* ptr);

}  // namespace torch_fl
