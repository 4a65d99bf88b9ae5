#include "chip.h"

#include <cstdlib>
#include <cstring>
#include <optional>

#include "copy_lanes.h"
#include "staging_pool.h"

namespace torch_fl::sim {
namespace {

// A whole number in [low, high] from the environment, or `fallback` when unset.
// Anything else (signs, units, spaces, overflow) is refused by name: a typo in
// a memory size must not silently make a 0-byte device.
std::optional<size_t> env_size(const std::string& name, size_t fallback, size_t low, size_t high,
                               std::string& error) {
  const char* text = std::getenv(name.c_str());
  if (!text || !*text) return fallback;
  size_t value = 0;
  bool valid = true;
  for (const char* c = text; *c && valid; ++c) {
    valid = *c >= '0' && *c <= '9' && value <= (high + 9) / 10;
    value = value * 10 + static_cast<size_t>(*c - '0');
  }
  if (valid && value >= low && value <= high) return value;
  error = name + "='" + text + "' is not valid: expected a whole number from " + std::to_string(low) + " to " +
          std::to_string(high);
  return std::nullopt;
}

// Names the chip in its IPC handles, the same in every process: FNV-1a of the
// environment prefix ("TORCH_FL_MLU"), so an MLU refuses an NPU's handle.
uint64_t chip_tag(const std::string& env_prefix) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (const char c : env_prefix) hash = (hash ^ static_cast<uint8_t>(c)) * 0x100000001b3ULL;
  return hash;
}

StagingPool& staging() {
  // Never destroyed: queued copies may still hold staging buffers at exit.
  static auto* pool = new StagingPool();
  return *pool;
}

}  // namespace

Chip::Chip(const ChipConfig& config) : alignment_(config.alignment) {
  const auto count = env_size(config.env_prefix + "_DEVICES", config.default_devices, 0, kMaxDevices,
                              configuration_error_);
  const auto memory_mb = env_size(config.env_prefix + "_MEMORY_MB", config.default_memory_mb, 1, kMaxMemoryMb,
                                  configuration_error_);
  const auto protect = env_size(config.env_prefix + "_PROTECT", 0, 0, 1, configuration_error_);
  const auto spin_us = env_size(config.env_prefix + "_SPIN_US", kDefaultSpinUs, 0, kMaxSpinUs, configuration_error_);
  if (!count || !memory_mb || !protect || !spin_us) return;
  idle_spin_us_ = *spin_us;
  protected_ = *protect != 0;
  try {
    for (size_t i = 0; i < *count; ++i) {
      arenas_.push_back(std::make_unique<DeviceArena>(*memory_mb << 20, config.alignment, *protect != 0));
      busy_clocks_.push_back(std::make_unique<BusyClock>());
      shared_pages_.push_back(
          std::make_unique<SharedPages>(*arenas_.back(), chip_tag(config.env_prefix), static_cast<int32_t>(i)));
    }
  } catch (const std::exception& error) {  // e.g. the address space cannot be reserved: no C++ exception crosses the C API
    shared_pages_.clear();
    arenas_.clear();
    busy_clocks_.clear();
    configuration_error_ = config.env_prefix + "_DEVICES=" + std::to_string(*count) + " x " + config.env_prefix +
                           "_MEMORY_MB=" + std::to_string(*memory_mb) + ": " + error.what();
  }
}

std::string Chip::out_of_memory_detail(int device, size_t bytes) const {
  const DeviceArena* memory = arena(device);
  if (!memory) return "device " + std::to_string(device) + " does not exist";
  return "device " + std::to_string(device) + ": " + std::to_string(bytes) + " bytes requested, " +
         std::to_string(memory->capacity() - memory->used()) + " bytes free, the largest free block is " +
         std::to_string(memory->largest_free_block()) + " bytes";
}

DeviceArena* Chip::arena(int device) const {
  return device >= 0 && static_cast<size_t>(device) < arenas_.size() ? arenas_[device].get() : nullptr;
}

BusyClock* Chip::busy_clock(int device) const {
  return arena(device) ? busy_clocks_[device].get() : nullptr;
}

SharedPages* Chip::shared_pages(int device) const {
  return arena(device) ? shared_pages_[device].get() : nullptr;
}

std::unique_ptr<WorkQueue> Chip::new_queue(int device, int priority) const {
  return std::make_unique<WorkQueue>(device, priority, std::chrono::microseconds(idle_spin_us_), busy_clock(device));
}

void Chip::enqueue_protected(WorkQueue& queue, WorkQueue::Task work) const {
  queue.submit([this, work = std::move(work)]() mutable {
    std::vector<std::optional<DeviceArena::AccessScope>> scopes(arenas_.size());
    for (size_t i = 0; i < scopes.size(); ++i) scopes[i].emplace(*arenas_[i]);
    return work();
  });
}

void Chip::copy_async(WorkQueue& queue, void* dst, const void* src, size_t bytes, bool stage_host_source) const {
  if (bytes == 0) return;
  if (stage_host_source) {
    std::shared_ptr<uint8_t> staged = staging().take(bytes);
    copy_over_lanes(staged.get(), src, bytes);
    enqueue(queue, [dst, staged, bytes]() -> std::string {
      copy_over_lanes(dst, staged.get(), bytes);
      return "";
    });
    return;
  }
  enqueue(queue, [dst, src, bytes]() -> std::string {
    copy_over_lanes(dst, src, bytes);
    return "";
  });
}

}  // namespace torch_fl::sim
