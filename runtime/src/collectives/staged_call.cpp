#include "staged_call.h"

#include <ATen/ATen.h>
#include <c10/core/StreamGuard.h>

#include "common.h"

namespace torch_fl::collectives {

StagedBackend::Staging::Staging(StagedBackend& backend, const char* collective, c10d::OpType type,
                                const std::vector<const at::Tensor*>& tensors)
    : CollectiveSetup(backend, collective, type, Takes::kDeviceAndCpuTensors),
      backend_(backend),
      call_(std::make_shared<StagedCall>()) {
  for (const at::Tensor* t : tensors) {
    const c10::Device device = check(*t);
    dtype_ = static_cast<int64_t>(t->scalar_type());
    if (device.type() == c10::DeviceType::PrivateUse1) call_->device = device;
  }
  if (!call_->device) return;
  call_->copy_stream = collective_stream_of(*call_->device);
  // The copies to host read what the caller's stream has written so far.
  wait_for_current_stream(*call_->device, *call_->copy_stream);
}

at::Tensor StagedBackend::Staging::twin(const at::Tensor& t, bool read, bool written) {
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

std::vector<at::Tensor> StagedBackend::Staging::twins(const std::vector<at::Tensor>& tensors, bool read,
                                                      bool written) {
  std::vector<at::Tensor> hosts;
  hosts.reserve(tensors.size());
  for (const at::Tensor& t : tensors) hosts.push_back(twin(t, read, written));
  return hosts;
}

std::vector<std::vector<at::Tensor>> StagedBackend::Staging::twins(const std::vector<std::vector<at::Tensor>>& lists,
                                                                   bool read, bool written) {
  std::vector<std::vector<at::Tensor>> hosts;
  hosts.reserve(lists.size());
  for (const auto& list : lists) hosts.push_back(twins(list, read, written));
  return hosts;
}

void StagedBackend::Staging::agree_on(int64_t numel) {
  if (!backend_.check_agreement_) return;
  call_->agreement = std::array<int64_t, 3>{collective_index(collective_), dtype_, numel};
}

c10::intrusive_ptr<c10d::Work> StagedBackend::Staging::submit(
    std::vector<at::Tensor> outputs, std::function<c10::intrusive_ptr<c10d::Work>()> run_on_host) {
  call_->run_on_host = std::move(run_on_host);
  if (call_->device) {
    c10::Event staged(call_->device->type());
    staged.record(*call_->copy_stream);
    call_->staged = std::move(staged);
  }
  call_->work = c10::make_intrusive<StagedWork>(description(), backend_.getRank(), type_, profiling_title(),
                                                call_->device, std::move(outputs));
  backend_.enqueue(call_);
  return call_->work;
}

}  // namespace torch_fl::collectives
