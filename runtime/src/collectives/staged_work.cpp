#include "staged_work.h"

#include <ATen/core/jit_type.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <c10/util/Exception.h>

namespace torch_fl::collectives {
namespace {

std::vector<c10::Device> future_devices(const std::optional<c10::Device>& device) {
  if (!device) return {};
  return {*device};
}

}  // namespace

StagedWork::StagedWork(std::string description, int rank, c10d::OpType op_type, const char* profiling_title,
                       std::optional<c10::Device> device, std::vector<at::Tensor> outputs)
    : c10d::Work(rank, op_type, profiling_title),
      description_(std::move(description)),
      device_(device),
      outputs_(std::move(outputs)),
      future_(c10::make_intrusive<c10::ivalue::Future>(c10::ListType::create(c10::TensorType::get()),
                                                       future_devices(device))) {}

bool StagedWork::wait(std::chrono::milliseconds timeout) {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (timeout == kNoTimeout) {
      cv_.wait(lock, [&] { return completed_; });
    } else if (!cv_.wait_for(lock, timeout, [&] { return completed_; })) {
      C10_THROW_ERROR(DistBackendError, description_ + ": not complete after " + std::to_string(timeout.count()) +
                                            " ms (the timeout given to wait())");
    }
    if (exception_) std::rethrow_exception(exception_);
  }
  synchronize();
  return true;
}

void StagedWork::synchronize() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!copied_back_ || !device_) return;
  const c10::impl::VirtualGuardImpl guard(device_->type());
  copied_back_->block(guard.getStream(*device_));
}

void StagedWork::complete(std::optional<c10::Event> copied_back) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    copied_back_ = std::move(copied_back);
  }
  finish();
  // markCompleted runs the future's callbacks here; one that raises must not
  // take the completion thread (and every later collective) down with it.
  try {
    future_->markCompleted(c10::IValue(outputs_));
  } catch (const std::exception& e) {
    TORCH_WARN(description_, ": a callback on the collective's future raised: ", e.what());
  }
}

void StagedWork::fail(std::exception_ptr error) {
  finish(error);
  try {
    future_->setErrorIfNeeded(error);
  } catch (const std::exception& e) {
    TORCH_WARN(description_, ": a callback on the collective's future raised: ", e.what());
  }
}

}  // namespace torch_fl::collectives
