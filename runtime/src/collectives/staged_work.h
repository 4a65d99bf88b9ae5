// The Work a staged collective returns (see staged_backend.h).
//
// It completes in two steps: the backend's completion thread finishes the host
// collective and queues the copies back to the device on the copy stream, then
// completes this Work with an event recorded after those copies. wait() blocks
// the caller only until that host part is done (errors are raised there, named
// after the collective); the device copies are ordered before later work by
// making the caller's current stream wait on the event, as NCCL's Work does.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <ATen/core/ivalue.h>
#include <c10/core/Event.h>
#include <torch/csrc/distributed/c10d/Work.hpp>

namespace torch_fl::collectives {

class StagedWork final : public c10d::Work {
 public:
  // `device`: where the caller's tensors live (nullopt for CPU tensors, which are
  // not staged). `outputs`: what result() and the future's value hold.
  StagedWork(std::string description, int rank, c10d::OpType op_type, const char* profiling_title,
             std::optional<c10::Device> device, std::vector<at::Tensor> outputs);

  bool wait(std::chrono::milliseconds timeout) override;
  // The caller's current stream waits for the copies back (no host blocking).
  void synchronize() override;
  std::vector<at::Tensor> result() override { return outputs_; }
  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override { return future_; }

  // Called by the backend's completion thread with the copy stream current, so
  // the future records its completion event on it.
  void complete(std::optional<c10::Event> copied_back);
  void fail(std::exception_ptr error);

  const std::string& description() const { return description_; }

 private:
  const std::string description_;  // "[mlu] all_reduce (cncl, rank 0 of 2)"
  const std::optional<c10::Device> device_;
  const std::vector<at::Tensor> outputs_;
  const c10::intrusive_ptr<c10::ivalue::Future> future_;
  std::optional<c10::Event> copied_back_;  // guarded by mutex_; set before completed_
};

}  // namespace torch_fl::collectives
