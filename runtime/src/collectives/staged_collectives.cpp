// StagedBackend's collectives: each names the tensors it reads and writes, and
// the host backend's call on their twins.
#include "staged_backend.h"

#include "staged_call.h"

namespace torch_fl::collectives {
namespace {

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

c10::intrusive_ptr<c10d::Work> StagedBackend::broadcast(std::vector<at::Tensor>& tensors,
                                                        const c10d::BroadcastOptions& opts) {
  Staging staging(*this, "broadcast", c10d::OpType::BROADCAST, tensors_of({&tensors}));
  staging.agree_on(numel_of(tensors));
  auto host = staging.twins(tensors, true, true);
  return staging.on_host(tensors, &c10d::Backend::broadcast, host, opts);
}

c10::intrusive_ptr<c10d::Work> StagedBackend::allreduce(std::vector<at::Tensor>& tensors,
                                                        const c10d::AllreduceOptions& opts) {
  Staging staging(*this, "all_reduce", c10d::OpType::ALLREDUCE, tensors_of({&tensors}));
  staging.agree_on(numel_of(tensors));
  auto host = staging.twins(tensors, true, true);
  return staging.on_host(tensors, &c10d::Backend::allreduce, host, opts);
}

c10::intrusive_ptr<c10d::Work> StagedBackend::allreduce_coalesced(std::vector<at::Tensor>& tensors,
                                                                  const c10d::AllreduceCoalescedOptions& opts) {
  Staging staging(*this, "all_reduce_coalesced", c10d::OpType::ALLREDUCE_COALESCED, tensors_of({&tensors}));
  staging.agree_on(numel_of(tensors));
  auto host = staging.twins(tensors, true, true);
  return staging.on_host(tensors, &c10d::Backend::allreduce_coalesced, host, opts);
}

c10::intrusive_ptr<c10d::Work> StagedBackend::reduce(std::vector<at::Tensor>& tensors,
                                                     const c10d::ReduceOptions& opts) {
  Staging staging(*this, "reduce", c10d::OpType::REDUCE, tensors_of({&tensors}));
  staging.agree_on(numel_of(tensors));
  auto host = staging.twins(tensors, true, true);
  return staging.on_host(tensors, &c10d::Backend::reduce, host, opts);
}

c10::intrusive_ptr<c10d::Work> StagedBackend::allgather(std::vector<std::vector<at::Tensor>>& outputs,
                                                        std::vector<at::Tensor>& inputs,
                                                        const c10d::AllgatherOptions& opts) {
  Staging staging(*this, "all_gather", c10d::OpType::ALLGATHER, tensors_of(outputs, inputs));
  staging.agree_on(numel_of(inputs));
  auto host_in = staging.twins(inputs, true, false);
  auto host_out = staging.twins(outputs, false, true);
  return staging.on_host(flattened(outputs), &c10d::Backend::allgather, host_out, host_in, opts);
}

c10::intrusive_ptr<c10d::Work> StagedBackend::_allgather_base(at::Tensor& output, at::Tensor& input,
                                                              const c10d::AllgatherOptions& opts) {
  Staging staging(*this, "all_gather_into_tensor", c10d::OpType::_ALLGATHER_BASE, {&output, &input});
  staging.agree_on(input.numel());
  at::Tensor host_in = staging.twin(input, true, false);
  at::Tensor host_out = staging.twin(output, false, true);
  return staging.on_host({output}, &c10d::Backend::_allgather_base, host_out, host_in, opts);
}

c10::intrusive_ptr<c10d::Work> StagedBackend::allgather_into_tensor_coalesced(std::vector<at::Tensor>& outputs,
                                                                              std::vector<at::Tensor>& inputs,
                                                                              const c10d::AllgatherOptions& opts) {
  Staging staging(*this, "all_gather_into_tensor_coalesced", c10d::OpType::COALESCED, tensors_of({&outputs, &inputs}));
  staging.agree_on(numel_of(inputs));
  auto host_in = staging.twins(inputs, true, false);
  auto host_out = staging.twins(outputs, false, true);
  return staging.on_host(outputs, &c10d::Backend::allgather_into_tensor_coalesced, host_out, host_in, opts);
}

c10::intrusive_ptr<c10d::Work> StagedBackend::reduce_scatter_tensor_coalesced(
    std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs, const c10d::ReduceScatterOptions& opts) {
  Staging staging(*this, "reduce_scatter_tensor_coalesced", c10d::OpType::COALESCED, tensors_of({&outputs, &inputs}));
  staging.agree_on(numel_of(outputs));
  auto host_in = staging.twins(inputs, true, false);
  auto host_out = staging.twins(outputs, false, true);
  return staging.on_host(outputs, &c10d::Backend::reduce_scatter_tensor_coalesced, host_out, host_in, opts);
}

c10::intrusive_ptr<c10d::Work> StagedBackend::gather(std::vector<std::vector<at::Tensor>>& outputs,
                                                     std::vector<at::Tensor>& inputs,
                                                     const c10d::GatherOptions& opts) {
  Staging staging(*this, "gather", c10d::OpType::GATHER, tensors_of(outputs, inputs));
  staging.agree_on(numel_of(inputs));
  auto host_in = staging.twins(inputs, true, false);
  auto host_out = staging.twins(outputs, false, true);
  return staging.on_host(flattened(outputs), &c10d::Backend::gather, host_out, host_in, opts);
}

c10::intrusive_ptr<c10d::Work> StagedBackend::scatter(std::vector<at::Tensor>& outputs,
                                                      std::vector<std::vector<at::Tensor>>& inputs,
                                                      const c10d::ScatterOptions& opts) {
  Staging staging(*this, "scatter", c10d::OpType::SCATTER, tensors_of(inputs, outputs));
  staging.agree_on(numel_of(outputs));
  auto host_in = staging.twins(inputs, true, false);
  auto host_out = staging.twins(outputs, false, true);
  return staging.on_host(outputs, &c10d::Backend::scatter, host_out, host_in, opts);
}

c10::intrusive_ptr<c10d::Work> StagedBackend::reduce_scatter(std::vector<at::Tensor>& outputs,
                                                             std::vector<std::vector<at::Tensor>>& inputs,
                                                             const c10d::ReduceScatterOptions& opts) {
  Staging staging(*this, "reduce_scatter", c10d::OpType::REDUCE_SCATTER, tensors_of(inputs, outputs));
  staging.agree_on(numel_of(outputs));
  auto host_in = staging.twins(inputs, true, false);
  auto host_out = staging.twins(outputs, false, true);
  return staging.on_host(outputs, &c10d::Backend::reduce_scatter, host_out, host_in, opts);
}

c10::intrusive_ptr<c10d::Work> StagedBackend::_reduce_scatter_base(at::Tensor& output, at::Tensor& input,
                                                                   const c10d::ReduceScatterOptions& opts) {
  Staging staging(*this, "reduce_scatter_tensor", c10d::OpType::_REDUCE_SCATTER_BASE, {&output, &input});
  staging.agree_on(output.numel());
  at::Tensor host_in = staging.twin(input, true, false);
  at::Tensor host_out = staging.twin(output, false, true);
  return staging.on_host({output}, &c10d::Backend::_reduce_scatter_base, host_out, host_in, opts);
}

c10::intrusive_ptr<c10d::Work> StagedBackend::alltoall_base(at::Tensor& output, at::Tensor& input,
                                                            std::vector<int64_t>& output_split_sizes,
                                                            std::vector<int64_t>& input_split_sizes,
                                                            const c10d::AllToAllOptions& opts) {
  Staging staging(*this, "all_to_all_single", c10d::OpType::ALLTOALL_BASE, {&output, &input});
  staging.agree_on(-1);
  at::Tensor host_in = staging.twin(input, true, false);
  at::Tensor host_out = staging.twin(output, false, true);
  return staging.on_host({output}, &c10d::Backend::alltoall_base, host_out, host_in, output_split_sizes,
                         input_split_sizes, opts);
}

c10::intrusive_ptr<c10d::Work> StagedBackend::alltoall(std::vector<at::Tensor>& outputs,
                                                       std::vector<at::Tensor>& inputs,
                                                       const c10d::AllToAllOptions& opts) {
  Staging staging(*this, "all_to_all", c10d::OpType::ALLTOALL, tensors_of({&outputs, &inputs}));
  staging.agree_on(-1);
  auto host_in = staging.twins(inputs, true, false);
  auto host_out = staging.twins(outputs, false, true);
  return staging.on_host(outputs, &c10d::Backend::alltoall, host_out, host_in, opts);
}

c10::intrusive_ptr<c10d::Work> StagedBackend::barrier(const c10d::BarrierOptions& opts) {
  // No tensors: queued like the rest, so it is issued after every earlier collective.
  Staging staging(*this, "barrier", c10d::OpType::BARRIER, {});
  staging.agree_on(0);
  return staging.on_host({}, &c10d::Backend::barrier, opts);
}

c10::intrusive_ptr<c10d::Work> StagedBackend::send(std::vector<at::Tensor>& tensors, int dst_rank, int tag) {
  Staging staging(*this, "send", c10d::OpType::SEND, tensors_of({&tensors}));
  auto host = staging.twins(tensors, true, false);
  return staging.on_host({}, &c10d::Backend::send, host, dst_rank, tag);
}

c10::intrusive_ptr<c10d::Work> StagedBackend::recv(std::vector<at::Tensor>& tensors, int src_rank, int tag) {
  Staging staging(*this, "recv", c10d::OpType::RECV, tensors_of({&tensors}));
  auto host = staging.twins(tensors, false, true);
  return staging.on_host(tensors, &c10d::Backend::recv, host, src_rank, tag);
}


}  // namespace torch_fl::collectives
