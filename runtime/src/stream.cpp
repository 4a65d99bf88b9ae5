#include <torch_fl/stream.h>

#include <c10/util/Exception.h>

#include <array>
#include <atomic>
#include <mutex>

#include <torch_fl/device.h>
#include "driver.h"

namespace torch_fl {
namespace {

constexpr int kMaxDevices = 64;
constexpr int kPoolSize = 4;  // per priority
// Stream ids: 0 is the default stream, then kPoolSize normal and kPoolSize high-priority streams.
constexpr int kStreamsPerDevice = 1 + 2 * kPoolSize;

struct DeviceStreams {
  std::mutex create_mutex;  // serialises creation; lookups read the atomics only
  std::array<std::atomic<tflStream>, kStreamsPerDevice> streams{};
  std::array<std::atomic<uint32_t>, 2> next_in_pool{};
};

DeviceStreams& streams_of(c10::DeviceIndex device) {
  // Never destroyed: streams may be used during static destruction of other objects.
  static auto* all = new std::array<DeviceStreams, kMaxDevices>();
  check_device_index(device);
  TORCH_CHECK(device < kMaxDevices, "torch_fl supports at most ", kMaxDevices, " devices");
  return (*all)[device];
}

thread_local std::array<c10::StreamId, kMaxDevices> tls_current_stream_id{};

tflStream get_or_create(c10::DeviceIndex device, c10::StreamId id) {
  TORCH_CHECK(id >= 0 && id < kStreamsPerDevice, "[", driver().vendor, "] invalid stream id ", id);
  DeviceStreams& ds = streams_of(device);
  tflStream stream = ds.streams[id].load(std::memory_order_acquire);
  if (stream) return stream;
  std::lock_guard<std::mutex> lock(ds.create_mutex);
  stream = ds.streams[id].load(std::memory_order_relaxed);
  if (!stream) {
    const int priority = id > kPoolSize ? -1 : 0;
    TORCH_FL_DRIVER_CHECK(driver().stream_create(device, priority, &stream));
    ds.streams[id].store(stream, std::memory_order_release);
  }
  return stream;
}

c10::Stream make_stream(c10::DeviceIndex device, c10::StreamId id) {
  return c10::Stream(c10::Stream::UNSAFE, make_device(device), id);
}

}  // namespace

c10::Stream default_stream(c10::DeviceIndex device) { return make_stream(device, 0); }

c10::Stream current_stream(c10::DeviceIndex device) {
  if (device < 0) device = current_device();
  check_device_index(device);
  return make_stream(device, tls_current_stream_id[device]);
}

c10::Stream exchange_stream(c10::Stream stream) {
  const c10::DeviceIndex device = stream.device_index();
  const c10::Stream previous = current_stream(device);
  get_or_create(device, stream.id());  // validates the id
  tls_current_stream_id[device] = stream.id();
  return previous;
}

c10::Stream stream_from_pool(c10::DeviceIndex device, int priority) {
  if (device < 0) device = current_device();
  const int high = priority < 0 ? 1 : 0;
  const uint32_t slot = streams_of(device).next_in_pool[high].fetch_add(1) % kPoolSize;
  const c10::StreamId id = 1 + high * kPoolSize + slot;
  get_or_create(device, id);
  return make_stream(device, id);
}

bool side_streams_exist(c10::DeviceIndex device) {
  const DeviceStreams& ds = streams_of(device);
  for (int id = 1; id < kStreamsPerDevice; ++id) {
    if (ds.streams[id].load(std::memory_order_acquire) != nullptr) return true;
  }
  return false;
}

tflStream driver_stream(c10::Stream stream) { return get_or_create(stream.device_index(), stream.id()); }

void synchronize_stream(c10::Stream stream) {
  TORCH_FL_DRIVER_CHECK(driver().stream_synchronize(driver_stream(stream)));
}

bool query_stream(c10::Stream stream) {
  int32_t idle = 0;
  TORCH_FL_DRIVER_CHECK(driver().stream_query(driver_stream(stream), &idle));
  return idle != 0;
}

void synchronize_device(c10::DeviceIndex device) {
  DeviceStreams& ds = streams_of(device);
  for (auto& slot : ds.streams) {
    tflStream stream = slot.load(std::memory_order_acquire);
    if (stream) TORCH_FL_DRIVER_CHECK(driver().stream_synchronize(stream));
  }
}

}  // namespace torch_fl
