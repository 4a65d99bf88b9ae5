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
  launch.call(library_.broadcast(tensor.data_ptr(), tensor.data_ptr(), count(tensor), launch.dtype(tensor),
                                 static_cast<int32_t>(opts.rootRank), launch.comm(), launch.stream()),
              "broadcast");
  return launch.done(tensors);
}

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::gather(std::vector<std::vector<at::Tensor>>& outputs,
                                                        std::vector<at::Tensor>& inputs,
                                                        const c10d::GatherOptions& opts) {
  const at::Tensor& input = only(inputs, "gather");
  const int root = static_cast<int>(opts.rootRank);
  std::vector<at::Tensor> gathered = getRank() == root && !outputs.empty() ? outputs[0] : std::vector<at::Tensor>{};
  Launch launch(*this, "gather", c10d::OpType::GATHER, tensors_of({&inputs, &gathered}));
  if (getRank() == root) {
    if (gathered.size() != static_cast<size_t>(getSize())) {
      launch.refuse("the root's output list must have one tensor per rank");
    }
    for (const at::Tensor& t : gathered) {
      launch.same_dtype(input, t);
      if (t.numel() != input.numel()) launch.refuse("every output must have the input's element count");
    }
  }
  if (getRank() != root) {
    launch.send(input, root);
    return launch.done({});
  }
  launch.group([&] {
    for (int r = 0; r < getSize(); ++r) {
      if (r == root) continue;
      launch.recv(gathered[r], r);
    }
  });
  launch.on_stream([&] { gathered[root].copy_(input.view(gathered[root].sizes())); });
  return launch.done(gathered);
}

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::scatter(std::vector<at::Tensor>& outputs,
                                                         std::vector<std::vector<at::Tensor>>& inputs,
                                                         const c10d::ScatterOptions& opts) {
  const at::Tensor& output = only(outputs, "scatter");
  const int root = static_cast<int>(opts.rootRank);
  std::vector<at::Tensor> pieces = getRank() == root && !inputs.empty() ? inputs[0] : std::vector<at::Tensor>{};
  Launch launch(*this, "scatter", c10d::OpType::SCATTER, tensors_of({&outputs, &pieces}));
  if (getRank() == root) {
    if (pieces.size() != static_cast<size_t>(getSize())) {
      launch.refuse("the root's input list must have one tensor per rank");
    }
    for (const at::Tensor& t : pieces) {
      launch.same_dtype(t, output);
      if (t.numel() != output.numel()) launch.refuse("every input must have the output's element count");
    }
  }
  if (getRank() != root) {
    launch.recv(output, root);
    return launch.done(outputs);
  }
  launch.group([&] {
    for (int r = 0; r < getSize(); ++r) {
      if (r == root) continue;
      launch.send(pieces[r], r);
    }
  });
  launch.on_stream([&] { output.copy_(pieces[root].view(output.sizes())); });
  return launch.done(outputs);
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
      launch.call(library_.send(address(source, sends[r].first), static_cast<size_t>(sends[r].second),
                                launch.dtype(input), r, launch.comm(), launch.stream()),
                  "send");
      launch.call(library_.recv(address(output, receives[r].first), static_cast<size_t>(receives[r].second),
                                launch.dtype(output), r, launch.comm(), launch.stream()),
                  "recv");
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
