#include "staged_backend.h"

#include "common.h"

#include <array>
#include <cstdlib>
#include <iterator>
#include <mutex>
#include <string_view>
#include <unordered_map>

#include <ATen/ATen.h>
#include <c10/core/StreamGuard.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <c10/util/Exception.h>

#include <torch_fl/backend_info.h>
#include <torch_fl/driver.h>

namespace torch_fl::collectives {

// One collective from issue to completion.
struct StagedCall {
  std::optional<c10::Device> device;       // nullopt: CPU tensors, nothing staged
  std::optional<c10::Stream> copy_stream;  // the device's copy stream
  std::optional<c10::Event> staged;        // recorded after the device→host copies
  std::vector<at::Tensor> device_inputs;   // kept alive until their copies have run
  std::vector<std::pair<at::Tensor, at::Tensor>> copy_back;  // (device tensor, host twin)
  std::function<c10::intrusive_ptr<c10d::Work>()> run_on_host;
  // What every rank must agree on before the host collective runs: which
  // collective, dtype, elements (-1: any). Empty for point-to-point calls.
  std::optional<std::array<int64_t, 3>> agreement;
  c10::intrusive_ptr<StagedWork> work;
  c10::intrusive_ptr<c10d::Work> host_work;
  std::exception_ptr error;
  std::vector<const void*> pending_writes;  // storages it will copy back into, until it has
};

namespace {

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

// One collective being set up in the caller's thread: checks its tensors, makes
// their host twins and queues the copies to host.
class StagedBackend::Staging {
 public:
  Staging(StagedBackend& backend, const char* collective, c10d::OpType type,
          const std::vector<const at::Tensor*>& tensors)
      : backend_(backend), collective_(collective), type_(type), call_(std::make_shared<StagedCall>()) {
    for (const at::Tensor* t : tensors) check(*t);
    if (!call_->device) return;
    call_->copy_stream = collective_stream_of(*call_->device);
    const c10::impl::VirtualGuardImpl guard(call_->device->type());
    // The copies to host read what the caller's stream has written so far.
    c10::Event issued(call_->device->type());
    issued.record(guard.getStream(*call_->device));
    issued.block(*call_->copy_stream);
  }

  // The host tensor standing for `t` in the host collective: `t` itself on CPU,
  // else a pinned twin, filled from `t` if the collective reads it and copied
  // back into `t` afterwards if it writes it.
  // A tensor passed twice (an output that is also an input) has one twin, read
  // and written as either use needs.
  at::Tensor twin(const at::Tensor& t, bool read, bool written) {
    if (!call_->device) return t;
    auto found = twins_.find(t.unsafeGetTensorImpl());
    if (found == twins_.end()) {
      at::Tensor host = at::empty(t.sizes(), t.options().device(c10::kCPU).pinned_memory(true));
      found = twins_.emplace(t.unsafeGetTensorImpl(), Twin{host}).first;
    }
    Twin& twin = found->second;
    if (read && !twin.read) {
      // An earlier collective still in flight that writes this memory must have
      // queued its copy back first (the copy stream then keeps the order).
      backend_.wait_for_pending_write(t.storage().data());
      const c10::StreamGuard on_copy_stream(*call_->copy_stream);
      twin.host.copy_(t, /*non_blocking=*/true);
      call_->device_inputs.push_back(t);
      twin.read = true;
    }
    if (written && !twin.written) {
      call_->copy_back.emplace_back(t, twin.host);
      twin.written = true;
    }
    return twin.host;
  }

  std::vector<at::Tensor> twins(const std::vector<at::Tensor>& tensors, bool read, bool written) {
    std::vector<at::Tensor> hosts;
    hosts.reserve(tensors.size());
    for (const at::Tensor& t : tensors) hosts.push_back(twin(t, read, written));
    return hosts;
  }

  std::vector<std::vector<at::Tensor>> twins(const std::vector<std::vector<at::Tensor>>& lists, bool read,
                                             bool written) {
    std::vector<std::vector<at::Tensor>> hosts;
    hosts.reserve(lists.size());
    for (const auto& list : lists) hosts.push_back(twins(list, read, written));
    return hosts;
  }

  // Every rank must be running this collective on `numel` elements (-1: any
  // count) of the same dtype: checked before Gloo sees it, since Gloo aborts the
  // process on a size mismatch.
  void agree_on(int64_t numel) {
    if (!backend_.check_agreement_) return;
    call_->agreement = std::array<int64_t, 3>{collective_index(collective_), dtype_, numel};
  }

  c10::intrusive_ptr<c10d::Work> submit(std::vector<at::Tensor> outputs,
                                        std::function<c10::intrusive_ptr<c10d::Work>()> run_on_host) {
    call_->run_on_host = std::move(run_on_host);
    if (call_->device) {
      c10::Event staged(call_->device->type());
      staged.record(*call_->copy_stream);
      call_->staged = std::move(staged);
    }
    call_->work = c10::make_intrusive<StagedWork>(description(), backend_.getRank(), type_,
                                                  interned(backend_.name_ + ":" + collective_), call_->device,
                                                  std::move(outputs));
    backend_.enqueue(call_);
    return call_->work;
  }

 private:
  std::string description() const {
    return describe(collective_, backend_.name_, backend_.getRank(), backend_.getSize());
  }

  [[noreturn]] void refuse(const std::string& problem) const { TORCH_CHECK(false, description(), ": ", problem); }

  void check(const at::Tensor& t) {
    if (!t.defined()) refuse("got an undefined tensor");
    const c10::Device device = t.device();
    if (device.type() != c10::DeviceType::CPU && device.type() != c10::DeviceType::PrivateUse1) {
      refuse("tensors on " + device.str() + " are not this backend's; it takes " +
             c10::DeviceTypeName(c10::DeviceType::PrivateUse1, /*lower_case=*/true) + " and cpu tensors");
    }
    if (first_device_ && *first_device_ != device) {
      refuse("tensors on " + first_device_->str() + " and " + device.str() +
             ": one collective takes tensors of one device");
    }
    first_device_ = device;
    dtype_ = static_cast<int64_t>(t.scalar_type());
    if (t.is_sparse()) refuse("sparse tensors are not supported");
    if (device.type() != c10::DeviceType::PrivateUse1) return;
    call_->device = device;
    if (!spec_declares(t.scalar_type())) {
      refuse("dtype " + dtype_name(t.scalar_type()) +
             " is not supported (the spec's distributed.dtypes: " + backend_info().collective_dtypes + ")");
    }
    if (!t.is_contiguous()) refuse("tensors must be contiguous (call .contiguous() first)");
  }

  StagedBackend& backend_;
  const char* collective_;
  const c10d::OpType type_;
  std::shared_ptr<StagedCall> call_;
  struct Twin {
    at::Tensor host;
    bool read = false;     // its device→host copy is queued
    bool written = false;  // it is copied back after the host collective
  };

  std::optional<c10::Device> first_device_;
  int64_t dtype_ = -1;  // of the last tensor checked; -1 without tensors
  std::unordered_map<const c10::TensorImpl*, Twin> twins_;
};

namespace {

std::vector<const at::Tensor*> all_of(std::initializer_list<const std::vector<at::Tensor>*> lists) {
  std::vector<const at::Tensor*> out;
  for (const auto* list : lists) {
    for (const at::Tensor& t : *list) out.push_back(&t);
  }
  return out;
}

std::vector<const at::Tensor*> all_of(const std::vector<std::vector<at::Tensor>>& lists,
                                      const std::vector<at::Tensor>& list) {
  std::vector<const at::Tensor*> out = all_of({&list});
  for (const auto& inner : lists) {
    for (const at::Tensor& t : inner) out.push_back(&t);
  }
  return out;
}

int64_t numel_of(const std::vector<at::Tensor>& tensors) {
  int64_t total = 0;
  for (const at::Tensor& t : tensors) total += t.numel();
  return total;
}

std::vector<at::Tensor> flattened(const std::vector<std::vector<at::Tensor>>& lists) {
  std::vector<at::Tensor> out;
  for (const auto& list : lists) out.insert(out.end(), list.begin(), list.end());
  return out;
}

}  // namespace

StagedBackend::StagedBackend(c10::intrusive_ptr<c10d::Backend> host_backend, std::string name)
    : c10d::Backend(host_backend->getRank(), host_backend->getSize()),
      host_backend_(std::move(host_backend)),
      name_(std::move(name)),
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

// ---------------------------------------------------------------------------
// The collectives: each names the tensors it reads and writes, and the host
// backend's call on their twins.

c10::intrusive_ptr<c10d::Work> StagedBackend::broadcast(std::vector<at::Tensor>& tensors,
                                                        const c10d::BroadcastOptions& opts) {
  Staging staging(*this, "broadcast", c10d::OpType::BROADCAST, all_of({&tensors}));
  staging.agree_on(numel_of(tensors));
  auto host = staging.twins(tensors, true, true);
  return staging.submit(tensors, [backend = host_backend_, host, opts]() mutable {
    return backend->broadcast(host, opts);
  });
}

c10::intrusive_ptr<c10d::Work> StagedBackend::allreduce(std::vector<at::Tensor>& tensors,
                                                        const c10d::AllreduceOptions& opts) {
  Staging staging(*this, "all_reduce", c10d::OpType::ALLREDUCE, all_of({&tensors}));
  staging.agree_on(numel_of(tensors));
  auto host = staging.twins(tensors, true, true);
  return staging.submit(tensors, [backend = host_backend_, host, opts]() mutable {
    return backend->allreduce(host, opts);
  });
}

c10::intrusive_ptr<c10d::Work> StagedBackend::allreduce_coalesced(std::vector<at::Tensor>& tensors,
                                                                  const c10d::AllreduceCoalescedOptions& opts) {
  Staging staging(*this, "all_reduce_coalesced", c10d::OpType::ALLREDUCE_COALESCED, all_of({&tensors}));
  staging.agree_on(numel_of(tensors));
  auto host = staging.twins(tensors, true, true);
  return staging.submit(tensors, [backend = host_backend_, host, opts]() mutable {
    return backend->allreduce_coalesced(host, opts);
  });
}

c10::intrusive_ptr<c10d::Work> StagedBackend::reduce(std::vector<at::Tensor>& tensors,
                                                     const c10d::ReduceOptions& opts) {
  Staging staging(*this, "reduce", c10d::OpType::REDUCE, all_of({&tensors}));
  staging.agree_on(numel_of(tensors));
  auto host = staging.twins(tensors, true, true);
  return staging.submit(tensors, [backend = host_backend_, host, opts]() mutable {
    return backend->reduce(host, opts);
  });
}

c10::intrusive_ptr<c10d::Work> StagedBackend::allgather(std::vector<std::vector<at::Tensor>>& outputs,
                                                        std::vector<at::Tensor>& inputs,
                                                        const c10d::AllgatherOptions& opts) {
  Staging staging(*this, "all_gather", c10d::OpType::ALLGATHER, all_of(outputs, inputs));
  staging.agree_on(numel_of(inputs));
  auto host_in = staging.twins(inputs, true, false);
  auto host_out = staging.twins(outputs, false, true);
  return staging.submit(flattened(outputs), [backend = host_backend_, host_out, host_in, opts]() mutable {
    return backend->allgather(host_out, host_in, opts);
  });
}

c10::intrusive_ptr<c10d::Work> StagedBackend::_allgather_base(at::Tensor& output, at::Tensor& input,
                                                              const c10d::AllgatherOptions& opts) {
  Staging staging(*this, "all_gather_into_tensor", c10d::OpType::_ALLGATHER_BASE, {&output, &input});
  staging.agree_on(input.numel());
  at::Tensor host_in = staging.twin(input, true, false);
  at::Tensor host_out = staging.twin(output, false, true);
  return staging.submit({output}, [backend = host_backend_, host_out, host_in, opts]() mutable {
    return backend->_allgather_base(host_out, host_in, opts);
  });
}

c10::intrusive_ptr<c10d::Work> StagedBackend::allgather_into_tensor_coalesced(std::vector<at::Tensor>& outputs,
                                                                              std::vector<at::Tensor>& inputs,
                                                                              const c10d::AllgatherOptions& opts) {
  Staging staging(*this, "all_gather_into_tensor_coalesced", c10d::OpType::COALESCED, all_of({&outputs, &inputs}));
  staging.agree_on(numel_of(inputs));
  auto host_in = staging.twins(inputs, true, false);
  auto host_out = staging.twins(outputs, false, true);
  return staging.submit(outputs, [backend = host_backend_, host_out, host_in, opts]() mutable {
    return backend->allgather_into_tensor_coalesced(host_out, host_in, opts);
  });
}

c10::intrusive_ptr<c10d::Work> StagedBackend::reduce_scatter_tensor_coalesced(
    std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs, const c10d::ReduceScatterOptions& opts) {
  Staging staging(*this, "reduce_scatter_tensor_coalesced", c10d::OpType::COALESCED, all_of({&outputs, &inputs}));
  staging.agree_on(numel_of(outputs));
  auto host_in = staging.twins(inputs, true, false);
  auto host_out = staging.twins(outputs, false, true);
  return staging.submit(outputs, [backend = host_backend_, host_out, host_in, opts]() mutable {
    return backend->reduce_scatter_tensor_coalesced(host_out, host_in, opts);
  });
}

c10::intrusive_ptr<c10d::Work> StagedBackend::gather(std::vector<std::vector<at::Tensor>>& outputs,
                                                     std::vector<at::Tensor>& inputs,
                                                     const c10d::GatherOptions& opts) {
  Staging staging(*this, "gather", c10d::OpType::GATHER, all_of(outputs, inputs));
  staging.agree_on(numel_of(inputs));
  auto host_in = staging.twins(inputs, true, false);
  auto host_out = staging.twins(outputs, false, true);
  return staging.submit(flattened(outputs), [backend = host_backend_, host_out, host_in, opts]() mutable {
    return backend->gather(host_out, host_in, opts);
  });
}

c10::intrusive_ptr<c10d::Work> StagedBackend::scatter(std::vector<at::Tensor>& outputs,
                                                      std::vector<std::vector<at::Tensor>>& inputs,
                                                      const c10d::ScatterOptions& opts) {
  Staging staging(*this, "scatter", c10d::OpType::SCATTER, all_of(inputs, outputs));
  staging.agree_on(numel_of(outputs));
  auto host_in = staging.twins(inputs, true, false);
  auto host_out = staging.twins(outputs, false, true);
  return staging.submit(outputs, [backend = host_backend_, host_out, host_in, opts]() mutable {
    return backend->scatter(host_out, host_in, opts);
  });
}

c10::intrusive_ptr<c10d::Work> StagedBackend::reduce_scatter(std::vector<at::Tensor>& outputs,
                                                             std::vector<std::vector<at::Tensor>>& inputs,
                                                             const c10d::ReduceScatterOptions& opts) {
  Staging staging(*this, "reduce_scatter", c10d::OpType::REDUCE_SCATTER, all_of(inputs, outputs));
  staging.agree_on(numel_of(outputs));
  auto host_in = staging.twins(inputs, true, false);
  auto host_out = staging.twins(outputs, false, true);
  return staging.submit(outputs, [backend = host_backend_, host_out, host_in, opts]() mutable {
    return backend->reduce_scatter(host_out, host_in, opts);
  });
}

c10::intrusive_ptr<c10d::Work> StagedBackend::_reduce_scatter_base(at::Tensor& output, at::Tensor& input,
                                                                   const c10d::ReduceScatterOptions& opts) {
  Staging staging(*this, "reduce_scatter_tensor", c10d::OpType::_REDUCE_SCATTER_BASE, {&output, &input});
  staging.agree_on(output.numel());
  at::Tensor host_in = staging.twin(input, true, false);
  at::Tensor host_out = staging.twin(output, false, true);
  return staging.submit({output}, [backend = host_backend_, host_out, host_in, opts]() mutable {
    return backend->_reduce_scatter_base(host_out, host_in, opts);
  });
}

c10::intrusive_ptr<c10d::Work> StagedBackend::alltoall_base(at::Tensor& output, at::Tensor& input,
                                                            std::vector<int64_t>& output_split_sizes,
                                                            std::vector<int64_t>& input_split_sizes,
                                                            const c10d::AllToAllOptions& opts) {
  Staging staging(*this, "all_to_all_single", c10d::OpType::ALLTOALL_BASE, {&output, &input});
  staging.agree_on(-1);
  at::Tensor host_in = staging.twin(input, true, false);
  at::Tensor host_out = staging.twin(output, false, true);
  return staging.submit({output}, [backend = host_backend_, host_out, host_in, output_split_sizes,
                                   input_split_sizes, opts]() mutable {
    return backend->alltoall_base(host_out, host_in, output_split_sizes, input_split_sizes, opts);
  });
}

c10::intrusive_ptr<c10d::Work> StagedBackend::alltoall(std::vector<at::Tensor>& outputs,
                                                       std::vector<at::Tensor>& inputs,
                                                       const c10d::AllToAllOptions& opts) {
  Staging staging(*this, "all_to_all", c10d::OpType::ALLTOALL, all_of({&outputs, &inputs}));
  staging.agree_on(-1);
  auto host_in = staging.twins(inputs, true, false);
  auto host_out = staging.twins(outputs, false, true);
  return staging.submit(outputs, [backend = host_backend_, host_out, host_in, opts]() mutable {
    return backend->alltoall(host_out, host_in, opts);
  });
}

c10::intrusive_ptr<c10d::Work> StagedBackend::barrier(const c10d::BarrierOptions& opts) {
  // No tensors: queued like the rest, so it is issued after every earlier collective.
  Staging staging(*this, "barrier", c10d::OpType::BARRIER, {});
  staging.agree_on(0);
  return staging.submit({}, [backend = host_backend_, opts]() mutable { return backend->barrier(opts); });
}

c10::intrusive_ptr<c10d::Work> StagedBackend::send(std::vector<at::Tensor>& tensors, int dst_rank, int tag) {
  Staging staging(*this, "send", c10d::OpType::SEND, all_of({&tensors}));
  auto host = staging.twins(tensors, true, false);
  return staging.submit({}, [backend = host_backend_, host, dst_rank, tag]() mutable {
    return backend->send(host, dst_rank, tag);
  });
}

c10::intrusive_ptr<c10d::Work> StagedBackend::recv(std::vector<at::Tensor>& tensors, int src_rank, int tag) {
  Staging staging(*this, "recv", c10d::OpType::RECV, all_of({&tensors}));
  auto host = staging.twins(tensors, false, true);
  return staging.submit(tensors, [backend = host_backend_, host, src_rank, tag]() mutable {
    return backend->recv(host, src_rank, tag);
  });
}

}  // namespace torch_fl::collectives
