// A c10d backend on the vendor's own collective library (NCCL, HCCL, CNCL),
// for a spec that says `distributed: {transport: vendor_ccl}`: the vendor
// library's TflCollectives table (torch_fl/collectives_abi.h) does the
// communication; this class is PyTorch's Backend contract, once for all such
// vendors.
//
// Per collective, in the caller's thread: check the tensors (one device, a
// dtype the spec lists, dense and contiguous), make the device's collective
// stream wait for the caller's current stream, enqueue the library's call(s)
// there, tell the caching allocator the tensors are in use on that stream, and
// return a DeviceCclWork that completes with an event after them. Nothing
// blocks the host: wait() orders the caller's stream after the event.
//
// The communicator is made at the group's first device collective (every rank
// makes it at its first, on the device of that collective's tensors), from the
// unique id rank 0 made when the group was created (torch_fl.distributed
// exchanges it through the group's store). A rank's group has one device, and
// its own collective stream there. The library's calls of one backend are made
// under its mutex (a communicator takes one caller at a time).
//
// A watchdog thread enforces the group's timeout, as ProcessGroupNCCL's does: a
// Work not complete within it (a rank that never joined), or an asynchronous
// error the library reports, aborts the communicator and fails the Works in
// flight with a DistBackendError naming the collective; their wait() raises it.
//
// c10d's hooks (backend_hooks.h): abort hooks run before the watchdog or a
// timed-out wait aborts the communicator (not for abort() or shutdown(), which
// the caller asked for), completion hooks when the watchdog sees a Work complete
// successfully (within its 50 ms poll); a failed Work fires none.
//
// startCoalescing/endCoalescing (batch_isend_irecv) issue what is called in
// between as one library group: the calls' Works are issued, and their futures
// completed, when the group ends.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <optional>
#include <string>
#include <vector>

#include <c10/core/Stream.h>

#include <torch_fl/collectives_abi.h>

#include "backend_hooks.h"
#include "device_backend_base.h"
#include "device_ccl_work.h"

namespace torch_fl::collectives {

class DeviceCclBackend final : public DeviceBackendBase {
 public:
  DeviceCclBackend(const TflCollectives& library, std::vector<uint8_t> unique_id, int rank, int size,
                   std::string name, std::chrono::milliseconds timeout);
  ~DeviceCclBackend() override;

  // device_ccl_reductions.cpp, device_ccl_exchanges.cpp
  TORCH_FL_C10D_COLLECTIVES;

  bool supportsCoalescing() const override { return true; }
  void startCoalescing() override;
  c10::intrusive_ptr<c10d::Work> endCoalescing() override;

  // shutdown: waits for what is queued, then destroys the communicator; abort
  // (and a timed-out wait, and the watchdog): frees it without waiting, from any
  // thread, even while a call into the library is blocked (as NCCL allows), and
  // fails the Works in flight.
  void shutdown() override;
  void abort() override;
  // The last strong reference is gone (Works keep only weak ones): stop the
  // watchdog here, on the releasing thread, and free the communicator.
  void release_resources() override;

#ifdef TORCH_FL_C10D_ABORT_HOOKS
  void registerAbortHook(int64_t hook_id, c10d::AbortHook hook) override { hooks_.add_abort(hook_id, std::move(hook)); }
  void unregisterAbortHook(int64_t hook_id) override { hooks_.remove_abort(hook_id); }
#endif
#ifdef TORCH_FL_C10D_COMPLETION_HOOKS
  bool supportsAbortHooks() const override { return true; }
  bool supportsCompletionHooks() const override { return true; }
  void registerCompletionHook(int64_t hook_id, c10d::CompletionHook hook) override {
    hooks_.add_completion(hook_id, std::move(hook));
  }
  void unregisterCompletionHook(int64_t hook_id) override { hooks_.remove_completion(hook_id); }
  // The communicator is made at the group's first device collective.
  bool isInitialized() override { return comm_.load() != nullptr; }
#endif

 private:
  class Launch;  // one collective being enqueued (device_ccl_launch.h)
  friend class Launch;

  // gather and scatter, mirror images: one tensor per rank (`own_list`'s), one
  // list at the root (`root_lists`' first) with one tensor per rank.
  c10::intrusive_ptr<c10d::Work> exchange_with_root(const char* collective, c10d::OpType type, bool gathering,
                                                    std::vector<at::Tensor>& own_list,
                                                    std::vector<std::vector<at::Tensor>>& root_lists, int root);

  // The communicator on `device`, made on first use (a collective call over the
  // ranks), and the backend's stream there. mutex_ held.
  tflComm communicator_locked(const c10::Device& device, const std::string& description);
  // Aborts the communicator and fails the Works in flight with `why`; returns what
  // to add to an error message about it. `failure`: a timeout or an error, not a
  // request, so the abort hooks run first.
  std::string abort_communicator(const std::string& why, bool failure = true);
  void fail_watched(const std::string& why);
  // What a Work calls when its wait(timeout) expires.
  std::function<std::string(const std::string&)> aborter();
  void watch(c10::intrusive_ptr<DeviceCclWork> work);
  void completed(DeviceCclWork& work);  // the watchdog saw it complete; watch_mutex_ held
  // Reports and drops every watched Work already complete, wherever it is in the queue (the
  // watchdog's poll may not have seen it): at shutdown and before an abort. watch_mutex_ held.
  void retire_completed_locked();
  void watchdog_loop();
  void stop_watchdog();

  const TflCollectives& library_;
  const std::vector<uint8_t> unique_id_;
  const std::chrono::milliseconds timeout_;

  std::mutex mutex_;  // guards what follows but comm_ and closed_, and every collective's library calls
  std::atomic<tflComm> comm_{nullptr};  // taken (exchanged) by whoever frees it
  std::atomic<bool> closed_{false};     // shut down or aborted
  std::mutex abort_mutex_;              // the watchdog's comm_async_error against an abort
  std::optional<c10::Device> device_;   // the communicator's device
  std::optional<c10::Stream> stream_;   // this group's collective stream on it
  // Between startCoalescing and endCoalescing:
  bool coalescing_ = false;
  bool group_open_ = false;  // group_start called (at the first call in the group)
  std::vector<c10::intrusive_ptr<DeviceCclWork>> coalesced_works_;
  std::vector<at::Tensor> coalesced_outputs_;
  std::vector<at::Tensor> coalesced_tensors_;  // kept until the group's calls are enqueued

  // The watchdog: issued Works not yet complete, with their deadlines.
  std::mutex watch_mutex_;
  std::condition_variable watch_changed_;
  std::deque<std::pair<std::chrono::steady_clock::time_point, c10::intrusive_ptr<DeviceCclWork>>> watched_;
  bool watch_stopping_ = false;
  std::thread watchdog_;
  BackendHooks hooks_;
};

}  // namespace torch_fl::collectives
