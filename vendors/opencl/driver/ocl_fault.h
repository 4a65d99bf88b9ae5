// A stream's fault record: how a kernel reports a bad index to the host.
//
// A kernel cannot raise. Where CPU ATen would throw (an index out of range in
// index_select or gather, a class out of range in nll_loss), the kernel reads 0
// instead of out of bounds and writes the fault into this small device buffer
// (kernels/ocl_indexing.cl, TFL_FAULT_ARGS). The first report since the last
// check wins. The stream checks the record when it synchronises, as CUDA
// reports a device-side assert at the next synchronisation, and every host
// read of device memory synchronises first, so `.item()` or `.cpu()` of a
// faulty result raises instead of returning a silent 0.
//
// Only launches that carry the record cost anything: a stream reads the
// record back only when such a launch was queued since its last check.
#pragma once

#include <CL/cl.h>

#include <array>
#include <cstdint>
#include <mutex>

#include "ocl_owner.h"

namespace torch_fl::ocl {

class FaultRecord : OwnsClObjects {
 public:
  explicit FaultRecord(cl_context context) : context_(context) {}
  ~FaultRecord();

  // For a launch about to be queued: the record's buffer and the launch's id
  // (its two last kernel arguments). `call` and `kernel` must be string
  // literals: they name the launch in the error, read at a later check.
  int32_t arm(const char* call, const char* kernel, cl_mem* buffer, cl_int* launch);
  // The armed launch is now queued (and tracked by its stream): the next check reads the record.
  void queued();

  // Whether an armed launch was queued since the last call. Taken before the
  // stream finishes its queue, so that a launch armed meanwhile stays armed.
  bool disarm();
  void rearm();  // a check that disarm() began could not read the record yet

  // After the stream's queue has finished the launches disarm() answered for:
  // kSuccess, or kKernelFault naming the first faulty launch, the bad value and
  // its bound (the record is then cleared, so a fault is reported once).
  int32_t read(cl_command_queue queue);

 private:
  struct Site {
    cl_int launch = 0;
    const char* call = nullptr;
    const char* kernel = nullptr;
  };
  // Names of recent armed launches by id; an older one's name is lost, not its fault.
  static constexpr size_t kSites = 1024;

  cl_context context_;
  std::mutex mutex_;  // a stream is used from any thread
  cl_mem buffer_ = nullptr;  // made at the first arm
  cl_int next_launch_ = 0;   // ids start at 1: 0 in the record means no fault
  bool armed_ = false;       // an armed launch was queued since the last disarm()
  std::array<Site, kSites> sites_{};
};

}  // namespace torch_fl::ocl
