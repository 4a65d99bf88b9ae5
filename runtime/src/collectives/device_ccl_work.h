// The Work a DeviceCclBackend collective returns (see device_ccl_backend.h).
//
// The collective is queued on the backend's collective stream; an event
// recorded after it marks its end, and the Work is "issued" with that event
// (at once, or for a call inside startCoalescing/endCoalescing, when the group
// ends: the library enqueues grouped calls only then). As NCCL's Work does,
// wait() with no timeout only orders the caller's current stream after that
// event (the host does not block); wait(timeout) also blocks the host until
// the event has passed, and on expiry aborts the communicator (a peer that
// never joins would keep the stream waiting forever) and raises naming the
// collective. The future completes when the Work is issued, with the event on
// the collective stream, so whoever uses its value waits for it on their stream.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <ATen/core/ivalue.h>
#include <c10/core/Event.h>
#include <c10/core/Stream.h>
#include <torch/csrc/distributed/c10d/Work.hpp>

namespace torch_fl::collectives {

class DeviceCclWork final : public c10d::Work {
 public:
  // `on_timeout(why)`: aborts the communicator, returning what to say about it.
  // `host_blocking`: wait() blocks the host even without a timeout (barrier).
  DeviceCclWork(std::string description, int rank, c10d::OpType op_type, const char* profiling_title,
                c10::Stream collective_stream, std::vector<at::Tensor> outputs,
                std::function<std::string(const std::string&)> on_timeout,
                std::chrono::milliseconds default_timeout,
                bool host_blocking);

  // The collective is enqueued: `done` follows it on the collective stream.
  void issue(c10::Event done);
  // The backend's watchdog gave up on it (timeout, or the library's asynchronous
  // error): wait() and synchronize() raise `error` from now on.
  void fail(std::exception_ptr error);
  bool failed();
  const std::string& description() const { return description_; }

  bool isCompleted() override;
  bool isSuccess() const override;
  bool wait(std::chrono::milliseconds timeout) override;
  void synchronize() override;
  std::vector<at::Tensor> result() override { return outputs_; }
  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override { return future_; }

 private:
  c10::Event& issued_event();  // refuses before issue()
  void block_host(std::chrono::milliseconds timeout);

  const std::string description_;  // "[nvidia] all_reduce (nvgpu_nccl, rank 0 of 2)"
  const c10::Stream stream_;
  const std::vector<at::Tensor> outputs_;
  const std::function<std::string(const std::string&)> on_timeout_;
  const std::chrono::milliseconds default_timeout_;
  const bool host_blocking_;
  const c10::intrusive_ptr<c10::ivalue::Future> future_;
  mutable std::mutex issue_mutex_;
  std::optional<c10::Event> done_;  // set by issue()
  std::exception_ptr error_;        // set by fail()
};

}  // namespace torch_fl::collectives
