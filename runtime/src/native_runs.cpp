#include "native_runs.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <utility>

namespace torch_fl {
namespace native_runs_detail {

std::atomic<bool> recording{false};

namespace {

struct Decision {
  const void* context;
  c10::ScalarType dtype;
  bool launched;
};

// Per thread, the contexts alive on it (nested kernels each have their own, on the
// stack): few at a time, so a short vector. A context's address is reused by a later
// one, which starts afresh (new_context).
thread_local std::vector<Decision> decisions;
constexpr size_t kMaxDecisions = 64;

std::mutex runs_mutex;
std::map<std::pair<std::string, std::string>, int64_t> runs;

Decision* find(const void* context) {
  auto it = std::find_if(decisions.begin(), decisions.end(),
                         [context](const Decision& d) { return d.context == context; });
  return it == decisions.end() ? nullptr : &*it;
}

}  // namespace

void new_context(const void* context) {
  decisions.erase(std::remove_if(decisions.begin(), decisions.end(),
                                 [context](const Decision& d) { return d.context == context; }),
                  decisions.end());
}

void dtype_decided_native(const void* context, c10::ScalarType dtype) {
  if (find(context) != nullptr) return;  // the first operand decided decides the name
  if (decisions.size() >= kMaxDecisions) decisions.erase(decisions.begin());
  decisions.push_back({context, dtype, false});
}

void launching(const void* context, const char* op, c10::ScalarType operand_dtype) {
  Decision* decision = find(context);
  if (decision != nullptr && decision->launched) return;  // a second call of the same launch
  const c10::ScalarType dtype = decision != nullptr ? decision->dtype : operand_dtype;
  if (decision != nullptr) {
    decision->launched = true;
  } else {
    if (decisions.size() >= kMaxDecisions) decisions.erase(decisions.begin());
    decisions.push_back({context, dtype, true});
  }
  const std::lock_guard<std::mutex> lock(runs_mutex);
  runs[{op, dtype == c10::ScalarType::Undefined ? "" : c10::toString(dtype)}] += 1;
}

}  // namespace native_runs_detail

void set_native_run_recording(bool on) {
  {
    const std::lock_guard<std::mutex> lock(native_runs_detail::runs_mutex);
    native_runs_detail::runs.clear();
  }
  native_runs_detail::recording.store(on, std::memory_order_relaxed);
}

std::vector<NativeRun> native_runs() {
  const std::lock_guard<std::mutex> lock(native_runs_detail::runs_mutex);
  std::vector<NativeRun> result;
  for (const auto& [key, count] : native_runs_detail::runs) result.push_back({key.first, key.second, count});
  return result;
}

}  // namespace torch_fl
