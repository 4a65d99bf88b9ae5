// The c10d hooks a backend runs, kept by hook id as c10d registers them: abort
// hooks (torch >= 2.14), run before the backend aborts its communicator on a
// failure, and completion hooks (torch >= 2.15), run when its watchdog sees a
// Work complete successfully (the flight recorder and other consumers then need
// not poll every Work). Registration comes from any thread; the hooks run on the
// backend's watchdog or on the thread whose wait timed out, outside this lock, so
// that a hook may unregister itself.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>

#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/version.h>

#if defined(C10D_BACKEND_HAS_HOOKS)
#define TORCH_FL_C10D_ABORT_HOOKS 1
#endif
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 15)
#define TORCH_FL_C10D_COMPLETION_HOOKS 1  // with supportsAbortHooks and isInitialized
#endif

namespace torch_fl::collectives {

class BackendHooks {
 public:
#ifdef TORCH_FL_C10D_ABORT_HOOKS
  void add_abort(int64_t id, c10d::AbortHook hook);
  void remove_abort(int64_t id);
  // Each hook once; one that throws is reported as a warning naming `backend`, and the rest still run.
  void run_abort(const std::string& backend) const;
#endif
#ifdef TORCH_FL_C10D_COMPLETION_HOOKS
  void add_completion(int64_t id, c10d::CompletionHook hook);
  void remove_completion(int64_t id);
  bool any_completion() const;
  void run_completion(uint64_t completion_key, const std::string& backend) const;
#endif

 private:
  mutable std::mutex mutex_;
#ifdef TORCH_FL_C10D_ABORT_HOOKS
  std::map<int64_t, c10d::AbortHook> abort_;
#endif
#ifdef TORCH_FL_C10D_COMPLETION_HOOKS
  std::map<int64_t, c10d::CompletionHook> completion_;
#endif
};

}  // namespace torch_fl::collectives
