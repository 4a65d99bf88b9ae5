#include "staging_pool.h"

namespace torch_fl::sim {

std::shared_ptr<uint8_t> StagingPool::take(size_t bytes) {
  uint8_t* buffer = nullptr;
  size_t capacity = bytes;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = free_.lower_bound(bytes);
    if (it != free_.end() && it->first <= 2 * bytes) {
      capacity = it->first;
      buffer = it->second;
      cached_bytes_ -= capacity;
      free_.erase(it);
    }
  }
  if (buffer == nullptr) buffer = new uint8_t[capacity];
  return std::shared_ptr<uint8_t>(buffer, [this, capacity](uint8_t* b) { give_back(b, capacity); });
}

void StagingPool::give_back(uint8_t* buffer, size_t capacity) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (cached_bytes_ + capacity <= kMaxCachedBytes) {
      free_.emplace(capacity, buffer);
      cached_bytes_ += capacity;
      return;
    }
  }
  delete[] buffer;
}

}  // namespace torch_fl::sim
