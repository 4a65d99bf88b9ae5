// A c10d backend for a chip without its own collective library: device buffers
// are staged through pinned host memory on a copy stream, and an existing host
// backend (PyTorch's Gloo) runs the collective.
//
// Per collective, in the caller's thread: check the tensors (one device, a dtype
// the spec's `distributed.dtypes` lists, dense), make the copy stream wait for
// the caller's current stream, queue the device→host copies there, and return a
// StagedWork at once. The staging thread waits for those copies and hands the
// host twins to Gloo in call order (Gloo matches collectives across ranks by the
// order they are issued in); the completion thread waits for Gloo, queues the
// host→device copies on the copy stream and completes the Work with an event
// after them. No thread blocks the caller; Work.wait() blocks only until the
// host collective is done, then orders the caller's stream after the copies.
//
// CPU tensors go to Gloo unstaged, through the same queue (so their order among
// device collectives is kept).
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "device_backend_base.h"
#include "staged_work.h"

namespace torch_fl::collectives {

struct StagedCall;

class StagedBackend final : public DeviceBackendBase {
 public:
  // `host_backend`: the backend that runs collectives on host tensors (Gloo).
  StagedBackend(c10::intrusive_ptr<c10d::Backend> host_backend, std::string name);
  ~StagedBackend() override;

  // staged_collectives.cpp
  TORCH_FL_C10D_COLLECTIVES;

  // Both stop the threads: a collective not yet issued fails, one issued is waited for.
  void shutdown() override;
  void abort() override;

 private:
  class Staging;  // one collective being set up (staged_call.h)
  friend class Staging;

  void enqueue(std::shared_ptr<StagedCall> call);
  // Read-after-write between collectives in flight: a collective's copy to host
  // of memory that an earlier one will copy back into waits until that copy back
  // is queued (the caller blocks only then).
  void wait_for_pending_write(const void* storage);
  void release_pending_writes(StagedCall& call);
  void stage_loop();
  void complete_loop();
  void check_agreement(const StagedCall& call);
  void finish(StagedCall& call);
  void stop_threads();

  const c10::intrusive_ptr<c10d::Backend> host_backend_;
  const bool check_agreement_;  // TORCH_FL_COLLECTIVE_CHECKS, read when the group is made

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::shared_ptr<StagedCall>> to_stage_;     // issued, waiting for their device→host copies
  std::deque<std::shared_ptr<StagedCall>> to_complete_;  // running on the host backend
  std::unordered_map<const void*, int> pending_writes_;  // storage → collectives in flight writing it
  std::condition_variable written_;                      // pending_writes_ shrank
  bool staging_ = false;  // the staging thread holds a call it has taken off to_stage_
  bool stopping_ = false;
  std::thread stage_thread_;
  std::thread complete_thread_;
};

}  // namespace torch_fl::collectives
