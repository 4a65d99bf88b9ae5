// Pinned (page-locked) host memory for fast and asynchronous copies.
//
// A caching host allocator: Tensor.pin_memory() and DataLoader(pin_memory=True)
// allocate here, freed blocks are reused, and is_pinned() recognises any
// address inside a live block. (The simulated chips copy through the CPU, so
// pinning changes no timing there; a real vendor would register the pages with
// its driver in allocate.)
//
// Only pinned memory takes part in asynchronous device->host copies (CUDA's
// rule): such a copy records its stream on the block, and a freed block is not
// handed out again until that stream has passed the copy, so a tensor freed
// while its copy is in flight never has its memory reused under it.
#pragma once

#include <c10/core/Allocator.h>

#include <torch_fl/driver_abi.h>

namespace torch_fl {

c10::Allocator* pinned_host_allocator();
bool is_pinned_host_pointer(const void* ptr);
// Marks the pinned block holding ptr as used by work queued on `stream` of
// `device` so far (the host-side twin of the device allocator's record_stream).
void record_pinned_use(const void* ptr, int32_t device, tflStream stream);

}  // namespace torch_fl
