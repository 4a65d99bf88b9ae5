// Device indices, the per-thread current device, and fork safety.
#include <torch_fl/device.h>

#include <c10/util/Exception.h>

#include <pthread.h>

#include <atomic>

#include "driver.h"

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

bool is_initialized() { return g_initialized.load(std::memory_order_relaxed); }

void check_not_forked() {
  TORCH_CHECK(!in_bad_fork(), "[", driver().vendor, "] cannot use the device in a process forked after it was "
              "initialised (its worker threads and memory did not survive fork). Use the 'spawn' start method, or "
              "keep device work in the parent (DataLoader workers may do CPU work).");
}

namespace {
c10::DeviceIndex query_device_count() {
  int32_t count = 0;
  // A driver that cannot start (e.g. a bad configuration in the environment)
  // says why; the static below is then retried, so every use raises the reason.
  check_driver(driver().device_count(&count), "starting the driver (device_count)");
  return static_cast<c10::DeviceIndex>(count);
}
}  // namespace

c10::DeviceIndex device_count() {
  mark_initialized();
  static const c10::DeviceIndex count = query_device_count();
  return count;
}

void check_device_index(c10::DeviceIndex index) {
  // RuntimeError, as CUDA raises for an invalid ordinal.
  TORCH_CHECK(index >= 0 && index < device_count(), "[", driver().vendor, "] invalid device ordinal ",
              static_cast<int>(index), ": ", static_cast<int>(device_count()), " device(s) available");
}

c10::DeviceIndex current_device() { return tls_current_device; }

void set_current_device_unchecked(c10::DeviceIndex index) noexcept { tls_current_device = index; }

void set_current_device(c10::DeviceIndex index) {
  check_device_index(index);
  tls_current_device = index;
}

}  // namespace torch_fl
