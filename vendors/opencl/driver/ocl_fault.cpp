#include "ocl_fault.h"

#include <string>

#include "ocl_status.h"

namespace torch_fl::ocl {
namespace {
// The record's layout, shared with tfl_fault() in kernels/ocl_indexing.cl:
// the faulty launch's id in the first 32 bits, then the value and its bound.
struct DeviceRecord {
  cl_int launch;  // 32 bits: a 32-bit atomic is core OpenCL, a 64-bit one an extension
  cl_int padding;
  cl_long value;
  cl_long bound;
};
}  // namespace

FaultRecord::~FaultRecord() {
  if (buffer_) clReleaseMemObject(buffer_);
}

int32_t FaultRecord::arm(const char* call, const char* kernel, cl_mem* buffer, cl_int* launch) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!buffer_) {
    DeviceRecord clear{0, 0, 0, 0};
    cl_int error = CL_SUCCESS;
    buffer_ = clCreateBuffer(context_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(clear), &clear, &error);
    if (error != CL_SUCCESS) {
      buffer_ = nullptr;
      return check_cl(error, "clCreateBuffer (the stream's fault record)");
    }
  }
  next_launch_ = next_launch_ == INT32_MAX ? 1 : next_launch_ + 1;
  sites_[static_cast<size_t>(next_launch_) % kSites] = Site{next_launch_, call, kernel};
  *buffer = buffer_;
  *launch = next_launch_;
  return kSuccess;
}

bool FaultRecord::disarm() {
  std::lock_guard<std::mutex> lock(mutex_);
  const bool armed = armed_;
  armed_ = false;
  return armed;
}

void FaultRecord::queued() {
  std::lock_guard<std::mutex> lock(mutex_);
  armed_ = true;
}

void FaultRecord::rearm() {
  std::lock_guard<std::mutex> lock(mutex_);
  armed_ = true;
}

int32_t FaultRecord::read(cl_command_queue queue) {
  std::lock_guard<std::mutex> lock(mutex_);
  DeviceRecord record{0, 0, 0, 0};
  if (const int32_t status = check_cl(clEnqueueReadBuffer(queue, buffer_, CL_TRUE, 0, sizeof(record), &record, 0,
                                                          nullptr, nullptr),
                                      "clEnqueueReadBuffer (the stream's fault record)")) {
    return status;
  }
  const cl_int launch = record.launch;
  if (launch == 0) return kSuccess;
  const DeviceRecord clear{0, 0, 0, 0};
  if (const int32_t status = check_cl(clEnqueueWriteBuffer(queue, buffer_, CL_TRUE, 0, sizeof(clear), &clear, 0,
                                                           nullptr, nullptr),
                                      "clEnqueueWriteBuffer (the stream's fault record)")) {
    return status;
  }
  const Site& site = sites_[static_cast<size_t>(launch) % kSites];
  const std::string who = site.launch == launch
                              ? std::string(site.call) + " (kernel " + site.kernel + ")"
                              : std::string("a kernel queued earlier");
  return fail(kKernelFault, who + ": index " + std::to_string(record.value) + " is out of bounds for size " +
                                std::to_string(record.bound) + " (the kernel read 0 there; later results may be wrong)");
}

}  // namespace torch_fl::ocl
