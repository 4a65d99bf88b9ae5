#include <torch_fl/allocator.h>


#include <c10/core/CachingDeviceAllocator.h>
#include <c10/util/Exception.h>

#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include <torch_fl/device.h>
#include <torch_fl/driver.h>
#include <torch_fl/stream.h>
#include <torch_fl/conversion_cache.h>

namespace torch_fl {
namespace {

constexpr size_t kRounding = 512;  // every block size is a multiple of this
constexpr int kMaxDevices = 64;

struct Block {
  void* ptr;
  size_t size;  // rounded
  c10::DeviceIndex device;
  c10::StreamId stream;  // the stream it was allocated on; reused only there
  // Other streams that used it (record_stream): it is reused only after
  // their work queued before the free has completed.
  std::vector<c10::Stream> other_streams;
};

// A freed block waiting for the streams that used it.
struct PendingBlock {
  Block* block;
  std::vector<tflEvent> events;
};

size_t round_size(size_t bytes) { return bytes == 0 ? kRounding : (bytes + kRounding - 1) / kRounding * kRounding; }

class DeviceCache {
 public:
  // Cached free blocks of one stream: size → blocks.
  using FreeList = std::multimap<size_t, Block*>;

  Block* take_cached(c10::StreamId stream, size_t size) {
    reclaim_completed();
    std::lock_guard<std::mutex> lock(mutex);
    auto& free = free_by_stream[stream];
    // Best fit, but never hand out more than twice the request: big blocks
    // stay available for big tensors.
    auto it = free.lower_bound(size);
    if (it == free.end() || it->first > 2 * size) return nullptr;
    Block* block = it->second;
    free.erase(it);
    mark_allocated(block->size);
    return block;
  }

  void mark_allocated(size_t size) {
    stats.allocated_bytes += size;
    stats.allocations += 1;
    stats.peak_allocated_bytes = std::max(stats.peak_allocated_bytes, stats.allocated_bytes);
  }

  void give_back(Block* block) {
    if (!block->other_streams.empty()) {
      // Mark where each other stream is now; the block waits for those marks.
      PendingBlock pending{block, {}};
      for (const c10::Stream& stream : block->other_streams) {
        tflEvent event = nullptr;
        if (driver().event_create(block->device, &event) == TFL_SUCCESS &&
            driver().event_record(event, driver_stream(stream)) == TFL_SUCCESS) {
          pending.events.push_back(event);
        }
      }
      block->other_streams.clear();
      std::lock_guard<std::mutex> lock(mutex);
      stats.allocated_bytes -= block->size;
      pending_.push_back(std::move(pending));
      has_pending_.store(true, std::memory_order_release);
      return;
    }
    std::lock_guard<std::mutex> lock(mutex);
    stats.allocated_bytes -= block->size;
    free_by_stream[block->stream].emplace(block->size, block);
  }

  // Moves pending blocks whose streams have passed their marks to the free lists.
  // Driver queries run without the lock held.
  void reclaim_completed() {
    // Most allocations find nothing pending: skip the lock then (per-op hot path).
    if (!has_pending_.load(std::memory_order_acquire)) return;
    std::vector<PendingBlock> pending;
    {
      std::lock_guard<std::mutex> lock(mutex);
      pending.swap(pending_);
      has_pending_.store(false, std::memory_order_release);
    }
    std::vector<PendingBlock> still_pending;
    std::vector<Block*> ready;
    for (PendingBlock& entry : pending) {
      bool done = true;
      for (tflEvent event : entry.events) {
        int32_t completed = 0;
        if (driver().event_query(event, &completed) != TFL_SUCCESS || !completed) done = false;
      }
      if (!done) {
        still_pending.push_back(std::move(entry));
        continue;
      }
      for (tflEvent event : entry.events) driver().event_destroy(event);
      ready.push_back(entry.block);
    }
    std::lock_guard<std::mutex> lock(mutex);
    for (Block* block : ready) free_by_stream[block->stream].emplace(block->size, block);
    for (PendingBlock& entry : still_pending) pending_.push_back(std::move(entry));
    has_pending_.store(!pending_.empty(), std::memory_order_release);
  }

  // Waits for every pending block (empty_cache and out-of-memory paths synchronise the device anyway).
  void reclaim_all_after_sync() {
    std::lock_guard<std::mutex> lock(mutex);
    for (PendingBlock& entry : pending_) {
      for (tflEvent event : entry.events) driver().event_destroy(event);
      free_by_stream[entry.block->stream].emplace(entry.block->size, entry.block);
    }
    pending_.clear();
    has_pending_.store(false, std::memory_order_release);
  }

  std::vector<PendingBlock> pending_;  // guarded by mutex
  std::atomic<bool> has_pending_{false};  // !pending_.empty(), readable without the lock

  // Detaches every cached block (under the lock); the caller frees them
  // through the driver without holding it.
  std::vector<std::unique_ptr<Block>> detach_cached() {
    std::lock_guard<std::mutex> lock(mutex);
    std::vector<std::unique_ptr<Block>> blocks;
    for (auto& [stream, free] : free_by_stream) {
      for (auto& [size, block] : free) {
        stats.reserved_bytes -= size;
        blocks.emplace_back(block);
      }
      free.clear();
    }
    return blocks;
  }

  std::mutex mutex;  // guards free_by_stream and stats
  std::unordered_map<c10::StreamId, FreeList> free_by_stream;
  MemoryStats stats;
};

std::array<DeviceCache, kMaxDevices>& caches() {
  // Never destroyed: tensors may be freed during static destruction.
  static auto* all = new std::array<DeviceCache, kMaxDevices>();
  return *all;
}

// The blocks come from drain_cache, after the device has drained.
void release_to_driver(c10::DeviceIndex device, std::vector<std::unique_ptr<Block>> blocks) {
  for (auto& block : blocks) TORCH_FL_DRIVER_CHECK(driver().free(device, block->ptr));
}

// Every cached block of a device, pending ones included. Queued work may still
// use a cached block, so the device drains first.
std::vector<std::unique_ptr<Block>> drain_cache(c10::DeviceIndex device) {
  synchronize_device(device);
  caches()[device].reclaim_all_after_sync();
  return caches()[device].detach_cached();
}

void delete_block(void* context) {
  auto* block = static_cast<Block*>(context);
  caches()[block->device].give_back(block);
}

// A c10::DeviceAllocator, so that torch.accelerator's memory functions
// (memory_stats, memory_allocated, empty_cache, ...) work for the device.
class CachingDeviceAllocator final : public c10::DeviceAllocator {
 public:
  bool initialized() override { return true; }
  void emptyCache(c10::MempoolId_t) override { empty_cache(); }
  void recordStream(const c10::DataPtr& data, c10::Stream stream) override { record_stream(data, stream); }
  c10::CachingDeviceAllocator::DeviceStats getDeviceStats(c10::DeviceIndex device) override {
    const MemoryStats ours = memory_stats(device);
    c10::CachingDeviceAllocator::DeviceStats stats;
    auto set = [](c10::CachingAllocator::StatArray& array, int64_t current, int64_t peak) {
      auto& stat = array[static_cast<size_t>(c10::CachingAllocator::StatType::AGGREGATE)];
      stat.current = current;
      stat.peak = peak;
    };
    set(stats.allocated_bytes, ours.allocated_bytes, ours.peak_allocated_bytes);
    set(stats.active_bytes, ours.allocated_bytes, ours.peak_allocated_bytes);
    set(stats.reserved_bytes, ours.reserved_bytes, ours.peak_reserved_bytes);
    stats.num_alloc_retries = ours.alloc_retries;
    stats.num_ooms = ours.ooms;
    stats.num_device_alloc = ours.driver_allocations;
    return stats;
  }
  void resetAccumulatedStats(c10::DeviceIndex) override {}
  void resetPeakStats(c10::DeviceIndex device) override { reset_peak_memory_stats(device); }
  std::pair<size_t, size_t> getMemoryInfo(c10::DeviceIndex device) override {
    size_t free_bytes = 0, total_bytes = 0;
    TORCH_FL_DRIVER_CHECK(driver().memory_info(device, &free_bytes, &total_bytes));
    return {free_bytes, total_bytes};
  }

  c10::DataPtr allocate(size_t bytes) override {
    check_not_forked();
    const c10::DeviceIndex device = current_device();
    const c10::Device where = make_device(device);
    if (bytes == 0) return c10::DataPtr(nullptr, nullptr, &c10::detail::deleteNothing, where);
    const size_t size = round_size(bytes);
    const c10::StreamId stream = current_stream(device).id();
    DeviceCache& cache = caches()[device];
    Block* block = cache.take_cached(stream, size);
    if (!block) block = allocate_from_driver(device, stream, size, bytes);
    return c10::DataPtr(block->ptr, block, &delete_block, where);
  }

  c10::DeleterFnPtr raw_deleter() const override { return nullptr; }

  void copy_data(void* dest, const void* src, std::size_t count) const override {
    const c10::DeviceIndex device = current_device();
    tflStream stream = current_driver_stream(device);
    TORCH_FL_DRIVER_CHECK(driver().memcpy_d2d_async(dest, src, count, stream));
  }

 private:
  static Block* allocate_from_driver(c10::DeviceIndex device, c10::StreamId stream, size_t size, size_t requested) {
    DeviceCache& cache = caches()[device];
    void* ptr = nullptr;
    tflStatus status = driver().malloc(device, size, &ptr);
    if (status != TFL_SUCCESS && driver().status_is_out_of_memory(status)) {
      {
        std::lock_guard<std::mutex> lock(cache.mutex);
        cache.stats.alloc_retries += 1;
      }
      release_to_driver(device, drain_cache(device));
      status = driver().malloc(device, size, &ptr);
    }
    if (status != TFL_SUCCESS && driver().status_is_out_of_memory(status)) {
      size_t free_bytes = 0, total_bytes = 0;
      driver().memory_info(device, &free_bytes, &total_bytes);
      MemoryStats stats;
      {
        std::lock_guard<std::mutex> lock(cache.mutex);
        cache.stats.ooms += 1;
        stats = cache.stats;
      }
      TORCH_CHECK_WITH(OutOfMemoryError, false, "[", driver().vendor, "] out of memory on device ",
                       static_cast<int>(device), ": tried to allocate ", requested, " bytes; ", free_bytes,
                       " bytes free of ", total_bytes, ", ", stats.allocated_bytes, " allocated by tensors, ",
                       stats.reserved_bytes, " reserved by the caching allocator");
    }
    TORCH_FL_DRIVER_CHECK(status);
    auto* block = new Block{ptr, size, device, stream};  // owned by the DataPtr, then by the cache
    std::lock_guard<std::mutex> lock(cache.mutex);
    cache.stats.reserved_bytes += size;
    cache.stats.driver_allocations += 1;
    cache.stats.peak_reserved_bytes = std::max(cache.stats.peak_reserved_bytes, cache.stats.reserved_bytes);
    cache.mark_allocated(size);
    return block;
  }
};

CachingDeviceAllocator g_allocator;
// Tensors of PrivateUse1 created by PyTorch itself (e.g. empty_strided) use this.
REGISTER_ALLOCATOR(c10::DeviceType::PrivateUse1, &g_allocator);

}  // namespace

c10::Allocator* device_allocator() { return &g_allocator; }

MemoryStats memory_stats(c10::DeviceIndex device) {
  check_device_index(device);
  DeviceCache& cache = caches()[device];
  std::lock_guard<std::mutex> lock(cache.mutex);
  return cache.stats;
}

void reset_peak_memory_stats(c10::DeviceIndex device) {
  check_device_index(device);
  DeviceCache& cache = caches()[device];
  std::lock_guard<std::mutex> lock(cache.mutex);
  cache.stats.peak_allocated_bytes = cache.stats.allocated_bytes;
  cache.stats.peak_reserved_bytes = cache.stats.reserved_bytes;
}

void empty_cache() {
  clear_conversion_cache();  // cached conversions hold device blocks too
  for (c10::DeviceIndex d = 0; d < device_count(); ++d) release_to_driver(d, drain_cache(d));
}

void record_stream(const c10::DataPtr& data, c10::Stream stream) {
  if (data.get_deleter() != &delete_block) return;  // not a block of ours (e.g. an empty tensor)
  auto* block = static_cast<Block*>(data.get_context());
  if (stream.id() == block->stream) return;
  for (const c10::Stream& known : block->other_streams) {
    if (known == stream) return;
  }
  block->other_streams.push_back(stream);
}

}  // namespace torch_fl
