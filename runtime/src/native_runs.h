// Which kernels ran natively, recorded only while a tool asks (the conformance run,
// tests): the overload and the dtype its dtype decision read first. What a
// dispatch recorder above the backend cannot see: an overload reached inside
// another op (convolution_overrideable inside convolution) and the dtype the
// kernel decided on (where.self's `self`, not its boolean condition). A kernel is
// noted when it asks for its stream: one whose SDK call took none would show as never
// run natively (untested), never as verified.
#pragma once

#include <c10/core/ScalarType.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace torch_fl {

struct NativeRun {
  std::string op;     // as registered: "add.Tensor"
  std::string dtype;  // c10's name: "Float"
  int64_t count;
};

// Turning it on (or off) clears what was recorded.
void set_native_run_recording(bool on);
std::vector<NativeRun> native_runs();

namespace native_runs_detail {
extern std::atomic<bool> recording;
void new_context(const void* context);
void dtype_decided_native(const void* context, c10::ScalarType dtype);
// The kernel of `context` launches: recorded once per context, under the first dtype
// decided native, else `operand_dtype` (an op whose operands take no dtype decision).
void launching(const void* context, const char* op, c10::ScalarType operand_dtype);
}  // namespace native_runs_detail

inline bool recording_native_runs() { return native_runs_detail::recording.load(std::memory_order_relaxed); }

}  // namespace torch_fl
