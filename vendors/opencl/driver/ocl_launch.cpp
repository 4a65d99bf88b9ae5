#include "ocl_launch.h"

#include <algorithm>

#include "ocl_status.h"

namespace torch_fl::ocl {
namespace {
// Enough items to fill any device; more would only add scheduling overhead.
constexpr uint64_t kMaxItems = uint64_t{1} << 20;
}  // namespace

Launch::Launch(Stream& stream, const std::string& source, const std::string& options, const char* name)
    : stream_(stream), name_(name) {
  status_ = get_kernel(stream.device(), source, options, name, &kernel_);
}

Launch& Launch::set(size_t size, const void* argument) {
  if (status_ == kSuccess) {
    const cl_int error = clSetKernelArg(kernel_.get(), next_, size, argument);
    if (error != CL_SUCCESS) {
      status_ = fail(error, std::string("clSetKernelArg ") + std::to_string(next_) + " of " + name_ + ": " +
                                status_name(error));
    }
  }
  ++next_;
  return *this;
}

int32_t Launch::run(uint64_t items) {
  if (status_ != kSuccess) return status_;
  if (items == 0) return kSuccess;
  const size_t global = static_cast<size_t>(std::min(items, kMaxItems));
  cl_event event = nullptr;
  const cl_int error = clEnqueueNDRangeKernel(stream_.queue(), kernel_.get(), 1, nullptr, &global, nullptr, 0,
                                              nullptr, &event);
  if (error != CL_SUCCESS) return fail(error, std::string("clEnqueueNDRangeKernel ") + name_ + ": " + status_name(error));
  stream_.track(event);
  return kSuccess;
}

}  // namespace torch_fl::ocl
