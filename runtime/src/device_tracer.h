// The device side of torch.profiler: while a Kineto session of ours is started
// (kineto_profiler.cpp), each SDK call, copy and fill a ProfilerRange brackets is
// recorded as TracedWork: the host time of the call, a driver event recorded on the
// work's stream before and after it, and the correlation id of the innermost aten
// op, which links it to that op. The session turns the events into device times
// when the trace is processed, so tracing never waits on the device.
//
// Device time comes from the driver's event_elapsed_ms against an anchor event per
// device: recorded on an idle stream of its own and waited for at the first traced
// work of a session, when the host clock is read. So every driver's events place
// its work on the host's timeline, with no timestamp call in the driver ABI; the
// mapped times are late by at most the anchor's wake-up latency, which is kept.
#pragma once

#include <torch_fl/device_activity.h>
#include <torch_fl/driver_abi.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace torch_fl {

struct TracedWork {
  const char* name = nullptr;  // the SDK function, or the copy's range name (a literal)
  DeviceActivity activity;
  uint64_t session = 0;       // the tracer's session it was begun in
  int64_t host_start_ns = 0;  // c10::getTime(), the clock of torch's CPU ops
  int64_t host_end_ns = 0;
  int32_t thread = 0;         // the launching thread's system id (Kineto's row for it)
  int64_t correlation = 0;    // the innermost aten op's correlation id (0: none)
  tflEvent start = nullptr;   // recorded on activity.stream before the work
  tflEvent end = nullptr;     // and after it
  int64_t device_start_ns = 0;  // on the host's clock; set by collect()
  int64_t device_end_ns = 0;
  int64_t late_by_at_most_ns = 0;  // the device times' error: its anchor's
};

// A device's anchor: an event of known host time (see above).
struct DeviceAnchor {
  tflEvent event = nullptr;
  tflStream stream = nullptr;
  int64_t host_ns = 0;
  int64_t late_by_at_most_ns = 0;  // the event completed within this before host_ns
};

class DeviceTracer {
 public:
  static DeviceTracer& instance();

  bool active() const { return active_.load(std::memory_order_relaxed); }

  // The launching side (ProfilerRange). Neither throws: a driver failure while
  // tracing loses that slice, never the op. begin() returns null when not tracing.
  TracedWork* begin(const char* name, const DeviceActivity& activity) noexcept;
  void finish(TracedWork* work) noexcept;

  // Kineto's correlation ids, pushed on the thread that runs the op.
  static void push_correlation(uint64_t id);
  static void pop_correlation();

  // The session's side. start() opens a new tracer session: work begun in an
  // earlier one and finished later is dropped, never timed against this one's anchors.
  void start();
  void stop();
  void resume() { active_.store(true, std::memory_order_relaxed); }  // after a stop, keeping what was traced
  // Waits for the session's work and places it on the host's clock, in launch order.
  // Work the driver cannot time is dropped, with its reason in `errors`.
  std::vector<std::unique_ptr<TracedWork>> collect(std::vector<std::string>& errors);
  // Returns the events of collected work to the pool; the next session anchors anew.
  void recycle(std::vector<std::unique_ptr<TracedWork>>& done);

 private:
  DeviceTracer();
  struct State;
  tflEvent take_event(State& s, c10::DeviceIndex device);  // under the mutex
  void give_back(State& s, const TracedWork& work);         // under the mutex
  void anchor(State& s, c10::DeviceIndex device);           // under the mutex
  void place_on_host_clock(TracedWork& work, const DeviceAnchor& anchor);

  std::atomic<bool> active_{false};
  const std::unique_ptr<State> state_;
  State& state() { return *state_; }
};

}  // namespace torch_fl
