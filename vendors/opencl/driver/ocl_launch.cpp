#include "ocl_launch.h"

#include <algorithm>

#include "ocl_exit_drain.h"
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

Launch& Launch::fault_record(const char* call) {
  cl_mem record = nullptr;
  cl_int launch = 0;
  if (status_ == kSuccess) status_ = stream_.faults().arm(call, name_, &record, &launch);
  armed_ = status_ == kSuccess;
  return buffer(record).value(launch);
}

int32_t Launch::run(uint64_t items) {
  if (status_ != kSuccess) return status_;
  if (items == 0) return kSuccess;
  // One work-group size for every launch: PoCL compiles a kernel once per
  // work-group size, and one it picked itself would follow the item count.
  // Kernels loop with TFL_FOR_EACH, so the items past `items` do nothing.
  const size_t group = std::min(stream_.work_group(), kernel_.work_group_limit());
  const size_t global = (static_cast<size_t>(std::min(items, kMaxItems)) + group - 1) / group * group;
  cl_event event = nullptr;
  const cl_int error = clEnqueueNDRangeKernel(stream_.queue(), kernel_.get(), 1, nullptr, &global, &group, 0,
                                              nullptr, &event);
  if (error != CL_SUCCESS) return fail(error, std::string("clEnqueueNDRangeKernel ") + name_ + ": " + status_name(error));
  if (kernel_.new_program()) finish_compiling_launch(event);  // before track(): the event is still ours alone
  stream_.track(event);
  if (armed_) stream_.faults().queued();  // after track(): a query that sees it armed waits for this launch
  return kSuccess;
}

}  // namespace torch_fl::ocl
