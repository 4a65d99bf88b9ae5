#include "allocator_history.h"

#include <chrono>
#include <deque>
#include <mutex>

namespace torch_fl {
namespace {

constexpr int kMaxDevices = 64;

struct History {
  std::mutex mutex;  // guards both
  size_t max_entries = 0;
  std::deque<HistoryEvent> events[kMaxDevices];
};

History& history() {
  static auto* h = new History();  // never destroyed: blocks are freed during static destruction
  return *h;
}

int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

namespace allocator_history_detail {
std::atomic<bool> recording{false};

void record(c10::DeviceIndex device, const HistoryEvent& event) {
  if (device < 0 || device >= kMaxDevices) return;
  History& h = history();
  std::lock_guard<std::mutex> lock(h.mutex);
  if (h.max_entries == 0) return;  // stopped between the check and here
  auto& events = h.events[device];
  events.push_back(event);
  events.back().time_us = now_us();
  while (events.size() > h.max_entries) events.pop_front();
}
}  // namespace allocator_history_detail

namespace {
std::atomic<OutOfMemoryObserver> oom_observer{nullptr};
}  // namespace

void set_out_of_memory_observer(OutOfMemoryObserver observer) { oom_observer.store(observer); }

void notify_out_of_memory(c10::DeviceIndex device) {
  if (OutOfMemoryObserver observer = oom_observer.load()) observer(device);
}

void set_allocator_history(size_t max_entries) {
  History& h = history();
  std::lock_guard<std::mutex> lock(h.mutex);
  h.max_entries = max_entries;
  for (auto& events : h.events) events.clear();
  allocator_history_detail::recording.store(max_entries > 0, std::memory_order_relaxed);
}

std::vector<HistoryEvent> allocator_history(c10::DeviceIndex device) {
  if (device < 0 || device >= kMaxDevices) return {};
  History& h = history();
  std::lock_guard<std::mutex> lock(h.mutex);
  return {h.events[device].begin(), h.events[device].end()};
}

}  // namespace torch_fl
