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
#include <torch_fl/private_format.h>
#include <torch_fl/stream.h>

#include "common.h"
#include "device_ccl_work.h"

namespace torch_fl::collectives {
namespace {

// Element `offset` of a contiguous tensor's data.
char* address(const at::Tensor& t, int64_t offset) {
  return static_cast<char*>(t.data_ptr()) + offset * static_cast<int64_t>(t.element_size());
}

}  // namespace

// One collective being enqueued, in the caller's thread. It holds the backend's
// mutex from its checks to its Work.
class DeviceCclBackend::Launch {
 public:
  Launch(DeviceCclBackend& backend, const char* collective, c10d::OpType type,
         const std::vector<const at::Tensor*>& tensors)
      : backend_(backend), collective_(collective), type_(type), description_(backend.description(collective)) {
    for (const at::Tensor* t : tensors) check(*t);
    if (!device_) refuse("got no tensors");
    lock_ = std::unique_lock<std::mutex>(backend_.mutex_);
    comm_ = backend_.communicator_locked(*device_, description_);
    stream_ = *backend_.stream_;
    if (backend_.coalescing_ && !backend_.group_open_) {
      call(library().group_start(), "group_start");
      backend_.group_open_ = true;
    }
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
  int rank() const { return backend_.getRank(); }
  int size() const { return backend_.getSize(); }

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
        refuse("reduce op " + std::to_string(static_cast<int>(op.op_)) +
               " is not supported (SUM, PRODUCT, MAX, MIN, AVG are)");
    }
  }

  void same_dtype(const at::Tensor& a, const at::Tensor& b) const {
    if (a.scalar_type() != b.scalar_type()) {
      refuse("inputs and outputs must share one dtype, got " + dtype_name(a.scalar_type()) + " and " +
             dtype_name(b.scalar_type()));
    }
  }

  // The library's status: 0, or a DistBackendError naming the collective and the call.
  void call(tflStatus status, const char* what) const {
    if (status != 0) {
      C10_THROW_ERROR(DistBackendError, description_ + " failed: " + library().library + " " + what + ": " +
                                            library().status_string(status));
    }
    // Aborted from another thread meanwhile: the communicator is gone.
    if (backend_.closed_) C10_THROW_ERROR(DistBackendError, description_ + " failed: the process group was aborted");
  }

  // A collective that queues work after the library's call cannot be coalesced:
  // the library enqueues a group's calls only when it ends.
  void not_in_a_group() const {
    if (backend_.coalescing_) refuse("cannot run between startCoalescing and endCoalescing");
  }

  // Runs `body` with the collective stream current: temporaries are allocated
  // for it and copies are queued on it, in order with the library's calls.
  template <typename Body>
  void on_stream(Body&& body) {
    const c10::StreamGuard on_collective_stream(*stream_);
    body();
  }

  // `body`'s calls issued as one group (sends and receives that must not wait
  // for each other). Everything is checked before: a group ended early would
  // issue what it holds.
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
  // library would read and write it at once), unless `input` sits at element
  // `in_place_at` of `output`: the library's in-place form (FSDP2's all-gather).
  at::Tensor source(const at::Tensor& input, const at::Tensor& output, std::optional<int64_t> in_place_at = {}) {
    if (!input.is_alias_of(output)) return input;
    if (in_place_at && input.data_ptr() == address(output, *in_place_at)) return input;
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
    auto work = c10::make_intrusive<DeviceCclWork>(description_, rank(), type_,
                                                   interned(backend_.name_ + ":" + collective_), *stream_, outputs,
                                                   backend_.aborter(), backend_.timeout_, host_blocking);
    if (backend_.coalescing_) {  // issued when the group ends; its tensors kept till then
      backend_.coalesced_works_.push_back(work);
      backend_.coalesced_outputs_.insert(backend_.coalesced_outputs_.end(), outputs.begin(), outputs.end());
      backend_.coalesced_tensors_.insert(backend_.coalesced_tensors_.end(), used_.begin(), used_.end());
      return work;
    }
    c10::Event end(device_->type());
    end.record(*stream_);
    lock_.unlock();  // the future's callbacks may start collectives
    work->issue(std::move(end));
    backend_.watch(work);
    return work;
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
    ensure_public(t);  // the library reads and writes the public layout
  }

  DeviceCclBackend& backend_;
  const char* collective_;
  const c10d::OpType type_;
  const std::string description_;
  std::unique_lock<std::mutex> lock_;
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
  watchdog_ = std::thread([this] { watchdog_loop(); });
}

DeviceCclBackend::~DeviceCclBackend() {
  stop_watchdog();
  // Not shut down: free without waiting (a peer may be gone; waiting could hang exit).
  if (tflComm comm = comm_.exchange(nullptr)) library_.comm_abort(comm);
}

void DeviceCclBackend::release_resources() {
  stop_watchdog();
  closed_ = true;
  if (tflComm comm = comm_.exchange(nullptr)) library_.comm_abort(comm);
}

void DeviceCclBackend::stop_watchdog() {
  std::thread watchdog;  // one caller joins it
  {
    const std::lock_guard<std::mutex> lock(watch_mutex_);
    watch_stopping_ = true;
    watched_.clear();
    watchdog = std::move(watchdog_);
  }
  watch_changed_.notify_all();
  if (watchdog.joinable()) watchdog.join();
}

std::function<std::string(const std::string&)> DeviceCclBackend::aborter() {
  // Weak: a Work (which may outlive its group) must not keep the backend alive.
  c10::weak_intrusive_ptr<DeviceCclBackend> weak(
      c10::intrusive_ptr<DeviceCclBackend>::unsafe_reclaim_from_nonowning(this));
  return [weak](const std::string& why) -> std::string {
    if (auto backend = weak.lock()) return backend->abort_communicator(why);
    return "the process group is gone";
  };
}

void DeviceCclBackend::watch(c10::intrusive_ptr<DeviceCclWork> work) {
  {
    const std::lock_guard<std::mutex> lock(watch_mutex_);
    if (watch_stopping_) return;
    watched_.emplace_back(std::chrono::steady_clock::now() + timeout_, std::move(work));
  }
  watch_changed_.notify_all();
}

void DeviceCclBackend::watchdog_loop() {
  constexpr auto kPoll = std::chrono::milliseconds(50);
  std::unique_lock<std::mutex> lock(watch_mutex_);
  while (!watch_stopping_) {
    watch_changed_.wait_for(lock, kPoll, [&] { return watch_stopping_; });
    if (watch_stopping_) break;
    std::string problem;
    try {
      while (!watched_.empty() && watched_.front().second->isCompleted()) watched_.pop_front();
      if (watched_.empty()) continue;
      {  // the library's asynchronous error (a peer failed)
        const std::lock_guard<std::mutex> abort_lock(abort_mutex_);
        tflStatus async_error = 0;
        const tflComm comm = comm_.load();
        if (comm != nullptr && library_.comm_async_error(comm, &async_error) == 0 && async_error != 0) {
          problem = std::string(library_.library) + " reported an asynchronous error: " +
                    library_.status_string(async_error);
        }
      }
      if (problem.empty() && std::chrono::steady_clock::now() >= watched_.front().first) {
        problem = "not complete after " + std::to_string(timeout_.count()) +
                  " ms (the group's timeout; a rank that never joined?)";
      }
    } catch (const std::exception& e) {  // a device error surfacing in an event query
      problem = std::string("the watchdog's query failed: ") + e.what();
    }
    if (problem.empty()) continue;
    lock.unlock();
    abort_communicator(problem);
    lock.lock();
  }
}

std::string DeviceCclBackend::description(const char* collective) const {
  return describe(collective, name_, getRank(), getSize());
}

tflComm DeviceCclBackend::communicator_locked(const c10::Device& device, const std::string& description) {
  TORCH_CHECK(!closed_, description, ": the process group has been shut down or aborted");
  if (const tflComm comm = comm_.load()) {
    TORCH_CHECK(*device_ == device, description, ": this rank's communicator is on ", device_->str(),
                "; a collective on ", device.str(), " needs a process group of its own (one device per rank)");
    return comm;
  }
  tflComm made = nullptr;
  const tflStatus status =
      library_.comm_init(unique_id_.data(), getSize(), getRank(), static_cast<int32_t>(device.index()), &made);
  if (status != 0) {
    C10_THROW_ERROR(DistBackendError, description + " failed: " + library_.library +
                                          " could not make the communicator on " + device.str() + ": " +
                                          library_.status_string(status));
  }
  if (closed_) {  // aborted while the ranks were meeting
    library_.comm_abort(made);
    C10_THROW_ERROR(DistBackendError, description + " failed: the process group was aborted");
  }
  device_ = device;
  // A stream of this group's own: another group's collectives (ordered
  // differently across ranks) must not queue behind this one's.
  const c10::impl::VirtualGuardImpl guard(device.type());
  stream_ = guard.getStreamFromGlobalPool(device, /*isHighPriority=*/true);
  comm_.store(made);
  return made;
}

std::string DeviceCclBackend::abort_communicator(const std::string& why) {
  bool aborted = false;
  {
    const std::lock_guard<std::mutex> abort_lock(abort_mutex_);
    closed_ = true;
    if (tflComm comm = comm_.exchange(nullptr)) {
      library_.comm_abort(comm);  // NCCL: callable while another thread is blocked in the communicator
      aborted = true;
    }
  }
  const std::string what = aborted ? "its communicator was aborted; make a new process group"
                                   : "the process group was already closed";
  fail_watched(why + "; " + what);
  return what;
}

void DeviceCclBackend::fail_watched(const std::string& why) {
  std::deque<std::pair<std::chrono::steady_clock::time_point, c10::intrusive_ptr<DeviceCclWork>>> failing;
  {
    const std::lock_guard<std::mutex> lock(watch_mutex_);
    failing.swap(watched_);
  }
  for (auto& entry : failing) {
    if (!entry.second->isCompleted()) entry.second->fail(named_error(entry.second->description(), why));
  }
}

void DeviceCclBackend::shutdown() {
  stop_watchdog();
  tflComm comm = nullptr;
  {
    const std::lock_guard<std::mutex> lock(mutex_);  // after a collective being enqueued
    closed_ = true;
    comm = comm_.exchange(nullptr);
  }
  if (comm != nullptr) library_.comm_destroy(comm);  // waits for its queued work, outside the lock
}

void DeviceCclBackend::abort() { abort_communicator("the process group was aborted"); }

void DeviceCclBackend::startCoalescing() {
  const std::lock_guard<std::mutex> lock(mutex_);
  TORCH_CHECK(!coalescing_, description("startCoalescing"), ": already coalescing");
  coalescing_ = true;
  group_open_ = false;
}

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::endCoalescing() {
  std::unique_lock<std::mutex> lock(mutex_);
  TORCH_CHECK(coalescing_, description("endCoalescing"), ": startCoalescing was not called");
  coalescing_ = false;
  auto works = std::move(coalesced_works_);
  auto outputs = std::move(coalesced_outputs_);
  coalesced_works_.clear();
  coalesced_outputs_.clear();
  auto tensors = std::move(coalesced_tensors_);
  coalesced_tensors_.clear();
  TORCH_CHECK(group_open_ && stream_.has_value(), description("endCoalescing"),
              ": no collective was called since startCoalescing");
  group_open_ = false;
  const tflStatus status = library_.group_end();
  std::string problem;
  if (status != 0) problem = std::string(library_.library) + " group_end: " + library_.status_string(status);
  if (closed_) problem = "the process group was aborted";
  if (!problem.empty()) {  // none of the group's Works will complete
    const std::string what = description("coalesced group") + " failed: " + problem;
    for (auto& work : works) work->fail(named_error(work->description(), problem));
    C10_THROW_ERROR(DistBackendError, what);
  }
  // The calls are enqueued now: the tensors may be freed (their blocks reused after the stream's work).
  for (const at::Tensor& t : tensors) {
    if (t.defined() && t.has_storage() && t.storage().data_ptr().get() != nullptr) {
      record_stream(t.storage().data_ptr(), *stream_);
    }
  }
  tensors.clear();
  // One event per Work (events are not shared), all after the group.
  std::vector<c10::Event> ends;
  for (size_t i = 0; i <= works.size(); ++i) {
    ends.emplace_back(stream_->device_type());
    ends.back().record(*stream_);
  }
  auto group_work = c10::make_intrusive<DeviceCclWork>(description("coalesced group"), getRank(),
                                                       c10d::OpType::COALESCED, interned(name_ + ":coalesced"),
                                                       *stream_, std::move(outputs), aborter(), timeout_, false);
  lock.unlock();
  for (size_t i = 0; i < works.size(); ++i) works[i]->issue(std::move(ends[i]));
  group_work->issue(std::move(ends.back()));
  watch(group_work);
  return group_work;
}

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
  std::vector<tflReduceOp> ops;
  for (const at::Tensor& t : tensors) ops.push_back(launch.reduce_op(opts.reduceOp, t.scalar_type()));
  launch.group([&] {
    for (size_t i = 0; i < tensors.size(); ++i) {
      const at::Tensor& t = tensors[i];
      launch.call(library_.all_reduce(t.data_ptr(), t.data_ptr(), count(t), launch.dtype(t), ops[i], launch.comm(),
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
  Launch launch(*this, "all_gather_into_tensor_coalesced", c10d::OpType::COALESCED, pointers({&outputs, &inputs}));
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

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::reduce_scatter_tensor_coalesced(
    std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs, const c10d::ReduceScatterOptions& opts) {
  Launch launch(*this, "reduce_scatter_tensor_coalesced", c10d::OpType::COALESCED, pointers({&outputs, &inputs}));
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

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::gather(std::vector<std::vector<at::Tensor>>& outputs,
                                                        std::vector<at::Tensor>& inputs,
                                                        const c10d::GatherOptions& opts) {
  const at::Tensor& input = only(inputs, "gather");
  const int root = static_cast<int>(opts.rootRank);
  std::vector<at::Tensor> gathered = getRank() == root && !outputs.empty() ? outputs[0] : std::vector<at::Tensor>{};
  Launch launch(*this, "gather", c10d::OpType::GATHER, pointers({&inputs, &gathered}));
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
    launch.call(library_.send(input.data_ptr(), count(input), launch.dtype(input), root, launch.comm(),
                              launch.stream()),
                "send");
    return launch.done({});
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
    launch.call(library_.recv(output.data_ptr(), count(output), launch.dtype(output), root, launch.comm(),
                              launch.stream()),
                "recv");
    return launch.done(outputs);
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
  Launch launch(*this, "all_to_all", c10d::OpType::ALLTOALL, pointers({&outputs, &inputs}));
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
  Launch launch(*this, "barrier", c10d::OpType::BARRIER, pointers({&token}));
  launch.not_in_a_group();
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
