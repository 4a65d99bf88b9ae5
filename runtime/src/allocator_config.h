// The caching allocator's settings, from TORCH_FL_ALLOC_CONF (read once, at the
// first allocation), in the format of PYTORCH_CUDA_ALLOC_CONF:
//
//   TORCH_FL_ALLOC_CONF="max_split_size_mb:256,garbage_collection_threshold:0.8"
//
//   max_split_size_mb             blocks of this size or more are never split, and
//                                 serve only requests of about their size: large
//                                 cached blocks are not eaten away by small tensors
//                                 (less fragmentation). Default: unlimited.
//   garbage_collection_threshold  a fraction in (0, 1): before the allocator asks the
//                                 driver for a new segment that would take its
//                                 reservation above this fraction of the device's
//                                 memory, it returns its unused cached segments
//                                 first. Default: off (only on out-of-memory).
#pragma once

#include <cstddef>
#include <limits>
#include <string>

namespace torch_fl {

struct AllocatorConfig {
  size_t max_split_size = std::numeric_limits<size_t>::max();
  double garbage_collection_threshold = 0.0;  // 0: off
};

// Throws c10::ValueError naming the key and the expected format on a malformed text.
AllocatorConfig parse_allocator_config(const std::string& text);
// TORCH_FL_ALLOC_CONF, parsed once.
const AllocatorConfig& allocator_config();

}  // namespace torch_fl
