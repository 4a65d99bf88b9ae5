#include "device_ccl_launch.h"

#include <c10/core/Event.h>
#include <ATen/ATen.h>

#include "allocator.h"
#include "driver.h"
#include <torch_fl/private_format.h>
#include <torch_fl/stream.h>

#include "common.h"
#include "device_ccl_work.h"

namespace torch_fl::collectives {

void keep_until_run(const std::vector<at::Tensor>& tensors, const c10::Stream& stream) {
  for (const at::Tensor& t : tensors) {
    if (t.defined() && t.has_storage() && t.storage().data_ptr().get() != nullptr) {
      record_stream(t.storage().data_ptr(), stream);
    }
  }
}

DeviceCclBackend::Launch::Launch(DeviceCclBackend& backend, const char* collective, c10d::OpType type,
                                 const std::vector<const at::Tensor*>& tensors)
    : CollectiveSetup(backend, collective, type, Takes::kDeviceTensors), backend_(backend) {
  for (const at::Tensor* t : tensors) {
    check(*t);
    ensure_public(*t);  // the library reads and writes the public layout
  }
  if (!device()) refuse("got no tensors");
  lock_ = std::unique_lock<std::mutex>(backend_.mutex_);
  comm_ = backend_.communicator_locked(*device(), description());
  stream_ = *backend_.stream_;
  if (backend_.coalescing_ && !backend_.group_open_) {
    call(library().group_start(), "group_start");
    backend_.group_open_ = true;
  }
  // The library reads what the caller's stream has written so far.
  wait_for_current_stream(*device(), *stream_);
  for (const at::Tensor* t : tensors) used_.push_back(*t);
}

tflStream DeviceCclBackend::Launch::stream() const { return driver_stream(*stream_); }

tflDtype DeviceCclBackend::Launch::dtype(const at::Tensor& t) const { return driver_dtype(t.scalar_type()); }

tflReduceOp DeviceCclBackend::Launch::reduce_op(const c10d::ReduceOp& op, c10::ScalarType dtype) const {
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

void DeviceCclBackend::Launch::same_dtype(const at::Tensor& a, const at::Tensor& b) const {
  if (a.scalar_type() != b.scalar_type()) {
    refuse("inputs and outputs must share one dtype, got " + dtype_name(a.scalar_type()) + " and " +
           dtype_name(b.scalar_type()));
  }
}

void DeviceCclBackend::Launch::call(tflStatus status, const char* what) const {
  if (status != 0) {
    C10_THROW_ERROR(DistBackendError, description() + " failed: " + library().library + " " + what + ": " +
                                          library().status_string(status));
  }
  // Aborted from another thread meanwhile: the communicator is gone.
  if (backend_.closed_) C10_THROW_ERROR(DistBackendError, description() + " failed: the process group was aborted");
}

void DeviceCclBackend::Launch::send(const at::Tensor& t, int peer, int64_t first, int64_t elements) const {
  call(library().send(address(t, first), static_cast<size_t>(elements), dtype(t), peer, comm_, stream()), "send");
}

void DeviceCclBackend::Launch::recv(const at::Tensor& t, int peer, int64_t first, int64_t elements) const {
  call(library().recv(address(t, first), static_cast<size_t>(elements), dtype(t), peer, comm_, stream()), "recv");
}

void DeviceCclBackend::Launch::not_in_a_group() const {
  if (backend_.coalescing_) refuse("cannot run between startCoalescing and endCoalescing");
}

at::Tensor DeviceCclBackend::Launch::source(const at::Tensor& input, const at::Tensor& output,
                                            std::optional<int64_t> in_place_at) {
  if (!input.is_alias_of(output)) return input;
  if (in_place_at && input.data_ptr() == address(output, *in_place_at)) return input;
  at::Tensor copy;
  on_stream([&] { copy = input.clone(); });
  return use(copy);
}

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::Launch::done(std::vector<at::Tensor> outputs, bool host_blocking) {
  keep_until_run(used_, *stream_);
  auto work = c10::make_intrusive<DeviceCclWork>(description(), rank(), type_, profiling_title(), *stream_, outputs,
                                                 backend_.aborter(), backend_.timeout_, host_blocking);
  if (backend_.coalescing_) {  // issued when the group ends; its tensors kept till then
    backend_.coalesced_works_.push_back(work);
    backend_.coalesced_outputs_.insert(backend_.coalesced_outputs_.end(), outputs.begin(), outputs.end());
    backend_.coalesced_tensors_.insert(backend_.coalesced_tensors_.end(), used_.begin(), used_.end());
    return work;
  }
  c10::Event end(device()->type());
  end.record(*stream_);
  lock_.unlock();  // the future's callbacks may start collectives
  work->issue(std::move(end));
  backend_.watch(work);
  return work;
}

}  // namespace torch_fl::collectives
