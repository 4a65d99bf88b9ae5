// Device indices, the per-thread current device, and the DeviceGuardImpl that
// lets PyTorch (c10::DeviceGuard, torch.Stream, torch.Event) drive our device.
#include <torch_fl/device.h>

#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/util/Exception.h>

#include <pthread.h>

#include <atomic>

#include <torch_fl/allocator.h>
#include <torch_fl/driver.h>
#include <torch_fl/stream.h>

namespace torch_fl {
namespace {
// Per thread, as in CUDA: each host thread has its own current device.
thread_local c10::DeviceIndex tls_current_device = 0;

// Process-wide, written by the first driver use and by the fork handler (which
// runs single-threaded in the child): plain atomics suffice.
std::atomic<bool> g_initialized{false};
std::atomic<bool> g_bad_fork{false};

void on_fork_in_child() {
  if (g_initialized.load()) g_bad_fork.store(true);
}

const bool fork_handler_installed = [] {
  pthread_atfork(nullptr, nullptr, &on_fork_in_child);
  return true;
}();
}  // namespace

bool in_bad_fork() { return g_bad_fork.load(std::memory_order_relaxed); }

void mark_initialized() { g_initialized.store(true, std::memory_order_relaxed); }

void check_not_forked() {
  TORCH_CHECK(!in_bad_fork(), "[", driver().vendor, "] cannot use the device in a process forked after it was "
              "initialised (its worker threads and memory did not survive fork). Use the 'spawn' start method, or "
              "keep device work in the parent (DataLoader workers may do CPU work).");
}

c10::DeviceIndex device_count() {
  mark_initialized();
  static const c10::DeviceIndex count = static_cast<c10::DeviceIndex>(driver().device_count());
  return count;
}

void check_device_index(c10::DeviceIndex index) {
  TORCH_CHECK_INDEX(index >= 0 && index < device_count(), "[", driver().vendor, "] invalid device index ",
                    static_cast<int>(index), ": ", static_cast<int>(device_count()), " device(s) available");
}

c10::DeviceIndex current_device() { return tls_current_device; }

void set_current_device(c10::DeviceIndex index) {
  check_device_index(index);
  tls_current_device = index;
}

namespace {

tflEvent as_event(void* event) { return static_cast<tflEvent>(event); }

struct GuardImpl final : public c10::impl::DeviceGuardImplInterface {
  static constexpr c10::DeviceType kType = c10::DeviceType::PrivateUse1;

  c10::DeviceType type() const override { return kType; }

  c10::Device exchangeDevice(c10::Device device) const override {
    const c10::Device previous = getDevice();
    if (device.index() != previous.index()) set_current_device(device.index());
    return previous;
  }
  c10::Device getDevice() const override { return make_device(current_device()); }
  void setDevice(c10::Device device) const override { set_current_device(device.index()); }
  void uncheckedSetDevice(c10::Device device) const noexcept override { tls_current_device = device.index(); }

  c10::Stream getStream(c10::Device device) const override { return current_stream(device.index()); }
  c10::Stream getDefaultStream(c10::Device device) const override { return default_stream(device.index()); }
  c10::Stream getStreamFromGlobalPool(c10::Device device, bool high_priority) const override {
    return stream_from_pool(device.index(), high_priority ? -1 : 0);
  }
  c10::Stream getNewStream(c10::Device device, int priority) const override {
    return stream_from_pool(device.index(), priority);
  }
  c10::Stream exchangeStream(c10::Stream stream) const override { return exchange_stream(stream); }

  c10::DeviceIndex deviceCount() const noexcept override { return device_count(); }

  void record(void** event, const c10::Stream& stream, const c10::DeviceIndex device_index,
              const c10::EventFlag) const override {
    TORCH_CHECK(device_index == -1 || device_index == stream.device_index(), "[", driver().vendor,
                "] event was created on device ", static_cast<int>(device_index), " but recorded on a stream of device ",
                static_cast<int>(stream.device_index()));
    if (*event == nullptr) {
      tflEvent created = nullptr;
      TORCH_FL_DRIVER_CHECK(driver().event_create(stream.device_index(), &created));
      *event = created;
    }
    TORCH_FL_DRIVER_CHECK(driver().event_record(as_event(*event), driver_stream(stream)));
  }
  void block(void* event, const c10::Stream& stream) const override {
    if (event == nullptr) return;  // never recorded: nothing to wait for
    TORCH_FL_DRIVER_CHECK(driver().stream_wait_event(driver_stream(stream), as_event(event)));
  }
  bool queryEvent(void* event) const override {
    if (event == nullptr) return true;
    int32_t done = 0;
    TORCH_FL_DRIVER_CHECK(driver().event_query(as_event(event), &done));
    return done != 0;
  }
  void destroyEvent(void* event, const c10::DeviceIndex) const noexcept override {
    if (event) driver().event_destroy(as_event(event));
  }
  void synchronizeEvent(void* event) const override {
    if (event) TORCH_FL_DRIVER_CHECK(driver().event_synchronize(as_event(event)));
  }
  double elapsedTime(void* start, void* end, const c10::DeviceIndex) const override {
    TORCH_CHECK(start && end, "[", driver().vendor, "] elapsed_time needs two recorded events");
    float ms = 0;
    TORCH_FL_DRIVER_CHECK(driver().event_elapsed_ms(as_event(start), as_event(end), &ms));
    return ms;
  }

  bool queryStream(const c10::Stream& stream) const override { return query_stream(stream); }
  void synchronizeStream(const c10::Stream& stream) const override { synchronize_stream(stream); }
  void synchronizeDevice(const c10::DeviceIndex device_index) const override { synchronize_device(device_index); }
  void recordDataPtrOnStream(const c10::DataPtr& data, const c10::Stream& stream) const override {
    record_stream(data, stream);
  }
};

C10_REGISTER_GUARD_IMPL(PrivateUse1, GuardImpl);

}  // namespace
}  // namespace torch_fl
