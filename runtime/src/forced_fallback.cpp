#include "forced_fallback.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/util/Exception.h>

#include <map>
#include <mutex>

#include "driver.h"
#include <torch_fl/fallback.h>

namespace torch_fl {
namespace {

void forced_fallback_kernel(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const FallbackReasonScope reason(FallbackReason::kForced);
  cpu_fallback(op, stack);
}

struct ForcedOps {
  std::mutex mutex;
  std::map<std::string, c10::RegistrationHandleRAII> registrations;
};

ForcedOps& forced_ops() {
  static auto* ops = new ForcedOps();  // never destroyed: the dispatcher may outlive us
  return *ops;
}

c10::OperatorName parse(const std::string& op) {
  const auto dot = op.find('.');
  return {op.substr(0, dot), dot == std::string::npos ? "" : op.substr(dot + 1)};
}

// The dispatcher warns when a kernel is registered over another; here that is the point.
class QuietWarnings : public c10::WarningHandler {
 public:
  void process(const c10::Warning&) override {}
};

}  // namespace

void set_forced_fallbacks(const std::vector<std::string>& ops) {
  for (const std::string& op : ops) {
    TORCH_CHECK_VALUE(c10::Dispatcher::singleton().findSchema(parse(op)).has_value(), "[", driver().vendor,
                      "] cannot force ", op, " to the CPU fallback: no such ATen operator");
  }
  ForcedOps& forced = forced_ops();
  std::lock_guard<std::mutex> lock(forced.mutex);
  forced.registrations.clear();  // the generated kernels are back
  QuietWarnings quiet;
  const c10::WarningUtils::WarningHandlerGuard guard(&quiet);
  for (const std::string& op : ops) {
    forced.registrations.emplace(
        op, c10::Dispatcher::singleton().registerImpl(
                parse(op), c10::DispatchKey::PrivateUse1,
                c10::KernelFunction::makeFromBoxedFunction<&forced_fallback_kernel>(), std::nullopt, nullptr,
                "torch_fl forced fallback (TORCH_FL_FORCE_FALLBACK / torch_fl.force_fallback)"));
  }
}

std::vector<std::string> forced_fallbacks() {
  ForcedOps& forced = forced_ops();
  std::lock_guard<std::mutex> lock(forced.mutex);
  std::vector<std::string> names;
  for (const auto& [name, registration] : forced.registrations) names.push_back(name);
  return names;
}

}  // namespace torch_fl
