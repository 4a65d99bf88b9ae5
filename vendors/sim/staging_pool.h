// Host staging buffers for host→device copies, reused across copies.
//
// An asynchronous host→device copy must let the caller reuse its buffer on
// return, so the simulator first copies into a staging buffer. Fresh buffers
// cost page faults on every large copy; this pool keeps released ones.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

namespace torch_fl::sim {

class StagingPool {
 public:
  // A buffer of at least `bytes`; it returns to the pool when the last owner drops it.
  std::shared_ptr<uint8_t> take(size_t bytes);

 private:
  void give_back(uint8_t* buffer, size_t capacity);

  static constexpr size_t kMaxCachedBytes = size_t{256} << 20;
  std::mutex mutex_;  // guards free_ and cached_bytes_
  std::multimap<size_t, uint8_t*> free_;  // capacity → buffer
  size_t cached_bytes_ = 0;
};

}  // namespace torch_fl::sim
