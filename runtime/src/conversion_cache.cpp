#include "conversion_cache.h"

#include <c10/core/StorageImpl.h>
#include <c10/util/intrusive_ptr.h>

#include <list>
#include <mutex>
#include <vector>

namespace torch_fl {
namespace {

struct Entry {
  c10::weak_intrusive_ptr<c10::StorageImpl> storage;
  const char* converter;  // names are string literals of generated code
  tflStream stream;
  uint32_t version;
  c10::ScalarType dtype;
  int64_t offset;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  at::Tensor converted;

  bool matches(const at::Tensor& source, const char* name, tflStream on, uint32_t current_version) const {
    if (converter != name || stream != on || version != current_version || dtype != source.scalar_type() ||
        offset != source.storage_offset() || source.sizes() != at::IntArrayRef(sizes) ||
        source.strides() != at::IntArrayRef(strides)) {
      return false;
    }
    auto alive = storage.lock();
    return alive && alive.get() == source.storage().unsafeGetStorageImpl();
  }
};

// A few weights per model: a small most-recently-used list is enough.
constexpr size_t kMaxEntries = 256;

struct Cache {
  std::mutex mutex;  // guards the members below
  std::list<Entry> entries;  // most recently used first
  ConversionCacheStats stats;
};

// Never destroyed: cached device tensors must not be freed during static
// destruction, after the allocator may be gone.
Cache& cache() {
  static auto* instance = new Cache();
  return *instance;
}

}  // namespace

at::Tensor reuse_conversion(const at::Tensor& source, const char* converter_name, Converter convert,
                            tflStream stream) {
  // Inference tensors have no version counter, so a change could go unseen.
  if (!source.defined() || source.is_inference()) return convert(source);
  const uint32_t version = source.unsafeGetTensorImpl()->version_counter().current_version();
  Cache& c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    for (auto it = c.entries.begin(); it != c.entries.end(); ++it) {
      if (it->matches(source, converter_name, stream, version)) {
        ++c.stats.hits;
        c.entries.splice(c.entries.begin(), c.entries, it);
        return it->converted;
      }
    }
    ++c.stats.misses;
  }
  // Convert outside the lock: it launches device work.
  at::Tensor converted = convert(source);
  std::lock_guard<std::mutex> lock(c.mutex);
  const c10::StorageImpl* impl = source.storage().unsafeGetStorageImpl();
  c.entries.remove_if([&](const Entry& e) {  // an older conversion of the same tensor is stale now
    auto alive = e.storage.lock();
    return !alive || (alive.get() == impl && e.converter == converter_name && e.stream == stream);
  });
  c.entries.push_front(Entry{c10::weak_intrusive_ptr<c10::StorageImpl>(
                               c10::intrusive_ptr<c10::StorageImpl>::reclaim_copy(source.storage().unsafeGetStorageImpl())),
                           converter_name, stream, version, source.scalar_type(), source.storage_offset(),
                           source.sizes().vec(), source.strides().vec(), converted});
  if (c.entries.size() > kMaxEntries) c.entries.pop_back();
  c.stats.entries = c.entries.size();
  return converted;
}

ConversionCacheStats conversion_cache_stats() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  ConversionCacheStats result = c.stats;
  result.entries = c.entries.size();
  return result;
}

void clear_conversion_cache() {
  Cache& c = cache();
  std::list<Entry> dropped;
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    dropped.swap(c.entries);
    c.stats.entries = 0;
  }
  // `dropped` frees its tensors here, outside the lock (freeing takes the allocator's).
}

}  // namespace torch_fl
