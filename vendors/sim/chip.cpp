#include "chip.h"

#include <cstdlib>
#include <cstring>
#include <optional>

#include "staging_pool.h"

namespace torch_fl::sim {
namespace {

size_t env_size(const std::string& name, size_t fallback) {
  const char* text = std::getenv(name.c_str());
  if (!text || !*text) return fallback;
  return static_cast<size_t>(std::strtoull(text, nullptr, 10));
}

StagingPool& staging() {
  // Never destroyed: queued copies may still hold staging buffers at exit.
  static auto* pool = new StagingPool();
  return *pool;
}

}  // namespace

Chip::Chip(const ChipConfig& config) : alignment_(config.alignment) {
  const size_t count = env_size(config.env_prefix + "_DEVICES", config.default_devices);
  const size_t capacity = env_size(config.env_prefix + "_MEMORY_MB", config.default_memory_mb) << 20;
  const bool protect = env_size(config.env_prefix + "_PROTECT", 0) != 0;
  for (size_t i = 0; i < count; ++i) {
    arenas_.push_back(std::make_unique<DeviceArena>(capacity, config.alignment, protect));
  }
}

DeviceArena* Chip::arena(int device) const {
  return device >= 0 && static_cast<size_t>(device) < arenas_.size() ? arenas_[device].get() : nullptr;
}

int Chip::device_owning(const void* ptr) const {
  for (size_t i = 0; i < arenas_.size(); ++i) {
    if (arenas_[i]->contains(ptr)) return static_cast<int>(i);
  }
  return -1;
}

bool Chip::resident(const void* ptr, size_t bytes) const {
  const int device = device_owning(ptr);
  return device >= 0 && arenas_[device]->covers(ptr, bytes);
}

void Chip::enqueue(WorkQueue& queue, WorkQueue::Task work) const {
  queue.submit([this, work = std::move(work)]() {
    std::vector<std::optional<DeviceArena::AccessScope>> scopes(arenas_.size());
    for (size_t i = 0; i < scopes.size(); ++i) scopes[i].emplace(*arenas_[i]);
    return work();
  });
}

void Chip::copy_async(WorkQueue& queue, void* dst, const void* src, size_t bytes, bool stage_host_source) const {
  if (bytes == 0) return;
  if (stage_host_source) {
    std::shared_ptr<uint8_t> staged = staging().take(bytes);
    std::memcpy(staged.get(), src, bytes);
    enqueue(queue, [dst, staged, bytes]() -> std::string {
      std::memcpy(dst, staged.get(), bytes);
      return "";
    });
    return;
  }
  enqueue(queue, [dst, src, bytes]() -> std::string {
    std::memcpy(dst, src, bytes);
    return "";
  });
}

}  // namespace torch_fl::sim
