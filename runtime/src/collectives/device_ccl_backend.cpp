#include "device_ccl_backend.h"

#include <c10/core/DeviceGuard.h>
#include <c10/core/Event.h>
#include <c10/core/StreamGuard.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <c10/util/Exception.h>
#include <ATen/ATen.h>

#include <torch_fl/allocator.h>
#include <torch_fl/backend_info.h>
#include <torch_fl/driver.h>
#include <torch_fl/stream.h>

#include "common.h"
#include "device_ccl_work.h"

namespace torch_fl::collectives {

// One collective being enqueued, in the caller's thread.
class DeviceCclBackend::Launch {
 public:
  Launch(DeviceCclBackend& backend, const char* collective, c10d::OpType type,
         const std::vector<const at::Tensor*>& tensors)
      : backend_(backend),
        collective_(collective),
        type_(type),
        description_(describe(collective, backend.name_, backend.getRank(), backend.getSize())) {
    for (const at::Tensor* t : tensors) check(*t);
    if (!device_) refuse("got no tensors");
    comm_ = backend_.communicator(*device_, description_);
    stream_ = collective_stream_of(*device_);
    // The library reads what the caller's stream has written so far.
    const c10::impl::VirtualGuardImpl guard(device_->type());
    c10::Event ready(device_->type());
    ready.record(guard.getStream(*device_));
    ready.block(*stream_);
    for (const at::Tensor* t : tensors) used_.push_back(*t);
  }

  tflComm comm() const { return comm_; }
  tflStream stream() const { return driver_stream(*stream_); }
  const TflCollectives& library() const { return backend_.library_; }
  const std::string& description() const { return description_; }

  [[noreturn]] void refuse(const std::string& problem) const { TORCH_CHECK(false, description_, ": ", problem); }

  tflDtype dtype(const at::Tensor& t) const { return driver_dtype(t.scalar_type()); }

  tflReduceOp reduce_op(const c10d::ReduceOp& op, c10::ScalarType dtype) const {
    switch (op.op_) {
      case c10d::ReduceOp::SUM: return TFL_REDUCE_SUM;
      case c10d::ReduceOp::PRODUCT: return TFL_REDUCE_PRODUCT;
      case c10d::ReduceOp::MAX: return TFL_REDUCE_MAX;
      case c10d::ReduceOp::MIN: return TFL_REDUCE_MIN;
      case c10d::ReduceOp::AVG:
        if (!c10::isFloatingType(dtype)) refuse("ReduceOp.AVG takes floating-point tensors, got " + dtype_name(dtype));
        return TFL_REDUCE_AVG;
      default:
        refuse("reduce op " + std::to_string(static_cast<int>(op.op_)) + " is not supported (SUM, PRODUCT, MAX, MIN, AVG are)");
    }
  }

  // The library's status: 0, or a DistBackendError naming the collective and the call.
  void call(tflStatus status, const char* what) const {
    if (status == 0) return;
    C10_THROW_ERROR(DistBackendError, description_ + " failed: " + library().library + " " + what + ": " +
                                          library().status_string(status));
  }

  // Runs `body` with the collective stream current: temporaries are allocated
  // for it and copies are queued on it, in order with the library's calls.
  template <typename Body>
  void on_stream(Body&& body) {
    const c10::StreamGuard on_collective_stream(*stream_);
    body();
  }

  // `body`'s calls issued as one group (sends and receives that must not wait for each other).
  template <typename Body>
  void group(Body&& body) {
    call(library().group_start(), "group_start");
    try {
      body();
    } catch (...) {
      library().group_end();
      throw;
    }
    call(library().group_end(), "group_end");
  }

  // A temporary the queued work uses (kept from reuse until it has run).
  at::Tensor use(at::Tensor t) {
    used_.push_back(t);
    return t;
  }

  // `input` itself, or a copy of it when it shares memory with `output` (the
  // library reads and writes concurrently).
  at::Tensor source(const at::Tensor& input, const at::Tensor& output) {
    if (!input.is_alias_of(output)) return input;
    at::Tensor copy;
    on_stream([&] { copy = input.clone(); });
    return use(copy);
  }

  c10::intrusive_ptr<c10d::Work> done(std::vector<at::Tensor> outputs, bool host_blocking = false) {
    // The caching allocator must not hand these blocks out again until the
    // collective stream's work queued so far has run.
    for (const at::Tensor& t : used_) {
      if (t.defined() && t.has_storage() && t.storage().data_ptr().get() != nullptr) {
        record_stream(t.storage().data_ptr(), *stream_);
      }
    }
    c10::Event end(device_->type());
    end.record(*stream_);
    auto backend = c10::intrusive_ptr<DeviceCclBackend>::unsafe_reclaim_from_nonowning(&backend_);
    return c10::make_intrusive<DeviceCclWork>(
        description_, backend_.getRank(), type_, interned(backend_.name_ + ":" + collective_), *stream_,
        std::move(outputs), std::move(end), [backend] { return backend->abort_communicator(); }, backend_.timeout_,
        host_blocking);
  }

 private:
  void check(const at::Tensor& t) {
    if (!t.defined()) refuse("got an undefined tensor");
    const c10::Device device = t.device();
    if (device.type() != c10::DeviceType::PrivateUse1) {
      refuse("tensors on " + device.str() + " are not this backend's; it takes " +
             c10::DeviceTypeName(c10::DeviceType::PrivateUse1, /*lower_case=*/true) +
             " tensors (the group's CPU tensors go to its Gloo)");
    }
    if (device_ && *device_ != device) {
      refuse("tensors on " + device_->str() + " and " + device.str() + ": one collective takes tensors of one device");
    }
    device_ = device;
    if (t.is_sparse()) refuse("sparse tensors are not supported");
    if (!spec_declares(t.scalar_type())) {
      refuse("dtype " + dtype_name(t.scalar_type()) + " is not supported (the spec's distributed.dtypes: " +
             backend_info().collective_dtypes + ")");
    }
    if (!t.is_contiguous()) refuse("tensors must be contiguous (call .contiguous() first)");
  }

  DeviceCclBackend& backend_;
  const char* collective_;
  const c10d::OpType type_;
  const std::string description_;
  std::optional<c10::Device> device_;
  std::optional<c10::Stream> stream_;
  tflComm comm_ = nullptr;
  std::vector<at::Tensor> used_;
};

namespace {

const at::Tensor& only(const std::vector<at::Tensor>& tensors, const char* collective) {
  TORCH_CHECK(tensors.size() == 1, collective, ": takes one tensor per rank, got ", tensors.size());
  return tensors[0];
}

std::vector<const at::Tensor*> pointers(std::initializer_list<const std::vector<at::Tensor>*> lists) {
  std::vector<const at::Tensor*> out;
  for (const auto* list : lists) {
    for (const at::Tensor& t : *list) out.push_back(&t);
  }
  return out;
}

// Element `offset` of a contiguous tensor's data.
char* address(const at::Tensor& t, int64_t offset) {
  return static_cast<char*>(t.data_ptr()) + offset * static_cast<int64_t>(t.element_size());
}

size_t count(const at::Tensor& t) { return static_cast<size_t>(t.numel()); }

}  // namespace

DeviceCclBackend::DeviceCclBackend(const TflCollectives& library, std::vector<uint8_t> unique_id, int rank, int size,
                                   std::string name, std::chrono::milliseconds timeout)
    : c10d::Backend(rank, size),
      library_(library),
      unique_id_(std::move(unique_id)),
      name_(std::move(name)),
      timeout_(timeout) {
  TORCH_CHECK(unique_id_.size() == library_.unique_id_bytes, name_, ": a unique id of ", unique_id_.size(),
              " bytes; ", library_.library, " takes ", library_.unique_id_bytes);
}

DeviceCclBackend::~DeviceCclBackend() {
  // Not shut down: free without waiting (a peer may be gone; waiting could hang exit).
  const std::lock_guard<std::mutex> lock(mutex_);
  if (comm_ != nullptr) library_.comm_abort(comm_);
  comm_ = nullptr;
}

tflComm DeviceCclBackend::communicator(const c10::Device& device, const std::string& description) {
  const std::lock_guard<std::mutex> lock(mutex_);
  TORCH_CHECK(!closed_, description, ": the process group has been shut down or aborted");
  if (comm_ != nullptr) {
    TORCH_CHECK(*device_ == device, description, ": this rank's communicator is on ", device_->str(),
                "; a collective on ", device.str(), " needs a process group of its own (one device per rank)");
    return comm_;
  }
  const tflStatus status =
      library_.comm_init(unique_id_.data(), getSize(), getRank(), static_cast<int32_t>(device.index()), &comm_);
  if (status != 0) {
    comm_ = nullptr;
    C10_THROW_ERROR(DistBackendError, description + " failed: " + library_.library +
                                          " could not make the communicator on " + device.str() + ": " +
                                          library_.status_string(status));
  }
  device_ = device;
  return comm_;
}

std::string DeviceCclBackend::abort_communicator() {
  const std::lock_guard<std::mutex> lock(mutex_);
  closed_ = true;
  if (comm_ == nullptr) return "the process group was already closed";
  library_.comm_abort(comm_);
  comm_ = nullptr;
  return "its communicator was aborted; make a new process group";
}

void DeviceCclBackend::shutdown() {
  const std::lock_guard<std::mutex> lock(mutex_);
  closed_ = true;
  if (comm_ != nullptr) library_.comm_destroy(comm_);
  comm_ = nullptr;
}

void DeviceCclBackend::abort() { abort_communicator(); }

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::broadcast(std::vector<at::Tensor>& tensors,
                                                           const c10d::BroadcastOptions& opts) {
  const at::Tensor& tensor = only(tensors, "broadcast");
  Launch launch(*this, "broadcast", c10d::OpType::BROADCAST, {&tensor});
  launch.call(library_.broadcast(tensor.data_ptr(), tensor.data_ptr(), count(tensor), launch.dtype(tensor),
                                 static_cast<int32_t>(opts.rootRank), launch.comm(), launch.stream()),
              "broadcast");
  return launch.done(tensors);
}

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::allreduce(std::vector<at::Tensor>& tensors,
                                                           const c10d::AllreduceOptions& opts) {
  const at::Tensor& tensor = only(tensors, "all_reduce");
  Launch launch(*this, "all_reduce", c10d::OpType::ALLREDUCE, {&tensor});
  launch.call(library_.all_reduce(tensor.data_ptr(), tensor.data_ptr(), count(tensor), launch.dtype(tensor),
                                  launch.reduce_op(opts.reduceOp, tensor.scalar_type()), launch.comm(),
                                  launch.stream()),
              "all_reduce");
  return launch.done(tensors);
}

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::allreduce_coalesced(std::vector<at::Tensor>& tensors,
                                                                     const c10d::AllreduceCoalescedOptions& opts) {
  Launch launch(*this, "all_reduce_coalesced", c10d::OpType::ALLREDUCE_COALESCED, pointers({&tensors}));
  launch.group([&] {
    for (const at::Tensor& t : tensors) {
      launch.call(library_.all_reduce(t.data_ptr(), t.data_ptr(), count(t), launch.dtype(t),
                                      launch.reduce_op(opts.reduceOp, t.scalar_type()), launch.comm(),
                                      launch.stream()),
                  "all_reduce");
    }
  });
  return launch.done(tensors);
}

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::reduce(std::vector<at::Tensor>& tensors,
                                                        const c10d::ReduceOptions& opts) {
  const at::Tensor& tensor = only(tensors, "reduce");
  Launch launch(*this, "reduce", c10d::OpType::REDUCE, {&tensor});
  launch.call(library_.reduce(tensor.data_ptr(), tensor.data_ptr(), count(tensor), launch.dtype(tensor),
                              launch.reduce_op(opts.reduceOp, tensor.scalar_type()),
                              static_cast<int32_t>(opts.rootRank), launch.comm(), launch.stream()),
              "reduce");
  return launch.done(tensors);
}

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::allgather(std::vector<std::vector<at::Tensor>>& outputs,
                                                           std::vector<at::Tensor>& inputs,
                                                           const c10d::AllgatherOptions&) {
  const at::Tensor& input = only(inputs, "all_gather");
  TORCH_CHECK(outputs.size() == 1, "all_gather: takes one output list per rank, got ", outputs.size());
  std::vector<at::Tensor>& gathered = outputs[0];
  Launch launch(*this, "all_gather", c10d::OpType::ALLGATHER, pointers({&inputs, &gathered}));
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
  const at::Tensor source = launch.source(input, output);
  launch.call(library_.all_gather(source.data_ptr(), output.data_ptr(), count(input), launch.dtype(input),
                                  launch.comm(), launch.stream()),
              "all_gather");
  return launch.done({output});
}

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::allgather_into_tensor_coalesced(std::vector<at::Tensor>& outputs,
                                                                                 std::vector<at::Tensor>& inputs,
                                                                                 const c10d::AllgatherOptions&) {
  Launch launch(*this, "all_gather_into_tensor_coalesced", c10d::OpType::COALESCED, pointers({&outputs, &inputs}));
  if (outputs.size() != inputs.size()) launch.refuse("as many outputs as inputs are needed");
  std::vector<at::Tensor> sources;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (outputs[i].numel() != inputs[i].numel() * getSize()) {
      launch.refuse("output " + std::to_string(i) + " must have " + std::to_string(getSize()) +
                    " times its input's elements");
    }
    sources.push_back(launch.source(inputs[i], outputs[i]));
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

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::reduce_scatter_tensor_coalesced(
    std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs, const c10d::ReduceScatterOptions& opts) {
  Launch launch(*this, "reduce_scatter_tensor_coalesced", c10d::OpType::COALESCED, pointers({&outputs, &inputs}));
  if (outputs.size() != inputs.size()) launch.refuse("as many outputs as inputs are needed");
  std::vector<at::Tensor> sources;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].numel() != outputs[i].numel() * getSize()) {
      launch.refuse("input " + std::to_string(i) + " must have " + std::to_string(getSize()) +
                    " times its output's elements");
    }
    sources.push_back(launch.source(inputs[i], outputs[i]));
  }
  launch.group([&] {
    for (size_t i = 0; i < inputs.size(); ++i) {
      launch.call(library_.reduce_scatter(sources[i].data_ptr(), outputs[i].data_ptr(), count(outputs[i]),
                                          launch.dtype(outputs[i]),
                                          launch.reduce_op(opts.reduceOp, outputs[i].scalar_type()), launch.comm(),
                                          launch.stream()),
                  "reduce_scatter");
    }
  });
  return launch.done(outputs);
}

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::gather(std::vector<std::vector<at::Tensor>>& outputs,
                                                        std::vector<at::Tensor>& inputs,
                                                        const c10d::GatherOptions& opts) {
  const at::Tensor& input = only(inputs, "gather");
  const int root = static_cast<int>(opts.rootRank);
  std::vector<at::Tensor> gathered = getRank() == root && !outputs.empty() ? outputs[0] : std::vector<at::Tensor>{};
  Launch launch(*this, "gather", c10d::OpType::GATHER, pointers({&inputs, &gathered}));
  if (getRank() != root) {
    launch.call(library_.send(input.data_ptr(), count(input), launch.dtype(input), root, launch.comm(),
                              launch.stream()),
                "send");
    return launch.done({});
  }
  if (gathered.size() != static_cast<size_t>(getSize())) {
    launch.refuse("the root's output list must have one tensor per rank");
  }
  launch.group([&] {
    for (int r = 0; r < getSize(); ++r) {
      if (r == root) continue;
      launch.call(library_.recv(gathered[r].data_ptr(), count(gathered[r]), launch.dtype(gathered[r]), r,
                                launch.comm(), launch.stream()),
                  "recv");
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
  Launch launch(*this, "scatter", c10d::OpType::SCATTER, pointers({&outputs, &pieces}));
  if (getRank() != root) {
    launch.call(library_.recv(output.data_ptr(), count(output), launch.dtype(output), root, launch.comm(),
                              launch.stream()),
                "recv");
    return launch.done(outputs);
  }
  if (pieces.size() != static_cast<size_t>(getSize())) {
    launch.refuse("the root's input list must have one tensor per rank");
  }
  launch.group([&] {
    for (int r = 0; r < getSize(); ++r) {
      if (r == root) continue;
      launch.call(library_.send(pieces[r].data_ptr(), count(pieces[r]), launch.dtype(pieces[r]), r, launch.comm(),
                                launch.stream()),
                  "send");
    }
  });
  launch.on_stream([&] { output.copy_(pieces[root].view(output.sizes())); });
  return launch.done(outputs);
}

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::reduce_scatter(std::vector<at::Tensor>& outputs,
                                                                std::vector<std::vector<at::Tensor>>& inputs,
                                                                const c10d::ReduceScatterOptions& opts) {
  const at::Tensor& output = only(outputs, "reduce_scatter");
  TORCH_CHECK(inputs.size() == 1, "reduce_scatter: takes one input list per rank, got ", inputs.size());
  const std::vector<at::Tensor>& pieces = inputs[0];
  Launch launch(*this, "reduce_scatter", c10d::OpType::REDUCE_SCATTER, pointers({&outputs, &pieces}));
  if (pieces.size() != static_cast<size_t>(getSize())) launch.refuse("the input list must have one tensor per rank");
  at::Tensor flat;
  launch.on_stream([&] {
    std::vector<at::Tensor> rows;
    for (const at::Tensor& piece : pieces) rows.push_back(piece.reshape({-1}));
    flat = launch.use(at::cat(rows));
  });
  if (flat.numel() != output.numel() * getSize()) launch.refuse("every input must have the output's element count");
  launch.call(library_.reduce_scatter(flat.data_ptr(), output.data_ptr(), count(output), launch.dtype(output),
                                      launch.reduce_op(opts.reduceOp, output.scalar_type()), launch.comm(),
                                      launch.stream()),
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
  const at::Tensor source = launch.source(input, output);
  launch.call(library_.reduce_scatter(source.data_ptr(), output.data_ptr(), count(output), launch.dtype(output),
                                      launch.reduce_op(opts.reduceOp, output.scalar_type()), launch.comm(),
                                      launch.stream()),
              "reduce_scatter");
  return launch.done({output});
}

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::alltoall_base(at::Tensor& output, at::Tensor& input,
                                                               std::vector<int64_t>& output_split_sizes,
                                                               std::vector<int64_t>& input_split_sizes,
                                                               const c10d::AllToAllOptions&) {
  Launch launch(*this, "all_to_all_single", c10d::OpType::ALLTOALL_BASE, {&output, &input});
  // Splits count rows (the first dimension); none given: equal parts.
  auto offsets_of = [&](const at::Tensor& t, const std::vector<int64_t>& splits, const char* which) {
    const int64_t rows = t.dim() == 0 ? 1 : t.size(0);
    const int64_t row_elements = rows == 0 ? 0 : t.numel() / rows;
    std::vector<std::pair<int64_t, int64_t>> parts;  // (first element, elements) per rank
    if (splits.empty()) {
      if (rows % getSize() != 0) launch.refuse(std::string(which) + " rows do not split equally over the ranks");
      for (int r = 0; r < getSize(); ++r) parts.emplace_back(r * rows / getSize() * row_elements, rows / getSize() * row_elements);
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
  Launch launch(*this, "all_to_all", c10d::OpType::ALLTOALL, pointers({&outputs, &inputs}));
  if (outputs.size() != static_cast<size_t>(getSize()) || inputs.size() != outputs.size()) {
    launch.refuse("takes one input and one output tensor per rank");
  }
  std::vector<at::Tensor> sources;
  for (int r = 0; r < getSize(); ++r) {
    at::Tensor source = inputs[r];
    for (const at::Tensor& output : outputs) source = launch.source(source, output);
    sources.push_back(source);
  }
  launch.group([&] {
    for (int r = 0; r < getSize(); ++r) {
      launch.call(library_.send(sources[r].data_ptr(), count(sources[r]), launch.dtype(sources[r]), r, launch.comm(),
                                launch.stream()),
                  "send");
      launch.call(library_.recv(outputs[r].data_ptr(), count(outputs[r]), launch.dtype(outputs[r]), r, launch.comm(),
                                launch.stream()),
                  "recv");
    }
  });
  return launch.done(outputs);
}

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::barrier(const c10d::BarrierOptions&) {
  // An all_reduce of one element on the communicator's device, waited for by the host.
  c10::Device device(c10::DeviceType::PrivateUse1, 0);
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (device_) {
      device = *device_;
    } else {
      const c10::impl::VirtualGuardImpl guard(c10::DeviceType::PrivateUse1);
      device = guard.getDevice();
    }
  }
  std::vector<at::Tensor> token{at::zeros({1}, at::TensorOptions().dtype(at::kFloat).device(device))};
  Launch launch(*this, "barrier", c10d::OpType::BARRIER, pointers({&token}));
  launch.call(library_.all_reduce(token[0].data_ptr(), token[0].data_ptr(), 1, TFL_DTYPE_FLOAT32, TFL_REDUCE_SUM,
                                  launch.comm(), launch.stream()),
              "all_reduce");
  return launch.done({}, /*host_blocking=*/true);
}

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::send(std::vector<at::Tensor>& tensors, int dst_rank, int) {
  const at::Tensor& tensor = only(tensors, "send");
  Launch launch(*this, "send", c10d::OpType::SEND, {&tensor});
  launch.call(library_.send(tensor.data_ptr(), count(tensor), launch.dtype(tensor), dst_rank, launch.comm(),
                            launch.stream()),
              "send");
  return launch.done({});
}

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::recv(std::vector<at::Tensor>& tensors, int src_rank, int) {
  const at::Tensor& tensor = only(tensors, "recv");
  Launch launch(*this, "recv", c10d::OpType::RECV, {&tensor});
  launch.call(library_.recv(tensor.data_ptr(), count(tensor), launch.dtype(tensor), src_rank, launch.comm(),
                            launch.stream()),
              "recv");
  return launch.done(tensors);
}

}  // namespace torch_fl::collectives
