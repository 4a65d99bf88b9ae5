// DeviceCclBackend's reducing and gathering collectives: all-reduce, reduce,
// reduce-scatter, all-gather, and the barrier (an all-reduce).
#include "device_ccl_backend.h"

#include <ATen/ATen.h>
#include <c10/core/impl/VirtualGuardImpl.h>

#include "device_ccl_launch.h"

namespace torch_fl::collectives {

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::allreduce(std::vector<at::Tensor>& tensors,
                                                           const c10d::AllreduceOptions& opts) {
  const at::Tensor& tensor = only(tensors, "all_reduce");
  Launch launch(*this, "all_reduce", c10d::OpType::ALLREDUCE, {&tensor});
  const tflReduceOp op = launch.reduce_op(opts.reduceOp, tensor.scalar_type());
  launch.call_in_place(library_.all_reduce, "all_reduce", tensor, op);
  return launch.done(tensors);
}

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::allreduce_coalesced(std::vector<at::Tensor>& tensors,
                                                                     const c10d::AllreduceCoalescedOptions& opts) {
  Launch launch(*this, "all_reduce_coalesced", c10d::OpType::ALLREDUCE_COALESCED, tensors_of({&tensors}));
  std::vector<tflReduceOp> ops;
  for (const at::Tensor& t : tensors) ops.push_back(launch.reduce_op(opts.reduceOp, t.scalar_type()));
  launch.group([&] {
    for (size_t i = 0; i < tensors.size(); ++i) {
      launch.call_in_place(library_.all_reduce, "all_reduce", tensors[i], ops[i]);
    }
  });
  return launch.done(tensors);
}

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::reduce(std::vector<at::Tensor>& tensors,
                                                        const c10d::ReduceOptions& opts) {
  const at::Tensor& tensor = only(tensors, "reduce");
  Launch launch(*this, "reduce", c10d::OpType::REDUCE, {&tensor});
  launch.call_in_place(library_.reduce, "reduce", tensor, launch.reduce_op(opts.reduceOp, tensor.scalar_type()),
                       static_cast<int32_t>(opts.rootRank));
  return launch.done(tensors);
}

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::reduce_scatter(std::vector<at::Tensor>& outputs,
                                                                std::vector<std::vector<at::Tensor>>& inputs,
                                                                const c10d::ReduceScatterOptions& opts) {
  const at::Tensor& output = only(outputs, "reduce_scatter");
  TORCH_CHECK(inputs.size() == 1, "reduce_scatter: takes one input list per rank, got ", inputs.size());
  const std::vector<at::Tensor>& pieces = inputs[0];
  Launch launch(*this, "reduce_scatter", c10d::OpType::REDUCE_SCATTER, tensors_of({&outputs, &pieces}));
  if (pieces.size() != static_cast<size_t>(getSize())) launch.refuse("the input list must have one tensor per rank");
  for (const at::Tensor& piece : pieces) {
    launch.same_dtype(piece, output);
    if (piece.numel() != output.numel()) launch.refuse("every input must have the output's element count");
  }
  const tflReduceOp op = launch.reduce_op(opts.reduceOp, output.scalar_type());
  at::Tensor flat;
  launch.on_stream([&] {
    std::vector<at::Tensor> rows;
    for (const at::Tensor& piece : pieces) rows.push_back(piece.reshape({-1}));
    flat = launch.use(at::cat(rows));
  });
  launch.call(library_.reduce_scatter(flat.data_ptr(), output.data_ptr(), count(output), launch.dtype(output), op,
                                      launch.comm(), launch.stream()),
              "reduce_scatter");
  return launch.done(outputs);
}

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::_reduce_scatter_base(at::Tensor& output, at::Tensor& input,
                                                                      const c10d::ReduceScatterOptions& opts) {
  Launch launch(*this, "reduce_scatter_tensor", c10d::OpType::_REDUCE_SCATTER_BASE, {&output, &input});
  if (input.numel() != output.numel() * getSize() || output.scalar_type() != input.scalar_type()) {
    launch.refuse("the input must have the output's dtype and " + std::to_string(getSize()) +
                  " times its elements");
  }
  const tflReduceOp op = launch.reduce_op(opts.reduceOp, output.scalar_type());
  // NCCL's in-place form: the output is the rank's block of the input.
  const at::Tensor source = output.is_alias_of(input) && output.data_ptr() == address(input, getRank() * output.numel())
                                ? input
                                : launch.source(input, output);
  launch.call(library_.reduce_scatter(source.data_ptr(), output.data_ptr(), count(output), launch.dtype(output), op,
                                      launch.comm(), launch.stream()),
              "reduce_scatter");
  return launch.done({output});
}

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::reduce_scatter_tensor_coalesced(
    std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs, const c10d::ReduceScatterOptions& opts) {
  Launch launch(*this, "reduce_scatter_tensor_coalesced", c10d::OpType::COALESCED, tensors_of({&outputs, &inputs}));
  if (outputs.size() != inputs.size()) launch.refuse("as many outputs as inputs are needed");
  std::vector<at::Tensor> sources;
  std::vector<tflReduceOp> ops;
  for (size_t i = 0; i < inputs.size(); ++i) {
    launch.same_dtype(inputs[i], outputs[i]);
    if (inputs[i].numel() != outputs[i].numel() * getSize()) {
      launch.refuse("input " + std::to_string(i) + " must have " + std::to_string(getSize()) +
                    " times its output's elements");
    }
    ops.push_back(launch.reduce_op(opts.reduceOp, outputs[i].scalar_type()));
    sources.push_back(launch.source(inputs[i], outputs[i]));
  }
  launch.group([&] {
    for (size_t i = 0; i < inputs.size(); ++i) {
      launch.call(library_.reduce_scatter(sources[i].data_ptr(), outputs[i].data_ptr(), count(outputs[i]),
                                          launch.dtype(outputs[i]), ops[i], launch.comm(), launch.stream()),
                  "reduce_scatter");
    }
  });
  return launch.done(outputs);
}

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::allgather(std::vector<std::vector<at::Tensor>>& outputs,
                                                           std::vector<at::Tensor>& inputs,
                                                           const c10d::AllgatherOptions&) {
  const at::Tensor& input = only(inputs, "all_gather");
  TORCH_CHECK(outputs.size() == 1, "all_gather: takes one output list per rank, got ", outputs.size());
  std::vector<at::Tensor>& gathered = outputs[0];
  Launch launch(*this, "all_gather", c10d::OpType::ALLGATHER, tensors_of({&inputs, &gathered}));
  launch.not_in_a_group();  // it copies the gathered rows out after the call
  if (gathered.size() != static_cast<size_t>(getSize())) {
    launch.refuse("the output list has " + std::to_string(gathered.size()) + " tensors for " +
                  std::to_string(getSize()) + " ranks");
  }
  for (const at::Tensor& t : gathered) {
    if (t.numel() != input.numel() || t.scalar_type() != input.scalar_type()) {
      launch.refuse("every output must have the input's dtype and element count");
    }
  }
  at::Tensor flat;
  launch.on_stream([&] { flat = launch.use(at::empty({getSize() * input.numel()}, input.options())); });
  launch.call(library_.all_gather(input.data_ptr(), flat.data_ptr(), count(input), launch.dtype(input),
                                  launch.comm(), launch.stream()),
              "all_gather");
  launch.on_stream([&] {
    for (int r = 0; r < getSize(); ++r) {
      gathered[r].copy_(flat.narrow(0, r * input.numel(), input.numel()).view(gathered[r].sizes()));
    }
  });
  return launch.done(gathered);
}

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::_allgather_base(at::Tensor& output, at::Tensor& input,
                                                                 const c10d::AllgatherOptions&) {
  Launch launch(*this, "all_gather_into_tensor", c10d::OpType::_ALLGATHER_BASE, {&output, &input});
  if (output.numel() != input.numel() * getSize() || output.scalar_type() != input.scalar_type()) {
    launch.refuse("the output must have the input's dtype and " + std::to_string(getSize()) +
                  " times its elements");
  }
  const at::Tensor source = launch.source(input, output, getRank() * input.numel());
  launch.call(library_.all_gather(source.data_ptr(), output.data_ptr(), count(input), launch.dtype(input),
                                  launch.comm(), launch.stream()),
              "all_gather");
  return launch.done({output});
}

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::allgather_into_tensor_coalesced(std::vector<at::Tensor>& outputs,
                                                                                 std::vector<at::Tensor>& inputs,
                                                                                 const c10d::AllgatherOptions&) {
  Launch launch(*this, "all_gather_into_tensor_coalesced", c10d::OpType::COALESCED, tensors_of({&outputs, &inputs}));
  if (outputs.size() != inputs.size()) launch.refuse("as many outputs as inputs are needed");
  std::vector<at::Tensor> sources;
  for (size_t i = 0; i < inputs.size(); ++i) {
    launch.same_dtype(inputs[i], outputs[i]);
    if (outputs[i].numel() != inputs[i].numel() * getSize()) {
      launch.refuse("output " + std::to_string(i) + " must have " + std::to_string(getSize()) +
                    " times its input's elements");
    }
    sources.push_back(launch.source(inputs[i], outputs[i], getRank() * inputs[i].numel()));
  }
  launch.group([&] {
    for (size_t i = 0; i < inputs.size(); ++i) {
      launch.call(library_.all_gather(sources[i].data_ptr(), outputs[i].data_ptr(), count(inputs[i]),
                                      launch.dtype(inputs[i]), launch.comm(), launch.stream()),
                  "all_gather");
    }
  });
  return launch.done(outputs);
}

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::barrier(const c10d::BarrierOptions& opts) {
  // An all_reduce of one element, waited for by the host, on the communicator's
  // device; before the first collective: the device the caller names (opts), the
  // group's bound device, else the current one.
  c10::Device device(c10::DeviceType::PrivateUse1, 0);
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (device_) {
      device = *device_;
    } else if (opts.device && opts.device->type() == c10::DeviceType::PrivateUse1) {
      device = *opts.device;
    } else if (!opts.device_ids.empty()) {
      device = c10::Device(c10::DeviceType::PrivateUse1, static_cast<c10::DeviceIndex>(opts.device_ids[0]));
    } else if (const auto bound = getBoundDeviceId(); bound && bound->type() == c10::DeviceType::PrivateUse1) {
      device = *bound;
    } else {
      const c10::impl::VirtualGuardImpl guard(c10::DeviceType::PrivateUse1);
      device = guard.getDevice();
    }
  }
  std::vector<at::Tensor> token{at::zeros({1}, at::TensorOptions().dtype(at::kFloat).device(device))};
  Launch launch(*this, "barrier", c10d::OpType::BARRIER, tensors_of({&token}));
  launch.not_in_a_group();
  launch.call(library_.all_reduce(token[0].data_ptr(), token[0].data_ptr(), 1, TFL_DTYPE_FLOAT32, TFL_REDUCE_SUM,
                                  launch.comm(), launch.stream()),
              "all_reduce");
  return launch.done({}, /*host_blocking=*/true);
}

}  // namespace torch_fl::collectives
