#include "device_tracer.h"

#include <c10/util/ApproximateClock.h>

#include "driver.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <mutex>

namespace torch_fl {
namespace {

// Kineto's row for a host thread is its system thread id.
int32_t system_thread_id() {
  static thread_local const int32_t id = static_cast<int32_t>(::syscall(SYS_gettid));
  return id;
}

// The correlation ids of the aten ops open on this thread, innermost last.
std::vector<uint64_t>& correlation_stack() {
  static thread_local std::vector<uint64_t> stack;
  return stack;
}

}  // namespace

struct DeviceTracer::State {
  std::mutex mutex;
  std::vector<std::unique_ptr<TracedWork>> finished;
  std::vector<std::vector<tflEvent>> free_events;  // per device
  std::vector<DeviceAnchor> anchors;               // per device; event null until its first work
};

DeviceTracer& DeviceTracer::instance() {
  static DeviceTracer* tracer = new DeviceTracer();  // never destroyed: ranges may end during exit
  return *tracer;
}

DeviceTracer::State& DeviceTracer::state() {
  static std::once_flag once;
  std::call_once(once, [this] { state_ = std::make_unique<State>(); });
  return *state_;
}

void DeviceTracer::push_correlation(uint64_t id) { correlation_stack().push_back(id); }

void DeviceTracer::pop_correlation() {
  auto& stack = correlation_stack();
  if (!stack.empty()) stack.pop_back();
}

tflEvent DeviceTracer::take_event(c10::DeviceIndex device) {
  State& s = state();
  if (s.free_events.size() <= static_cast<size_t>(device)) s.free_events.resize(device + 1);
  auto& pool = s.free_events[device];
  if (!pool.empty()) {
    tflEvent event = pool.back();
    pool.pop_back();
    return event;
  }
  tflEvent event = nullptr;
  TORCH_FL_DRIVER_CHECK(driver().event_create(device, &event));
  return event;
}

// On a stream of its own, idle, so that the anchor completes as soon as it is
// recorded; the host clock is read once it has.
void DeviceTracer::anchor(c10::DeviceIndex device) {
  State& s = state();
  if (s.anchors.size() <= static_cast<size_t>(device)) s.anchors.resize(device + 1);
  DeviceAnchor& anchor = s.anchors[device];
  if (anchor.event != nullptr) return;
  if (anchor.stream == nullptr) TORCH_FL_DRIVER_CHECK(driver().stream_create(device, 0, &anchor.stream));
  tflEvent event = take_event(device);
  TORCH_FL_DRIVER_CHECK(driver().event_record(event, anchor.stream));
  TORCH_FL_DRIVER_CHECK(driver().event_synchronize(event));
  anchor.host_ns = c10::getTime();
  anchor.event = event;
}

TracedWork* DeviceTracer::begin(const char* name, const DeviceActivity& activity) {
  if (!active()) return nullptr;
  auto work = std::make_unique<TracedWork>();
  work->name = name;
  work->activity = activity;
  work->thread = system_thread_id();
  const auto& stack = correlation_stack();
  work->correlation = stack.empty() ? 0 : static_cast<int64_t>(stack.back());
  {
    std::lock_guard<std::mutex> lock(state().mutex);
    anchor(activity.device);
    work->start = take_event(activity.device);
    work->end = take_event(activity.device);
  }
  work->host_start_ns = c10::getTime();
  TORCH_FL_DRIVER_CHECK(driver().event_record(work->start, activity.stream));
  return work.release();
}

void DeviceTracer::finish(TracedWork* work) noexcept {
  std::unique_ptr<TracedWork> owned(work);
  // Called from a range's destructor, possibly while an SDK error unwinds: a stream
  // that cannot take the end event loses this slice, not the process.
  const bool recorded = driver().event_record(owned->end, owned->activity.stream) == TFL_SUCCESS;
  owned->host_end_ns = c10::getTime();
  std::lock_guard<std::mutex> lock(state().mutex);
  if (recorded) {
    state().finished.push_back(std::move(owned));
  } else {
    auto& pool = state().free_events[owned->activity.device];
    pool.push_back(owned->start);
    pool.push_back(owned->end);
  }
}

void DeviceTracer::start() {
  std::vector<std::unique_ptr<TracedWork>> stale;
  {
    std::lock_guard<std::mutex> lock(state().mutex);
    stale.swap(state().finished);  // an earlier session's, never processed
  }
  recycle(stale);
  active_.store(true, std::memory_order_relaxed);
}

void DeviceTracer::stop() { active_.store(false, std::memory_order_relaxed); }

std::vector<std::unique_ptr<TracedWork>> DeviceTracer::collect() {
  std::vector<std::unique_ptr<TracedWork>> done;
  {
    std::lock_guard<std::mutex> lock(state().mutex);
    done.swap(state().finished);
  }
  for (const auto& work : done) TORCH_FL_DRIVER_CHECK(driver().event_synchronize(work->end));
  return done;
}

int64_t DeviceTracer::host_time_of(c10::DeviceIndex device, tflEvent event) {
  const DeviceAnchor& anchor = state().anchors.at(device);
  float ms = 0;
  TORCH_FL_DRIVER_CHECK(driver().event_elapsed_ms(anchor.event, event, &ms));
  return anchor.host_ns + static_cast<int64_t>(static_cast<double>(ms) * 1e6);
}

void DeviceTracer::recycle(std::vector<std::unique_ptr<TracedWork>>& done) {
  std::lock_guard<std::mutex> lock(state().mutex);
  State& s = state();
  for (auto& work : done) {
    s.free_events[work->activity.device].push_back(work->start);
    s.free_events[work->activity.device].push_back(work->end);
  }
  done.clear();
  // A new session anchors again: event times drift from the host clock, and
  // elapsed times are floats.
  for (c10::DeviceIndex device = 0; device < static_cast<c10::DeviceIndex>(s.anchors.size()); ++device) {
    DeviceAnchor& anchor = s.anchors[device];
    if (anchor.event != nullptr) s.free_events[device].push_back(anchor.event);
    anchor.event = nullptr;
  }
}

}  // namespace torch_fl
