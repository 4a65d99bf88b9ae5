#include "device_tracer.h"

#include <c10/util/ApproximateClock.h>
#include <c10/util/Exception.h>

#include "driver.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
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
  uint64_t session = 0;
  std::vector<std::unique_ptr<TracedWork>> finished;
  std::vector<std::vector<tflEvent>> free_events;  // per device
  std::vector<DeviceAnchor> anchors;               // per device; event null until its first work
};

DeviceTracer& DeviceTracer::instance() {
  static DeviceTracer* tracer = new DeviceTracer();  // never destroyed: ranges may end during exit
  return *tracer;
}

DeviceTracer::DeviceTracer() : state_(std::make_unique<State>()) {}

void DeviceTracer::push_correlation(uint64_t id) { correlation_stack().push_back(id); }

void DeviceTracer::pop_correlation() {
  auto& stack = correlation_stack();
  if (!stack.empty()) stack.pop_back();
}

tflEvent DeviceTracer::take_event(State& s, c10::DeviceIndex device) {
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

// Re-recording a pooled event that is still pending is fine: an event stands for its
// latest record, as CUDA's does.
void DeviceTracer::give_back(State& s, const TracedWork& work) {
  auto& pool = s.free_events.at(work.activity.device);
  if (work.start != nullptr) pool.push_back(work.start);
  if (work.end != nullptr) pool.push_back(work.end);
}

// On a stream of its own, idle, so that the anchor completes as soon as it is
// recorded. The event completed between the host clock's reads before its record
// and after its wait, so taking the later read makes mapped times late, never early,
// by at most that window; a host thread woken late (a loaded machine) widens it to
// milliseconds, so the narrowest of a few tries is kept.
void DeviceTracer::anchor(State& s, c10::DeviceIndex device) {
  constexpr int kTries = 5;
  constexpr int64_t kNarrowEnoughNs = 20'000;
  if (s.anchors.size() <= static_cast<size_t>(device)) s.anchors.resize(device + 1);
  DeviceAnchor& anchor = s.anchors[device];
  if (anchor.event != nullptr) return;
  if (anchor.stream == nullptr) TORCH_FL_DRIVER_CHECK(driver().stream_create(device, 0, &anchor.stream));
  for (int attempt = 0; attempt < kTries; ++attempt) {
    tflEvent event = take_event(s, device);
    const int64_t before = c10::getTime();
    if (driver().event_record(event, anchor.stream) != TFL_SUCCESS ||
        driver().event_synchronize(event) != TFL_SUCCESS) {
      s.free_events[device].push_back(event);
      if (anchor.event != nullptr) s.free_events[device].push_back(anchor.event);
      anchor.event = nullptr;
      TORCH_CHECK(false, "[", driver().vendor, "] profiler: cannot anchor device ", int(device), "'s events");
    }
    const int64_t after = c10::getTime();
    const bool narrower = anchor.event == nullptr || after - before < anchor.late_by_at_most_ns;
    if (narrower) {
      if (anchor.event != nullptr) s.free_events[device].push_back(anchor.event);
      anchor.event = event;
      anchor.host_ns = after;
      anchor.late_by_at_most_ns = after - before;
    } else {
      s.free_events[device].push_back(event);
    }
    if (anchor.late_by_at_most_ns <= kNarrowEnoughNs) break;
  }
}

TracedWork* DeviceTracer::begin(const char* name, const DeviceActivity& activity) noexcept {
  if (!active()) return nullptr;
  auto work = std::make_unique<TracedWork>();
  work->name = name;
  work->activity = activity;
  work->thread = system_thread_id();
  const auto& stack = correlation_stack();
  work->correlation = stack.empty() ? 0 : static_cast<int64_t>(stack.back());
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  try {
    work->session = s.session;
    anchor(s, activity.device);
    work->start = take_event(s, activity.device);
    work->end = take_event(s, activity.device);
    work->host_start_ns = c10::getTime();
    TORCH_FL_DRIVER_CHECK(driver().event_record(work->start, activity.stream));
  } catch (const std::exception&) {
    // The op runs on without its slice; a driver that cannot record an event
    // reports that on the op's own calls.
    if (s.free_events.size() > static_cast<size_t>(activity.device)) give_back(s, *work);
    return nullptr;
  }
  return work.release();
}

void DeviceTracer::finish(TracedWork* work) noexcept {
  std::unique_ptr<TracedWork> owned(work);
  // Called from a range's destructor, possibly while an SDK error unwinds: a stream
  // that cannot take the end event loses this slice, not the process.
  const bool recorded = driver().event_record(owned->end, owned->activity.stream) == TFL_SUCCESS;
  owned->host_end_ns = c10::getTime();
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  // Begun in an earlier session (a copy another thread had open across two
  // profiles): that session's anchors are gone.
  if (recorded && owned->session == s.session) {
    s.finished.push_back(std::move(owned));
  } else {
    give_back(s, *owned);
  }
}

void DeviceTracer::start() {
  std::vector<std::unique_ptr<TracedWork>> stale;
  {
    std::lock_guard<std::mutex> lock(state().mutex);
    ++state().session;
    stale.swap(state().finished);  // an earlier session's, never processed
  }
  recycle(stale);
  active_.store(true, std::memory_order_relaxed);
}

void DeviceTracer::stop() { active_.store(false, std::memory_order_relaxed); }

// An event's time on the host's clock is its anchor's plus the elapsed time since;
// the end is the start plus the slice's own (short, so precise) elapsed time, as a
// float of milliseconds since an anchor loses precision over a long profile.
void DeviceTracer::place_on_host_clock(TracedWork& work, const DeviceAnchor& anchor) {
  TORCH_CHECK(anchor.event != nullptr, "[", driver().vendor, "] profiler: device ", int(work.activity.device),
              " has no anchor");
  float since_anchor_ms = 0, duration_ms = 0;
  TORCH_FL_DRIVER_CHECK(driver().event_synchronize(work.end));
  TORCH_FL_DRIVER_CHECK(driver().event_elapsed_ms(anchor.event, work.start, &since_anchor_ms));
  TORCH_FL_DRIVER_CHECK(driver().event_elapsed_ms(work.start, work.end, &duration_ms));
  work.device_start_ns = anchor.host_ns + static_cast<int64_t>(static_cast<double>(since_anchor_ms) * 1e6);
  work.device_end_ns = work.device_start_ns + std::max<int64_t>(0, static_cast<int64_t>(duration_ms * 1e6));
  work.late_by_at_most_ns = anchor.late_by_at_most_ns;
}

std::vector<std::unique_ptr<TracedWork>> DeviceTracer::collect(std::vector<std::string>& errors) {
  std::vector<std::unique_ptr<TracedWork>> finished;
  std::vector<DeviceAnchor> anchors;
  {
    std::lock_guard<std::mutex> lock(state().mutex);
    finished.swap(state().finished);
    anchors = state().anchors;  // a late begin() may grow the table meanwhile
  }
  std::vector<std::unique_ptr<TracedWork>> timed, untimed;
  for (auto& work : finished) {
    try {
      const size_t device = static_cast<size_t>(work->activity.device);
      place_on_host_clock(*work, device < anchors.size() ? anchors[device] : DeviceAnchor{});
      timed.push_back(std::move(work));
    } catch (const c10::Error& error) {
      errors.emplace_back(error.what_without_backtrace());
      untimed.push_back(std::move(work));
    }
  }
  std::lock_guard<std::mutex> lock(state().mutex);
  for (const auto& work : untimed) give_back(state(), *work);
  return timed;
}

void DeviceTracer::recycle(std::vector<std::unique_ptr<TracedWork>>& done) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  for (const auto& work : done) give_back(s, *work);
  done.clear();
  // A new session anchors again: event times drift from the host clock.
  for (c10::DeviceIndex device = 0; device < static_cast<c10::DeviceIndex>(s.anchors.size()); ++device) {
    DeviceAnchor& anchor = s.anchors[device];
    if (anchor.event != nullptr) s.free_events[device].push_back(anchor.event);
    anchor.event = nullptr;
  }
}

}  // namespace torch_fl
