#include "backend_hooks.h"

#include <exception>
#include <vector>

#include <c10/util/Exception.h>

namespace torch_fl::collectives {
namespace {

// The hooks as they are now, copied under the lock and called outside it.
template <typename Hook>
std::vector<Hook> snapshot(std::mutex& mutex, const std::map<int64_t, Hook>& hooks) {
  const std::lock_guard<std::mutex> lock(mutex);
  std::vector<Hook> copy;
  copy.reserve(hooks.size());
  for (const auto& entry : hooks) copy.push_back(entry.second);
  return copy;
}

template <typename Call>
void run_reporting(const std::string& backend, const char* kind, Call&& call) {
  try {
    call();
  } catch (const std::exception& e) {
    TORCH_WARN(backend, ": a ", kind, " hook raised, ignored: ", e.what());
  }
}

}  // namespace

#ifdef TORCH_FL_C10D_ABORT_HOOKS
void BackendHooks::add_abort(int64_t id, c10d::AbortHook hook) {
  const std::lock_guard<std::mutex> lock(mutex_);
  abort_.insert_or_assign(id, std::move(hook));
}

void BackendHooks::remove_abort(int64_t id) {
  const std::lock_guard<std::mutex> lock(mutex_);
  abort_.erase(id);
}

void BackendHooks::run_abort(const std::string& backend) const {
  for (const auto& hook : snapshot(mutex_, abort_)) run_reporting(backend, "abort", [&] { hook(); });
}
#endif

#ifdef TORCH_FL_C10D_COMPLETION_HOOKS
void BackendHooks::add_completion(int64_t id, c10d::CompletionHook hook) {
  const std::lock_guard<std::mutex> lock(mutex_);
  completion_.insert_or_assign(id, std::move(hook));
}

void BackendHooks::remove_completion(int64_t id) {
  const std::lock_guard<std::mutex> lock(mutex_);
  completion_.erase(id);
}

bool BackendHooks::any_completion() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return !completion_.empty();
}

void BackendHooks::run_completion(uint64_t completion_key, const std::string& backend) const {
  c10d::CompletionHookArgs args;
  args.completionKey = completion_key;  // duration_ms stays empty: collectives are not timed here
  for (const auto& hook : snapshot(mutex_, completion_)) run_reporting(backend, "completion", [&] { hook(args); });
}
#endif

}  // namespace torch_fl::collectives
