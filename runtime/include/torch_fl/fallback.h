// The CPU fallback: every op without a native kernel (or with a dtype, guard
// or layout the vendor does not take) runs on CPU, with the policy of
// TORCH_FL_FALLBACK: warn (default, one warning per op), silent, or strict
// (raise). Every fallback is counted per op and dtype, with its reason.
#pragma once

#include <ATen/native/CPUFallback.h>

#include <string>
#include <vector>

namespace torch_fl {

enum class FallbackReason { kNotInSpec, kDtype, kGuard, kLayout, kForced };
const char* to_string(FallbackReason reason);

enum class FallbackMode { kWarn, kSilent, kStrict };
FallbackMode fallback_mode();

// The boxed kernel registered for every aten op the spec does not cover.
void cpu_fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack);
// The kernel of an op the spec marks `fallback: error`.
void unsupported_op_kernel(const c10::OperatorHandle& op, torch::jit::Stack* stack);

// Sets the reason the next cpu_fallback on this thread reports (generated
// wrappers set it before they redirect a call to the fallback), and the dtype
// it is recorded under: the one that was not native (default: the first tensor's).
class FallbackReasonScope {
 public:
  explicit FallbackReasonScope(FallbackReason reason, c10::ScalarType dtype = c10::ScalarType::Undefined);
  ~FallbackReasonScope();

 private:
  FallbackReason previous_;
  c10::ScalarType previous_dtype_;
};

struct FallbackRecord {
  std::string op;
  std::string dtype;
  std::string reason;
  int64_t count;
};
std::vector<FallbackRecord> fallback_records();
void reset_fallback_records();

}  // namespace torch_fl
