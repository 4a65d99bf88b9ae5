#include "device_ccl_work.h"

#include <algorithm>
#include <thread>

#include <ATen/core/jit_type.h>
#include <c10/core/StreamGuard.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <c10/util/Exception.h>

namespace torch_fl::collectives {

DeviceCclWork::DeviceCclWork(std::string description, int rank, c10d::OpType op_type, const char* profiling_title,
                             c10::Stream collective_stream, std::vector<at::Tensor> outputs,
                             std::function<std::string(const std::string&)> on_timeout,
                             std::chrono::milliseconds default_timeout,
                             bool host_blocking)
    : c10d::Work(rank, op_type, profiling_title),
      description_(std::move(description)),
      stream_(collective_stream),
      outputs_(std::move(outputs)),
      on_timeout_(std::move(on_timeout)),
      default_timeout_(default_timeout),
      host_blocking_(host_blocking),
      future_(c10::make_intrusive<c10::ivalue::Future>(c10::ListType::create(c10::TensorType::get()),
                                                       std::vector<c10::Device>{collective_stream.device()})) {}

void DeviceCclWork::issue(c10::Event done) {
  {
    const std::lock_guard<std::mutex> lock(issue_mutex_);
    done_ = std::move(done);
  }
  // With the collective stream current: the future records its own event there,
  // and whoever uses its value (DDP's reducer, then()) has its stream wait for it,
  // as for a CUDA future. Its callbacks run here; one that raises must not be
  // taken for the collective's failure.
  const c10::StreamGuard on_collective_stream(stream_);
  try {
    future_->markCompleted(c10::IValue(outputs_));
  } catch (const std::exception& e) {
    TORCH_WARN(description_, ": a callback on the collective's future raised: ", e.what());
  }
}

void DeviceCclWork::fail(std::exception_ptr error) {
  const std::lock_guard<std::mutex> lock(issue_mutex_);
  if (!error_) error_ = std::move(error);
}

bool DeviceCclWork::failed() {
  const std::lock_guard<std::mutex> lock(issue_mutex_);
  return error_ != nullptr;
}

bool DeviceCclWork::isSuccess() const {
  const std::lock_guard<std::mutex> lock(issue_mutex_);
  return error_ == nullptr;
}

c10::Event& DeviceCclWork::issued_event() {
  const std::lock_guard<std::mutex> lock(issue_mutex_);
  if (error_) std::rethrow_exception(error_);
  TORCH_CHECK(done_.has_value(), description_,
              ": is part of a coalesced group that has not ended (wait for the Work endCoalescing returns)");
  return *done_;
}

bool DeviceCclWork::isCompleted() {
  const std::lock_guard<std::mutex> lock(issue_mutex_);
  if (error_) return true;
  return done_ && done_->query();
}

void DeviceCclWork::block_host(std::chrono::milliseconds timeout) {
  c10::Event& done = issued_event();
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto pause = std::chrono::microseconds(20);
  while (!done.query()) {
    if (failed()) issued_event();  // the watchdog gave up on it: raises its error
    if (std::chrono::steady_clock::now() >= deadline) {
      const std::string why =
          "not complete after " + std::to_string(timeout.count()) + " ms (a rank that never joined?)";
      const std::string aborted = on_timeout_(why);
      C10_THROW_ERROR(DistBackendError, description_ + " failed: " + why + "; " + aborted);
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(1000));
  }
}

bool DeviceCclWork::wait(std::chrono::milliseconds timeout) {
  if (timeout != kNoTimeout) {
    block_host(timeout);
  } else if (host_blocking_) {
    block_host(default_timeout_);
  }
  synchronize();
  return true;
}

void DeviceCclWork::synchronize() {
  c10::Event& done = issued_event();
  const c10::impl::VirtualGuardImpl guard(stream_.device_type());
  done.block(guard.getStream(stream_.device()));
}

}  // namespace torch_fl::collectives
