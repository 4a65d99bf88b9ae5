// A named range the PyTorch profiler shows inside an op: each SDK call of a
// generated kernel (both phases of a two-phase call), each host/device copy, each
// CPU fallback. Built on at::RecordFunction: with no profiler (nor another
// observer) active it costs the one check every dispatched op already makes.
#pragma once

#include <ATen/record_function.h>

#include <string>
#include <utility>

namespace torch_fl {

class ProfilerRange {
 public:
  // `name` outlives the range (a string literal: the SDK function's name).
  explicit ProfilerRange(const char* name) : record_(at::RecordScope::USER_SCOPE) {
    if (record_.isActive()) record_.before(name);
  }

  // A name made at run time ("CPU fallback: ..."): kept here while the range is open.
  explicit ProfilerRange(std::string name) : name_(std::move(name)), record_(at::RecordScope::USER_SCOPE) {
    if (record_.isActive()) record_.before(name_.c_str());
  }

  ProfilerRange(const ProfilerRange&) = delete;
  ProfilerRange& operator=(const ProfilerRange&) = delete;

  // Closes the range before the end of the scope (the SDK call returned; its status
  // check is not part of it). Closing twice is harmless.
  void end() { record_.end(); }

 private:
  std::string name_;  // declared first: destroyed after record_ ends the range
  at::RecordFunction record_;
};

}  // namespace torch_fl
