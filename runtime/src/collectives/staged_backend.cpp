// StagedBackend's threads (staging, completion), its read-after-write order
// between collectives in flight, and the ranks' agreement check (see
// staged_backend.h).
#include "staged_backend.h"

#include <cstdlib>
#include <iterator>
#include <mutex>
#include <string_view>

#include <ATen/ATen.h>
#include <c10/core/StreamGuard.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <c10/util/Exception.h>

#include "common.h"
#include "staged_call.h"

namespace torch_fl::collectives {

// The collectives by index, for the ranks' agreement check (each rank sends
// the index of what it is about to run).
constexpr const char* kCollectives[] = {
    "broadcast", "all_reduce", "all_reduce_coalesced", "reduce", "all_gather", "all_gather_into_tensor",
    "all_gather_into_tensor_coalesced", "reduce_scatter_tensor_coalesced", "gather", "scatter", "reduce_scatter",
    "reduce_scatter_tensor", "all_to_all_single", "all_to_all", "barrier"};

int64_t collective_index(const char* name) {
  for (size_t i = 0; i < std::size(kCollectives); ++i) {
    if (std::string_view(kCollectives[i]) == name) return static_cast<int64_t>(i);
  }
  TORCH_INTERNAL_ASSERT(false, "collective ", name, " missing from kCollectives");
}

namespace {

std::string describe_agreement(const at::Tensor& row) {
  const int64_t* values = row.data_ptr<int64_t>();
  std::string text = kCollectives[values[0]];
  if (values[1] >= 0) text += " of " + dtype_name(c10::ScalarType(values[1]));
  if (values[2] >= 0) text += " with " + std::to_string(values[2]) + " elements";
  return text;
}

// TORCH_FL_COLLECTIVE_CHECKS: 1 (the default) exchanges what each rank runs before
// each collective; 0 skips it (Gloo then aborts the process on a size mismatch).
bool agreement_checks_from_environment() {
  const char* value = std::getenv("TORCH_FL_COLLECTIVE_CHECKS");
  if (value == nullptr) return true;
  const std::string text(value);
  TORCH_CHECK(text == "0" || text == "1", "TORCH_FL_COLLECTIVE_CHECKS=", text,
              ": expected 1 (check that the ranks agree before each collective, the default) or 0");
  return text == "1";
}

}  // namespace

StagedBackend::StagedBackend(c10::intrusive_ptr<c10d::Backend> host_backend, std::string name)
    : DeviceBackendBase(host_backend->getRank(), host_backend->getSize(), std::move(name)),
      host_backend_(std::move(host_backend)),
      check_agreement_(agreement_checks_from_environment()) {
  stage_thread_ = std::thread([this] { stage_loop(); });
  complete_thread_ = std::thread([this] { complete_loop(); });
}

StagedBackend::~StagedBackend() { stop_threads(); }

void StagedBackend::shutdown() {
  stop_threads();
  host_backend_->shutdown();
}

void StagedBackend::abort() {
  stop_threads();
  host_backend_->abort();
}

void StagedBackend::wait_for_pending_write(const void* storage) {
  std::unique_lock<std::mutex> lock(mutex_);
  written_.wait(lock, [&] { return pending_writes_.count(storage) == 0; });
}

void StagedBackend::release_pending_writes(StagedCall& call) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    for (const void* storage : call.pending_writes) {
      auto it = pending_writes_.find(storage);
      if (it != pending_writes_.end() && --it->second == 0) pending_writes_.erase(it);
    }
  }
  call.pending_writes.clear();
  written_.notify_all();
}

void StagedBackend::stop_threads() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  changed_.notify_all();
  if (stage_thread_.joinable()) stage_thread_.join();
  if (complete_thread_.joinable()) complete_thread_.join();
}

void StagedBackend::enqueue(std::shared_ptr<StagedCall> call) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    TORCH_CHECK(!stopping_, call->work->description(), ": the process group has been shut down");
    for (const auto& written : call->copy_back) {
      call->pending_writes.push_back(written.first.storage().data());
      ++pending_writes_[call->pending_writes.back()];
    }
    to_stage_.push_back(std::move(call));
  }
  changed_.notify_all();
}

void StagedBackend::stage_loop() {
  for (;;) {
    std::shared_ptr<StagedCall> call;
    bool stopping = false;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return stopping_ || !to_stage_.empty(); });
      if (to_stage_.empty()) return;  // stopping, and nothing left to issue
      call = std::move(to_stage_.front());
      to_stage_.pop_front();
      staging_ = true;
      stopping = stopping_;
    }
    try {
      // Shut down: what was not issued yet never will be (a peer may be gone).
      TORCH_CHECK(!stopping, "the process group was shut down before this collective was issued");
      if (call->agreement) check_agreement(*call);
      if (call->staged) call->staged->synchronize();
      call->device_inputs.clear();
      call->host_work = call->run_on_host();
    } catch (...) {
      call->error = current_error(call->work->description());
    }
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      to_complete_.push_back(std::move(call));
      staging_ = false;
    }
    changed_.notify_all();
  }
}

void StagedBackend::complete_loop() {
  for (;;) {
    std::shared_ptr<StagedCall> call;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      // Done once stopping with nothing queued and nothing being issued.
      changed_.wait(lock, [&] { return !to_complete_.empty() || (stopping_ && to_stage_.empty() && !staging_); });
      if (to_complete_.empty()) return;
      call = std::move(to_complete_.front());
      to_complete_.pop_front();
    }
    if (!call->error) {
      try {
        call->host_work->wait();
        finish(*call);
        continue;
      } catch (...) {
        call->error = current_error(call->work->description());
      }
    }
    release_pending_writes(*call);
    call->work->fail(call->error);
  }
}

// All-gathers each rank's (collective, dtype, elements) on the host backend and
// raises on every rank alike if they differ.
void StagedBackend::check_agreement(const StagedCall& call) {
  const auto& mine = *call.agreement;
  std::vector<at::Tensor> input{at::tensor(std::vector<int64_t>(mine.begin(), mine.end()), at::kLong)};
  std::vector<std::vector<at::Tensor>> rows(1);
  for (int rank = 0; rank < getSize(); ++rank) rows[0].push_back(at::empty({3}, at::kLong));
  host_backend_->allgather(rows, input)->wait();
  bool agreed = true;
  for (const at::Tensor& row : rows[0]) agreed = agreed && at::equal(row, rows[0][0]);
  if (agreed) return;
  std::string ranks;
  for (int rank = 0; rank < getSize(); ++rank) {
    ranks += (rank ? "; rank " : "rank ") + std::to_string(rank) + ": " + describe_agreement(rows[0][rank]);
  }
  TORCH_CHECK(false, "the ranks called different collectives or shapes (", ranks, ")");
}

// The host collective is done: copy the results back on the copy stream and
// complete the Work with an event after the copies.
void StagedBackend::finish(StagedCall& call) {
  if (!call.device) {
    call.work->complete(std::nullopt);
    return;
  }
  const c10::StreamGuard on_copy_stream(*call.copy_stream);
  const c10::impl::VirtualGuardImpl guard(call.device->type());
  for (auto& [device_tensor, host] : call.copy_back) {
    device_tensor.copy_(host, /*non_blocking=*/true);
    // The caller may free the tensor before the copy has run.
    guard.recordDataPtrOnStream(device_tensor.storage().data_ptr(), *call.copy_stream);
  }
  c10::Event copied_back(call.device->type());
  copied_back.record(*call.copy_stream);
  // Free the host twins (into the pinned cache, reusable once the copies have
  // run) before the caller can issue its next collective, which would otherwise
  // allocate, and page in, fresh ones.
  call.copy_back.clear();
  call.run_on_host = nullptr;
  call.host_work.reset();
  release_pending_writes(call);  // later copies to host of this memory now queue after ours
  call.work->complete(std::move(copied_back));
}

}  // namespace torch_fl::collectives
