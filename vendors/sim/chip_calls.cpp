#include "chip_calls.h"

namespace torch_fl::sim {
namespace {

Outcome no_device(int device) { return {Failure::kInvalidDevice, "device " + std::to_string(device)}; }

Outcome check_copy(const Chip& chip, void* dst, const void* src, size_t bytes, CopyKind kind) {
  if (kind != CopyKind::kDeviceToHost && !chip.resident(dst, bytes)) {
    return {Failure::kInvalidAddress, "destination is not device memory"};
  }
  const bool from_host = kind == CopyKind::kHostToDevice || kind == CopyKind::kPinnedHostToDevice;
  if (!from_host && !chip.resident(src, bytes)) return {Failure::kInvalidAddress, "source is not device memory"};
  return {};
}

}  // namespace

Outcome device_count(const Chip& chip, int* count) {
  if (!chip.configuration_error().empty()) return {Failure::kBadConfiguration, chip.configuration_error()};
  *count = chip.device_count();
  return {};
}

Outcome allocate(const Chip& chip, int device, size_t bytes, void** ptr) {
  DeviceArena* arena = chip.arena(device);
  if (!arena) return no_device(device);
  // Not page-aligned for sharing: the pages around an allocation are shared instead
  // (shared_pages.h).
  *ptr = arena->allocate(bytes);
  if (!*ptr) return {Failure::kOutOfMemory, chip.out_of_memory_detail(device, bytes)};
  return {};
}

Outcome release(const Chip& chip, void* ptr) {
  if (!ptr) return {};
  const int device = chip.device_owning(ptr);
  DeviceArena* arena = chip.arena(device);
  if (arena && chip.shared_pages(device)->is_opened(ptr)) {
    return {Failure::kInvalidAddress, "pointer is memory opened from another process: close it with the IPC close call"};
  }
  if (!arena || !arena->release(ptr)) return {Failure::kInvalidAddress, "pointer is not a live device allocation"};
  return {};
}

Outcome ipc_get(const Chip& chip, void* ptr, SharedPagesHandle* handle) {
  const int device = chip.device_owning(ptr);
  if (device < 0) return {Failure::kInvalidAddress, "pointer is not device memory"};
  std::string error = chip.shared_pages(device)->share(ptr, handle);
  if (!error.empty()) return {Failure::kInvalidAddress, std::move(error)};
  return {};
}

Outcome ipc_open(const Chip& chip, int device, const SharedPagesHandle& handle, void** ptr, size_t* bytes) {
  SharedPages* shared = chip.shared_pages(device);
  if (!shared) return no_device(device);
  bool out_of_memory = false;
  std::string error = shared->open(handle, ptr, bytes, &out_of_memory);
  if (error.empty()) return {};
  return {out_of_memory ? Failure::kOutOfMemory : Failure::kInvalidValue, std::move(error)};
}

Outcome ipc_close(const Chip& chip, void* ptr) {
  const int device = chip.device_owning(ptr);
  if (device < 0) return {Failure::kInvalidAddress, "pointer is not device memory"};
  std::string error = chip.shared_pages(device)->close(ptr);
  if (!error.empty()) return {Failure::kInvalidAddress, std::move(error)};
  return {};
}

Outcome memory_info(const Chip& chip, int device, size_t* free_bytes, size_t* total_bytes) {
  const DeviceArena* arena = chip.arena(device);
  if (!arena) return no_device(device);
  *total_bytes = arena->capacity();
  *free_bytes = arena->capacity() - arena->used();
  return {};
}

Outcome busy_time_ns(const Chip& chip, int device, uint64_t* busy_ns, uint64_t* uptime_ns) {
  BusyClock* clock = chip.busy_clock(device);
  if (!clock) return no_device(device);
  clock->read(busy_ns, uptime_ns);
  return {};
}

Outcome synchronize(QueueHandle& queue) {
  std::string error = queue.work->synchronize();
  if (error.empty()) return {};
  return {Failure::kExecution, std::move(error)};
}

void wait_for(QueueHandle& queue, const MarkerHandle& marker) {
  queue.work->submit([marker = marker.marker]() -> std::string {
    marker->wait();
    return "";
  });
}

Outcome copy_async(const Chip& chip, QueueHandle& queue, void* dst, const void* src, size_t bytes, CopyKind kind) {
  Outcome checked = check_copy(chip, dst, src, bytes, kind);
  if (!checked.ok()) return checked;
  chip.copy_async(*queue.work, dst, src, bytes, /*stage_host_source=*/kind == CopyKind::kHostToDevice);
  return {};
}

Outcome copy(const Chip& chip, QueueHandle& queue, void* dst, const void* src, size_t bytes, CopyKind kind) {
  Outcome checked = check_copy(chip, dst, src, bytes, kind);
  if (!checked.ok()) return checked;
  chip.copy_async(*queue.work, dst, src, bytes, /*stage_host_source=*/false);
  return synchronize(queue);
}

}  // namespace torch_fl::sim
