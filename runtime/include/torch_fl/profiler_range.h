// A named range the PyTorch profiler shows inside an op: each SDK call of a
// generated kernel (both phases of a two-phase call), each host/device copy, each
// CPU fallback. Built on at::RecordFunction, made only when a profiler (or another
// observer) is active: otherwise a range costs the one check every dispatched op
// already makes (getStepCallbacksUnlessEmpty), not a RecordFunction.
//
// While torch.profiler also traces the device (ProfilerActivity.PrivateUse1), an
// SDK call, copy or fill range is also device work on the Kineto timeline: the
// range's device state lives in the same optional as its RecordFunction, so an
// unprofiled range costs nothing more (device_tracer.h).
#pragma once

#include <ATen/record_function.h>
#include <c10/macros/Macros.h>

#include <torch_fl/device_activity.h>

#include <optional>
#include <string>
#include <utility>

namespace torch_fl {

class OpContext;
struct TracedWork;

class ProfilerRange {
 public:
  // `name` outlives the range (a string literal: the SDK function's name).
  explicit ProfilerRange(const char* name) {
    auto callbacks = at::getStepCallbacksUnlessEmpty(at::RecordScope::USER_SCOPE);
    if (C10_UNLIKELY(callbacks.has_value())) open(std::move(*callbacks), name);
  }

  // An SDK call of a generated kernel, run on `op`'s stream (`kind`: a fill is a memset).
  ProfilerRange(const OpContext& op, const char* name, DeviceActivityKind kind = DeviceActivityKind::kKernel) {
    auto callbacks = at::getStepCallbacksUnlessEmpty(at::RecordScope::USER_SCOPE);
    if (C10_UNLIKELY(callbacks.has_value())) open_sdk_call(std::move(*callbacks), name, op, kind);
  }

  // A name made at run time ("CPU fallback: ..."): kept here while the range is open.
  explicit ProfilerRange(std::string name) {
    auto callbacks = at::getStepCallbacksUnlessEmpty(at::RecordScope::USER_SCOPE);
    if (C10_UNLIKELY(callbacks.has_value())) {
      name_ = std::move(name);
      open(std::move(*callbacks), name_.c_str());
    }
  }

  ProfilerRange(const ProfilerRange&) = delete;
  ProfilerRange& operator=(const ProfilerRange&) = delete;

  // A copy's range names its device work right before its first enqueue: from here
  // to end_device_work() or the end of the range. Called at most once per range;
  // not for a range named at run time (the work keeps the name's pointer).
  void trace_on_device(const DeviceActivity& activity) const {
    if (C10_UNLIKELY(open_.has_value())) begin_device_work(activity);
  }

  // Ends the device work before the range ends: a copy then waits for its stream,
  // which is host time, not the copy's device time.
  void end_device_work() const {
    if (C10_UNLIKELY(open_.has_value())) finish_device_work();
  }

  // Closes the range before the end of the scope (the SDK call returned; its status
  // check is not part of it). Closing twice is harmless.
  void end() { open_.reset(); }

 private:
  struct Open {
    Open(at::StepCallbacks&& callbacks, const char* name) : record(std::move(callbacks)), name(name) {}
    Open(const Open&) = delete;
    Open& operator=(const Open&) = delete;
    ~Open();  // the device work ends before the host range does
    at::RecordFunction record;
    const char* name;
    TracedWork* work = nullptr;  // set while a device profiler traces
  };

  C10_NOINLINE void open(at::StepCallbacks&& callbacks, const char* name);
  C10_NOINLINE void open_sdk_call(at::StepCallbacks&& callbacks, const char* name, const OpContext& op,
                                  DeviceActivityKind kind);
  C10_NOINLINE void begin_device_work(const DeviceActivity& activity) const;
  C10_NOINLINE void finish_device_work() const;

  std::string name_;  // declared first: destroyed after open_ ends the range
  mutable std::optional<Open> open_;
};

}  // namespace torch_fl
