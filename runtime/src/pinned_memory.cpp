#include <torch_fl/pinned_memory.h>

#include <c10/util/Exception.h>
#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

namespace torch_fl {
namespace {

constexpr size_t kPage = 4096;

void release_block(void* ptr);

class PinnedHostAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t bytes) override {
    const size_t size = bytes == 0 ? kPage : (bytes + kPage - 1) / kPage * kPage;
    void* ptr = take_cached(size);
    if (ptr == nullptr) {
      ptr = std::aligned_alloc(kPage, size);
      TORCH_CHECK_WITH(OutOfMemoryError, ptr != nullptr, "pinned host memory: cannot allocate ", size, " bytes");
      mlock(ptr, size);  // best effort: without the privilege the memory is still usable
      std::lock_guard<std::mutex> lock(mutex_);
      live_[ptr] = size;
    }
    return c10::DataPtr(ptr, ptr, &release_block, c10::Device(c10::DeviceType::CPU));
  }

  c10::DeleterFnPtr raw_deleter() const override { return &release_block; }

  void copy_data(void* dest, const void* src, std::size_t count) const override { std::memcpy(dest, src, count); }

  // Returns a live block to the cache.
  void give_back(void* ptr) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = live_.find(ptr);
    if (it == live_.end()) return;
    free_.emplace(it->second, ptr);
    live_.erase(it);
  }

  bool contains(const void* ptr) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = live_.upper_bound(const_cast<void*>(ptr));
    if (it == live_.begin()) return false;
    --it;
    return static_cast<const char*>(ptr) < static_cast<const char*>(it->first) + it->second;
  }

 private:
  void* take_cached(size_t size) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = free_.lower_bound(size);
    if (it == free_.end() || it->first > 2 * size) return nullptr;
    void* ptr = it->second;
    live_[ptr] = it->first;
    free_.erase(it);
    return ptr;
  }

  std::mutex mutex_;  // guards live_ and free_
  std::map<void*, size_t> live_;  // base → size, ordered for address lookups
  std::multimap<size_t, void*> free_;  // size → cached block
};

PinnedHostAllocator& allocator() {
  static auto* instance = new PinnedHostAllocator();  // never destroyed: tensors may die at exit
  return *instance;
}

void release_block(void* ptr) { allocator().give_back(ptr); }

}  // namespace

c10::Allocator* pinned_host_allocator() { return &allocator(); }

bool is_pinned_host_pointer(const void* ptr) { return ptr != nullptr && allocator().contains(ptr); }

}  // namespace torch_fl
