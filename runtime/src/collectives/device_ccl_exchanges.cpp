// DeviceCclBackend's collectives that move data between ranks unreduced:
// broadcast, gather, scatter, all-to-all, send and receive.
#include "device_ccl_backend.h"

#include <ATen/ATen.h>

#include "device_ccl_launch.h"

namespace torch_fl::collectives {

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::broadcast(std::vector<at::Tensor>& tensors,
                                                           const c10d::BroadcastOptions& opts) {
  const at::Tensor& tensor = only(tensors, "broadcast");
  Launch launch(*this, "broadcast", c10d::OpType::BROADCAST, {&tensor});
  launch.call_in_place(library_.broadcast, "broadcast", tensor, static_cast<int32_t>(opts.rootRank));
  return launch.done(tensors);
}

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::gather(std::vector<std::vector<at::Tensor>>& outputs,
                                                        std::vector<at::Tensor>& inputs,
                                                        const c10d::GatherOptions& opts) {
  return exchange_with_root("gather", c10d::OpType::GATHER, /*gathering=*/true, inputs, outputs,
                            static_cast<int>(opts.rootRank));
}

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::scatter(std::vector<at::Tensor>& outputs,
                                                         std::vector<std::vector<at::Tensor>>& inputs,
                                                         const c10d::ScatterOptions& opts) {
  return exchange_with_root("scatter", c10d::OpType::SCATTER, /*gathering=*/false, outputs, inputs,
                            static_cast<int>(opts.rootRank));
}

// Gathering, every rank's tensor goes to its entry of the root's list (gather's
// outputs); scattering, it comes from there (scatter's inputs). The root's own
// entry is a copy on the stream.
c10::intrusive_ptr<c10d::Work> DeviceCclBackend::exchange_with_root(const char* collective, c10d::OpType type,
                                                                    bool gathering, std::vector<at::Tensor>& own_list,
                                                                    std::vector<std::vector<at::Tensor>>& root_lists,
                                                                    int root) {
  const at::Tensor& own = only(own_list, collective);
  const bool at_root = getRank() == root;
  std::vector<at::Tensor> list = at_root && !root_lists.empty() ? root_lists[0] : std::vector<at::Tensor>{};
  Launch launch(*this, collective, type, tensors_of({&own_list, &list}));
  if (!at_root) {
    gathering ? launch.send(own, root) : launch.recv(own, root);
    return launch.done(gathering ? std::vector<at::Tensor>{} : own_list);
  }
  const std::string list_holds = gathering ? "output" : "input";
  const std::string own_is = gathering ? "input" : "output";
  if (list.size() != static_cast<size_t>(getSize())) {
    launch.refuse("the root's " + list_holds + " list must have one tensor per rank");
  }
  for (const at::Tensor& t : list) {
    gathering ? launch.same_dtype(own, t) : launch.same_dtype(t, own);  // the input's dtype first
    if (t.numel() != own.numel()) {
      launch.refuse("every " + list_holds + " must have the " + own_is + "'s element count");
    }
  }
  launch.group([&] {
    for (int r = 0; r < getSize(); ++r) {
      if (r == root) continue;
      gathering ? launch.recv(list[r], r) : launch.send(list[r], r);
    }
  });
  const at::Tensor& to = gathering ? list[root] : own;
  const at::Tensor& from = gathering ? own : list[root];
  launch.on_stream([&] { to.copy_(from.view(to.sizes())); });
  return launch.done(gathering ? list : own_list);
}

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::alltoall_base(at::Tensor& output, at::Tensor& input,
                                                               std::vector<int64_t>& output_split_sizes,
                                                               std::vector<int64_t>& input_split_sizes,
                                                               const c10d::AllToAllOptions&) {
  Launch launch(*this, "all_to_all_single", c10d::OpType::ALLTOALL_BASE, {&output, &input});
  launch.same_dtype(input, output);
  // Splits count rows (the first dimension); none given: equal parts.
  auto offsets_of = [&](const at::Tensor& t, const std::vector<int64_t>& splits, const char* which) {
    const int64_t rows = t.dim() == 0 ? 1 : t.size(0);
    const int64_t row_elements = rows == 0 ? 0 : t.numel() / rows;
    std::vector<std::pair<int64_t, int64_t>> parts;  // (first element, elements) per rank
    if (splits.empty()) {
      if (rows % getSize() != 0) launch.refuse(std::string(which) + " rows do not split equally over the ranks");
      const int64_t share = rows / getSize() * row_elements;
      for (int r = 0; r < getSize(); ++r) parts.emplace_back(r * share, share);
    } else {
      if (splits.size() != static_cast<size_t>(getSize())) launch.refuse(std::string(which) + " splits: one per rank");
      int64_t first = 0;
      for (int64_t split : splits) {
        parts.emplace_back(first * row_elements, split * row_elements);
        first += split;
      }
      if (first != rows) launch.refuse(std::string(which) + " splits do not add up to its rows");
    }
    return parts;
  };
  const auto sends = offsets_of(input, input_split_sizes, "input");
  const auto receives = offsets_of(output, output_split_sizes, "output");
  const at::Tensor source = launch.source(input, output);
  launch.group([&] {
    for (int r = 0; r < getSize(); ++r) {
      launch.send(source, r, sends[r].first, sends[r].second);
      launch.recv(output, r, receives[r].first, receives[r].second);
    }
  });
  return launch.done({output});
}

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::alltoall(std::vector<at::Tensor>& outputs,
                                                          std::vector<at::Tensor>& inputs,
                                                          const c10d::AllToAllOptions&) {
  Launch launch(*this, "all_to_all", c10d::OpType::ALLTOALL, tensors_of({&outputs, &inputs}));
  if (outputs.size() != static_cast<size_t>(getSize()) || inputs.size() != outputs.size()) {
    launch.refuse("takes one input and one output tensor per rank");
  }
  for (int r = 0; r < getSize(); ++r) launch.same_dtype(inputs[r], outputs[r]);  // sizes may differ per peer
  std::vector<at::Tensor> sources;
  for (int r = 0; r < getSize(); ++r) {
    at::Tensor source = inputs[r];
    for (const at::Tensor& output : outputs) source = launch.source(source, output);
    sources.push_back(source);
  }
  launch.group([&] {
    for (int r = 0; r < getSize(); ++r) {
      launch.send(sources[r], r);
      launch.recv(outputs[r], r);
    }
  });
  return launch.done(outputs);
}

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::send(std::vector<at::Tensor>& tensors, int dst_rank, int) {
  const at::Tensor& tensor = only(tensors, "send");
  Launch launch(*this, "send", c10d::OpType::SEND, {&tensor});
  launch.send(tensor, dst_rank);
  return launch.done({});
}

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::recv(std::vector<at::Tensor>& tensors, int src_rank, int) {
  const at::Tensor& tensor = only(tensors, "recv");
  Launch launch(*this, "recv", c10d::OpType::RECV, {&tensor});
  launch.recv(tensor, src_rank);
  return launch.done(tensors);
}

}  // namespace torch_fl::collectives
