#include "pinned_memory.h"

#include <c10/util/Exception.h>
#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "driver.h"

namespace torch_fl {
namespace {

constexpr size_t kPage = 4096;

void release_block(void* ptr);

struct LiveBlock {
  size_t size = 0;
  std::vector<tflEvent> uses;  // marks of the streams whose queued copies touch the block
};

struct FreedBlock {
  void* ptr;
  size_t size;
  std::vector<tflEvent> uses;  // the block is reusable once all of them have completed
};

bool all_completed(const std::vector<tflEvent>& events) {
  for (tflEvent event : events) {
    int32_t completed = 0;
    if (driver().event_query(event, &completed) != TFL_SUCCESS || !completed) return false;
  }
  return true;
}

void destroy(std::vector<tflEvent>& events) {
  for (tflEvent event : events) driver().event_destroy(event);
  events.clear();
}

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
      live_[ptr].size = size;
    }
    return c10::DataPtr(ptr, ptr, &release_block, c10::Device(c10::DeviceType::CPU));
  }

  c10::DeleterFnPtr raw_deleter() const override { return &release_block; }

  void copy_data(void* dest, const void* src, std::size_t count) const override { std::memcpy(dest, src, count); }

  // Returns a live block to the cache; one still used by queued copies waits for them.
  void give_back(void* ptr) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = live_.find(ptr);
    if (it == live_.end()) return;
    if (it->second.uses.empty()) {
      free_.emplace(it->second.size, ptr);
    } else {
      in_use_by_streams_.push_back({ptr, it->second.size, std::move(it->second.uses)});
    }
    live_.erase(it);
  }

  bool contains(const void* ptr) {
    std::lock_guard<std::mutex> lock(mutex_);
    return find_live(ptr) != live_.end();
  }

  void record_use(const void* ptr, int32_t device, tflStream stream) {
    tflEvent event = nullptr;
    if (driver().event_create(device, &event) != TFL_SUCCESS) {
      TORCH_FL_DRIVER_CHECK(driver().stream_synchronize(stream));  // cannot mark it: make it complete instead
      return;
    }
    if (driver().event_record(event, stream) != TFL_SUCCESS) {
      driver().event_destroy(event);
      TORCH_FL_DRIVER_CHECK(driver().stream_synchronize(stream));
      return;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = find_live(ptr);
    TORCH_INTERNAL_ASSERT(it != live_.end(), "record_pinned_use on memory that is not pinned");
    std::vector<tflEvent>& uses = it->second.uses;
    // A staging buffer reused for every batch would otherwise collect one mark per copy.
    for (auto use = uses.begin(); use != uses.end();) {
      int32_t completed = 0;
      if (driver().event_query(*use, &completed) == TFL_SUCCESS && completed) {
        driver().event_destroy(*use);
        use = uses.erase(use);
      } else {
        ++use;
      }
    }
    uses.push_back(event);
  }

 private:
  std::map<void*, LiveBlock>::iterator find_live(const void* ptr) {
    auto it = live_.upper_bound(const_cast<void*>(ptr));
    if (it == live_.begin()) return live_.end();
    --it;
    return static_cast<const char*>(ptr) < static_cast<const char*>(it->first) + it->second.size ? it : live_.end();
  }

  void* take_cached(size_t size) {
    std::lock_guard<std::mutex> lock(mutex_);
    release_completed();
    auto it = free_.lower_bound(size);
    if (it == free_.end() || it->first > 2 * size) return nullptr;
    void* ptr = it->second;
    live_[ptr].size = it->first;
    free_.erase(it);
    return ptr;
  }

  // Freed blocks whose copies have all completed become reusable.
  void release_completed() {
    for (auto it = in_use_by_streams_.begin(); it != in_use_by_streams_.end();) {
      if (!all_completed(it->uses)) {
        ++it;
        continue;
      }
      destroy(it->uses);
      free_.emplace(it->size, it->ptr);
      it = in_use_by_streams_.erase(it);
    }
  }

  std::mutex mutex_;  // guards live_, free_ and in_use_by_streams_
  std::map<void*, LiveBlock> live_;  // base → block, ordered for address lookups
  std::multimap<size_t, void*> free_;  // size → cached block
  std::vector<FreedBlock> in_use_by_streams_;  // freed while copies were still queued on it
};

PinnedHostAllocator& allocator() {
  static auto* instance = new PinnedHostAllocator();  // never destroyed: tensors may die at exit
  return *instance;
}

void release_block(void* ptr) { allocator().give_back(ptr); }

}  // namespace

c10::Allocator* pinned_host_allocator() { return &allocator(); }

bool is_pinned_host_pointer(const void* ptr) { return ptr != nullptr && allocator().contains(ptr); }

void record_pinned_use(const void* ptr, int32_t device, tflStream stream) { allocator().record_use(ptr, device, stream); }

}  // namespace torch_fl
