// A named range the PyTorch profiler shows inside an op: each SDK call of a
// generated kernel (both phases of a two-phase call), each host/device copy, each
// CPU fallback. Built on at::RecordFunction, made only when a profiler (or another
// observer) is active: otherwise a range costs the one check every dispatched op
// already makes (getStepCallbacksUnlessEmpty), not a RecordFunction.
#pragma once

#include <ATen/record_function.h>
#include <c10/macros/Macros.h>

#include <optional>
#include <string>
#include <utility>

namespace torch_fl {

class ProfilerRange {
 public:
  // `name` outlives the range (a string literal: the SDK function's name).
  explicit ProfilerRange(const char* name) {
    auto callbacks = at::getStepCallbacksUnlessEmpty(at::RecordScope::USER_SCOPE);
    if (C10_UNLIKELY(callbacks.has_value())) open(std::move(*callbacks), name);
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

  // Closes the range before the end of the scope (the SDK call returned; its status
  // check is not part of it). Closing twice is harmless.
  void end() { record_.reset(); }

 private:
  void open(at::StepCallbacks&& callbacks, const char* name) {
    record_.emplace(std::move(callbacks));
    record_->before(name);
  }

  std::string name_;  // declared first: destroyed after record_ ends the range
  std::optional<at::RecordFunction> record_;
};

}  // namespace torch_fl
