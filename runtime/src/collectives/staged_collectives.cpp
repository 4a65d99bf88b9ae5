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


// The gathers' and the scatters' argument types (rows below).
using TensorList = std::vector<at::Tensor>;
using TensorLists = std::vector<std::vector<at::Tensor>>;

// What a Work returns for each of c10d's argument shapes: a tensor, a list, a
// list of lists (flattened).
std::vector<at::Tensor> results_of(const at::Tensor& tensor) { return {tensor}; }
std::vector<at::Tensor> results_of(const std::vector<at::Tensor>& tensors) { return tensors; }
std::vector<at::Tensor> results_of(const std::vector<std::vector<at::Tensor>>& lists) { return flattened(lists); }

// A collective that reads and writes `tensors` in place (broadcast, the
// reductions): the host backend's `method` on their twins. `Staging` is
// StagedBackend's (deduced: it is private to the class).
template <typename Staging, typename Method, typename Options>
c10::intrusive_ptr<c10d::Work> in_place(Staging& staging, std::vector<at::Tensor>& tensors, Method method,
                                        const Options& opts) {
  staging.agree_on(numel_of(tensors));
  auto host = staging.twins(tensors, true, true);
  return staging.on_host(tensors, method, host, opts);
}

// A collective that reads `inputs` and writes `outputs` (each a tensor, a list or
// a list of lists), every rank agreeing on `numel` elements: the host backend's
// `method` on their twins, then `extra` (the options).
template <typename Staging, typename Outputs, typename Inputs, typename Method, typename... Extra>
c10::intrusive_ptr<c10d::Work> out_of_place(Staging& staging, int64_t numel, Outputs& outputs, Inputs& inputs,
                                            Method method, Extra&... extra) {
  staging.agree_on(numel);
  auto host_in = staging.twins(inputs, true, false);
  auto host_out = staging.twins(outputs, false, true);
  return staging.on_host(results_of(outputs), method, host_out, host_in, extra...);
}

}  // namespace

// broadcast and the reductions: one list read and written in place, the host
// backend's method of the same name on the twins. Each row: the method, its
// options, the collective's name in c10d's records, its OpType.
#define TORCH_FL_STAGED_IN_PLACE(method, Options, name, op_type)                                 \
  c10::intrusive_ptr<c10d::Work> StagedBackend::method(std::vector<at::Tensor>& tensors,         \
                                                       const c10d::Options& opts) {              \
    Staging staging(*this, name, c10d::OpType::op_type, tensors_of({&tensors}));                 \
    return in_place(staging, tensors, &c10d::Backend::method, opts);                             \
  }
TORCH_FL_STAGED_IN_PLACE(broadcast, BroadcastOptions, "broadcast", BROADCAST)
TORCH_FL_STAGED_IN_PLACE(allreduce, AllreduceOptions, "all_reduce", ALLREDUCE)
TORCH_FL_STAGED_IN_PLACE(allreduce_coalesced, AllreduceCoalescedOptions, "all_reduce_coalesced", ALLREDUCE_COALESCED)
TORCH_FL_STAGED_IN_PLACE(reduce, ReduceOptions, "reduce", REDUCE)
#undef TORCH_FL_STAGED_IN_PLACE

// The gathers and the scatters: a list of lists and a plain list, the host
// backend's method of the same name on their twins; every rank agrees on the
// size of the plain list (its contribution, or its share). Each row: as above,
// then the types of outputs and inputs (TensorLists, TensorList or the other way
// round), and which argument is the list of lists and which the plain list.
#define TORCH_FL_STAGED_LISTS(method, Options, name, op_type, Outputs, Inputs, lists, list)                           \
  c10::intrusive_ptr<c10d::Work> StagedBackend::method(Outputs& outputs, Inputs& inputs, const c10d::Options& opts) { \
    Staging staging(*this, name, c10d::OpType::op_type, tensors_of(lists, list));                                     \
    return out_of_place(staging, numel_of(list), outputs, inputs, &c10d::Backend::method, opts);                      \
  }
TORCH_FL_STAGED_LISTS(allgather, AllgatherOptions, "all_gather", ALLGATHER, TensorLists, TensorList, outputs, inputs)
TORCH_FL_STAGED_LISTS(gather, GatherOptions, "gather", GATHER, TensorLists, TensorList, outputs, inputs)
TORCH_FL_STAGED_LISTS(scatter, ScatterOptions, "scatter", SCATTER, TensorList, TensorLists, inputs, outputs)
TORCH_FL_STAGED_LISTS(reduce_scatter, ReduceScatterOptions, "reduce_scatter", REDUCE_SCATTER, TensorList, TensorLists,
                      inputs, outputs)
#undef TORCH_FL_STAGED_LISTS

c10::intrusive_ptr<c10d::Work> StagedBackend::_allgather_base(at::Tensor& output, at::Tensor& input,
                                                              const c10d::AllgatherOptions& opts) {
  Staging staging(*this, "all_gather_into_tensor", c10d::OpType::_ALLGATHER_BASE, {&output, &input});
  return out_of_place(staging, input.numel(), output, input, &c10d::Backend::_allgather_base, opts);
}

c10::intrusive_ptr<c10d::Work> StagedBackend::allgather_into_tensor_coalesced(std::vector<at::Tensor>& outputs,
                                                                              std::vector<at::Tensor>& inputs,
                                                                              const c10d::AllgatherOptions& opts) {
  Staging staging(*this, "all_gather_into_tensor_coalesced", c10d::OpType::COALESCED, tensors_of({&outputs, &inputs}));
  return out_of_place(staging, numel_of(inputs), outputs, inputs, &c10d::Backend::allgather_into_tensor_coalesced,
                      opts);
}

c10::intrusive_ptr<c10d::Work> StagedBackend::reduce_scatter_tensor_coalesced(
    std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs, const c10d::ReduceScatterOptions& opts) {
  Staging staging(*this, "reduce_scatter_tensor_coalesced", c10d::OpType::COALESCED, tensors_of({&outputs, &inputs}));
  return out_of_place(staging, numel_of(outputs), outputs, inputs, &c10d::Backend::reduce_scatter_tensor_coalesced,
                      opts);
}

c10::intrusive_ptr<c10d::Work> StagedBackend::_reduce_scatter_base(at::Tensor& output, at::Tensor& input,
                                                                   const c10d::ReduceScatterOptions& opts) {
  Staging staging(*this, "reduce_scatter_tensor", c10d::OpType::_REDUCE_SCATTER_BASE, {&output, &input});
  return out_of_place(staging, output.numel(), output, input, &c10d::Backend::_reduce_scatter_base, opts);
}

c10::intrusive_ptr<c10d::Work> StagedBackend::alltoall_base(at::Tensor& output, at::Tensor& input,
                                                            std::vector<int64_t>& output_split_sizes,
                                                            std::vector<int64_t>& input_split_sizes,
                                                            const c10d::AllToAllOptions& opts) {
  Staging staging(*this, "all_to_all_single", c10d::OpType::ALLTOALL_BASE, {&output, &input});
  return out_of_place(staging, -1, output, input, &c10d::Backend::alltoall_base, output_split_sizes,
                      input_split_sizes, opts);
}

c10::intrusive_ptr<c10d::Work> StagedBackend::alltoall(std::vector<at::Tensor>& outputs,
                                                       std::vector<at::Tensor>& inputs,
                                                       const c10d::AllToAllOptions& opts) {
  Staging staging(*this, "all_to_all", c10d::OpType::ALLTOALL, tensors_of({&outputs, &inputs}));
  return out_of_place(staging, -1, outputs, inputs, &c10d::Backend::alltoall, opts);
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
