#include "allocator.h"

#include <c10/core/CachingDeviceAllocator.h>
#include <c10/util/Exception.h>

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <set>
#include <vector>

#include "allocator_config.h"
#include "allocator_history.h"
#include "conversion_cache.h"
#include <torch_fl/device.h>
#include "driver.h"
#include "ipc.h"
#include <torch_fl/private_format.h>
#include <torch_fl/stream.h>

namespace torch_fl {
namespace {

// Sizes, as in PyTorch's CUDA caching allocator: requests of up to 1 MiB come
// from 2 MiB "small" segments; larger ones from "large" segments (20 MiB for
// requests under 10 MiB, else the request rounded up to 2 MiB). Blocks are
// split to fit a request and merged with free neighbours when freed.
constexpr size_t kRounding = 512;           // every block size is a multiple of this
constexpr size_t kSmallRequest = 1 << 20;   // up to this: the small pool
constexpr size_t kSmallSegment = 2 << 20;
constexpr size_t kLargeSegment = 20 << 20;
constexpr size_t kMinLargeSegmentRequest = 10 << 20;
constexpr size_t kLargeRounding = 2 << 20;
constexpr int kMaxDevices = 64;

struct Block {
  void* ptr = nullptr;
  size_t size = 0;  // rounded
  c10::DeviceIndex device = 0;
  c10::StreamId stream = 0;  // the stream it was allocated on; reused only there
  bool small = false;        // which pool
  bool allocated = false;
  bool pending = false;  // freed, waiting for other streams (record_stream)
  size_t segment_size = 0;  // on a segment's first block: the driver allocation's size
  Block* prev = nullptr;  // neighbours in the same segment
  Block* next = nullptr;
  // Other streams that used it (record_stream): it is reused only after
  // their work queued before the free has completed.
  std::vector<c10::Stream> other_streams;
};

// Free blocks by (stream, size, address): best fit on the caller's stream.
struct BlockOrder {
  bool operator()(const Block* a, const Block* b) const {
    if (a->stream != b->stream) return a->stream < b->stream;
    if (a->size != b->size) return a->size < b->size;
    return reinterpret_cast<uintptr_t>(a->ptr) < reinterpret_cast<uintptr_t>(b->ptr);
  }
};
using FreeBlocks = std::set<Block*, BlockOrder>;

// A freed block waiting for the streams that used it.
struct PendingBlock {
  Block* block;
  std::vector<tflEvent> events;
};

size_t round_size(size_t bytes) { return bytes == 0 ? kRounding : (bytes + kRounding - 1) / kRounding * kRounding; }

size_t segment_size_for(size_t size) {
  if (size <= kSmallRequest) return kSmallSegment;
  if (size < kMinLargeSegmentRequest) return kLargeSegment;
  return (size + kLargeRounding - 1) / kLargeRounding * kLargeRounding;
}

class DeviceCache {
 public:
  // A cached block of at least `size` on `stream`, split to fit; nullptr if none.
  Block* take_cached(c10::StreamId stream, size_t size) {
    reclaim_completed();
    std::lock_guard<std::mutex> lock(mutex);
    const bool small = size <= kSmallRequest;
    FreeBlocks& pool = small ? small_free : large_free;
    Block key;
    key.stream = stream;
    key.size = size;
    auto it = pool.lower_bound(&key);
    if (it == pool.end() || (*it)->stream != stream) return nullptr;
    Block* block = *it;
    const size_t max_split = allocator_config().max_split_size;
    // An unsplittable (oversize) block serves only a request of about its size.
    if (size < max_split && block->size >= max_split) return nullptr;
    if (size >= max_split && block->size >= size + kLargeSegment) return nullptr;
    pool.erase(it);
    split(block, size, pool);
    mark_allocated(block);
    return block;
  }

  // A new segment from the driver holds the block; the rest of it is cached.
  Block* add_segment(void* ptr, size_t segment_size, c10::DeviceIndex device, c10::StreamId stream, size_t size) {
    std::lock_guard<std::mutex> lock(mutex);
    Block* block = new_block();
    block->ptr = ptr;
    block->size = segment_size;
    block->segment_size = segment_size;
    block->device = device;
    block->stream = stream;
    block->small = size <= kSmallRequest;
    segments.insert(block);
    record_allocator_event(device, HistoryAction::kSegmentAlloc, ptr, segment_size, stream);
    stats.reserved_bytes += segment_size;
    stats.driver_allocations += 1;
    stats.peak_reserved_bytes = std::max(stats.peak_reserved_bytes, stats.reserved_bytes);
    split(block, size, block->small ? small_free : large_free);
    mark_allocated(block);
    return block;
  }

  void give_back(Block* block) {
    record_allocator_event(block->device, HistoryAction::kFreeRequested, block->ptr, block->size, block->stream);
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
      block->allocated = false;
      block->pending = true;
      pending_.push_back(std::move(pending));
      has_pending_.store(true, std::memory_order_release);
      return;
    }
    std::lock_guard<std::mutex> lock(mutex);
    stats.allocated_bytes -= block->size;
    free_block(block);
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
    for (Block* block : ready) free_block(block);
    for (PendingBlock& entry : still_pending) pending_.push_back(std::move(entry));
    has_pending_.store(!pending_.empty(), std::memory_order_release);
  }

  // Waits for every pending block (empty_cache and out-of-memory paths synchronise the device anyway).
  void reclaim_all_after_sync() {
    std::lock_guard<std::mutex> lock(mutex);
    for (PendingBlock& entry : pending_) {
      for (tflEvent event : entry.events) driver().event_destroy(event);
      free_block(entry.block);
    }
    pending_.clear();
    has_pending_.store(false, std::memory_order_release);
  }

  // Detaches every wholly free segment (under the lock): (address, size) for
  // the caller to free through the driver without holding it.
  std::vector<std::pair<void*, size_t>> detach_free_segments() {
    std::lock_guard<std::mutex> lock(mutex);
    std::vector<std::pair<void*, size_t>> released;
    for (auto it = segments.begin(); it != segments.end();) {
      Block* head = *it;
      if (head->allocated || head->pending || head->next != nullptr) {
        ++it;
        continue;
      }
      (head->small ? small_free : large_free).erase(head);
      stats.reserved_bytes -= head->segment_size;
      record_allocator_event(head->device, HistoryAction::kSegmentFree, head->ptr, head->segment_size, head->stream);
      released.emplace_back(head->ptr, head->segment_size);
      it = segments.erase(it);
      recycle(head);
    }
    return released;
  }

  // Every segment and its blocks, for memory_snapshot().
  std::vector<SegmentInfo> snapshot() {
    std::lock_guard<std::mutex> lock(mutex);
    std::vector<SegmentInfo> result;
    for (Block* head : segments) {
      SegmentInfo segment{reinterpret_cast<uintptr_t>(head->ptr), head->segment_size, head->stream, head->small, {}};
      for (Block* b = head; b != nullptr; b = b->next) {
        segment.blocks.push_back({reinterpret_cast<uintptr_t>(b->ptr), b->size,
                                  b->allocated ? BlockState::kAllocated
                                               : b->pending ? BlockState::kPendingFree : BlockState::kFree});
      }
      result.push_back(std::move(segment));
    }
    return result;
  }

  std::mutex mutex;  // guards everything below
  MemoryStats stats;

 private:
  void mark_allocated(Block* block) {
    block->allocated = true;
    stats.allocated_bytes += block->size;
    stats.active_bytes += block->size;
    stats.peak_active_bytes = std::max(stats.peak_active_bytes, stats.active_bytes);
    stats.allocations += 1;
    stats.peak_allocated_bytes = std::max(stats.peak_allocated_bytes, stats.allocated_bytes);
  }

  // Cuts `block` down to `size` when the rest is worth keeping as its own block.
  void split(Block* block, size_t size, FreeBlocks& pool) {
    const size_t rest = block->size - size;
    const bool worth = block->small ? rest >= kRounding
                                    : size < allocator_config().max_split_size && rest > kSmallRequest;
    if (!worth) return;
    Block* remainder = new_block();
    remainder->ptr = static_cast<char*>(block->ptr) + size;
    remainder->size = rest;
    remainder->device = block->device;
    remainder->stream = block->stream;
    remainder->small = block->small;
    remainder->prev = block;
    remainder->next = block->next;
    if (block->next) block->next->prev = remainder;
    block->next = remainder;
    block->size = size;
    pool.insert(remainder);
  }

  // Returns a block to its pool, merged with free neighbours of its segment.
  void free_block(Block* block) {
    record_allocator_event(block->device, HistoryAction::kFreeCompleted, block->ptr, block->size, block->stream);
    stats.active_bytes -= block->size;
    block->allocated = false;
    block->pending = false;
    FreeBlocks& pool = block->small ? small_free : large_free;
    if (Block* next = block->next; next && !next->allocated && !next->pending) {
      pool.erase(next);
      absorb_next(block);
    }
    if (Block* prev = block->prev; prev && !prev->allocated && !prev->pending) {
      pool.erase(prev);
      absorb_next(prev);
      block = prev;
    }
    pool.insert(block);
  }

  // Merges block's next neighbour into block; the neighbour's Block is recycled.
  void absorb_next(Block* block) {
    Block* next = block->next;
    block->size += next->size;
    block->next = next->next;
    if (block->next) block->next->prev = block;
    recycle(next);
  }

  // Block objects are recycled: splitting and merging on the per-op path
  // allocate no heap memory once warm. Both run under the mutex.
  Block* new_block() {
    if (spare_.empty()) return new Block();
    Block* block = spare_.back();
    spare_.pop_back();
    return block;
  }
  void recycle(Block* block) {
    *block = Block();
    spare_.push_back(block);
  }

  FreeBlocks small_free, large_free;
  std::set<Block*> segments;  // each segment's first block
  std::vector<PendingBlock> pending_;
  std::atomic<bool> has_pending_{false};  // !pending_.empty(), readable without the lock
  std::vector<Block*> spare_;
};

std::array<DeviceCache, kMaxDevices>& caches() {
  // Never destroyed: tensors may be freed during static destruction.
  static auto* all = new std::array<DeviceCache, kMaxDevices>();
  return *all;
}

// Returns every wholly free segment of a device to the driver. Queued work may
// still use a cached block, so the device drains first.
void release_free_segments(c10::DeviceIndex device) {
  synchronize_device(device);
  caches()[device].reclaim_all_after_sync();
  for (auto [ptr, size] : caches()[device].detach_free_segments()) TORCH_FL_DRIVER_CHECK(driver().free(device, ptr));
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
    set(stats.active_bytes, ours.active_bytes, ours.peak_active_bytes);
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
    record_allocator_event(device, HistoryAction::kAlloc, block->ptr, block->size, stream);
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
    size_t segment = segment_size_for(size);
    const double threshold = allocator_config().garbage_collection_threshold;
    if (threshold > 0.0) {
      size_t free_bytes = 0, total_bytes = 0;
      int64_t reserved = 0;
      {
        std::lock_guard<std::mutex> lock(cache.mutex);
        reserved = cache.stats.reserved_bytes;
      }
      if (driver().memory_info(device, &free_bytes, &total_bytes) == TFL_SUCCESS &&
          static_cast<double>(reserved + segment) > threshold * static_cast<double>(total_bytes)) {
        release_free_segments(device);  // garbage collection before growing
      }
    }
    void* ptr = nullptr;
    tflStatus status = driver().malloc(device, segment, &ptr);
    if (status != TFL_SUCCESS && driver().status_is_out_of_memory(status)) {
      {
        std::lock_guard<std::mutex> lock(cache.mutex);
        cache.stats.alloc_retries += 1;
      }
      collect_sent_storages();  // blocks every receiver has released since the last send
      release_free_segments(device);
      status = driver().malloc(device, segment, &ptr);
      if (status != TFL_SUCCESS && driver().status_is_out_of_memory(status) && segment > size) {
        segment = size;  // no room for a whole segment: take just what was asked
        status = driver().malloc(device, segment, &ptr);
      }
    }
    if (status != TFL_SUCCESS && driver().status_is_out_of_memory(status)) {
      // The driver knows what the totals do not, e.g. that fragmentation left no
      // piece large enough; read it before another driver call replaces it.
      const char* driver_detail = driver().last_error_detail ? driver().last_error_detail() : nullptr;
      const std::string detail = driver_detail ? driver_detail : "";
      size_t free_bytes = 0, total_bytes = 0;
      driver().memory_info(device, &free_bytes, &total_bytes);
      MemoryStats stats;
      {
        std::lock_guard<std::mutex> lock(cache.mutex);
        cache.stats.ooms += 1;
        stats = cache.stats;
      }
      record_allocator_event(device, HistoryAction::kOom, nullptr, requested, stream, free_bytes);
      notify_out_of_memory(device);  // e.g. torch_fl writes a snapshot (TORCH_FL_OOM_SNAPSHOT)
      TORCH_CHECK_WITH(OutOfMemoryError, false, "[", driver().vendor, "] out of memory on device ",
                       static_cast<int>(device), ": tried to allocate ", requested, " bytes; ", free_bytes,
                       " bytes free of ", total_bytes, ", ", stats.allocated_bytes, " allocated by tensors, ",
                       stats.reserved_bytes, " reserved by the caching allocator",
                       detail.empty() ? "" : " (", detail, detail.empty() ? "" : ")");
    }
    TORCH_FL_DRIVER_CHECK(status);
    return cache.add_segment(ptr, segment, device, stream, size);  // owned by the DataPtr, then by the cache
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
  cache.stats.peak_active_bytes = cache.stats.active_bytes;
}

void empty_cache() {
  clear_conversion_cache();  // cached conversions hold device blocks too
  collect_sent_storages();    // as do storages sent to other processes, until released there
  for (c10::DeviceIndex d = 0; d < device_count(); ++d) release_free_segments(d);
}

std::vector<SegmentInfo> memory_snapshot(c10::DeviceIndex device) {
  check_device_index(device);
  return caches()[device].snapshot();
}

std::optional<SegmentOfBlock> segment_of(const c10::DataPtr& data) {
  if (data.get_deleter() != &delete_block) return std::nullopt;
  const auto* block = static_cast<const Block*>(data.get_context());
  std::lock_guard<std::mutex> lock(caches()[block->device].mutex);  // neighbours split and merge under it
  const Block* head = block;
  while (head->prev != nullptr) head = head->prev;
  return SegmentOfBlock{head->ptr, head->segment_size,
                        static_cast<size_t>(static_cast<char*>(block->ptr) - static_cast<char*>(head->ptr))};
}

void record_stream(const c10::DataPtr& shared_or_own, c10::Stream stream) {
  // A storage in a private format: its physical tensor holds the block.
  if (record_private_stream(shared_or_own, stream)) return;
  const c10::DataPtr& data = allocator_data_ptr(shared_or_own);  // a storage sent to another process wraps its block
  if (data.get_deleter() != &delete_block) return;  // not a block of ours (e.g. an empty tensor)
  auto* block = static_cast<Block*>(data.get_context());
  if (stream.id() == block->stream) return;
  for (const c10::Stream& known : block->other_streams) {
    if (known == stream) return;
  }
  block->other_streams.push_back(stream);
}

void record_stream_uses(const c10::DataPtr& shared_or_own, const c10::DataPtr& to) {
  const c10::DataPtr& from = allocator_data_ptr(shared_or_own);
  if (from.get_deleter() != &delete_block) return;
  const auto* source = static_cast<const Block*>(from.get_context());
  record_stream(to, c10::Stream(c10::Stream::UNSAFE, make_device(source->device), source->stream));
  for (const c10::Stream& other : source->other_streams) record_stream(to, other);
}

}  // namespace torch_fl
