// Compiled OpenCL programs, kept per process and on disk.
//
// Building even a small program takes PoCL about half a second, and every op's
// kernel is a program specialised by its dtypes: without a cache each new
// (op, dtypes) pair would stall its first call, in every process. The key is the
// source, the build options and the device (name, driver version), hashed; the
// on-disk copy is the program binary (CL_PROGRAM_BINARIES), which any OpenCL
// implementation can reload, in the directory ocl_cache_dir.h chose.
#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace torch_fl::ocl {

// A kernel object of the calling thread, borrowed from the cache. Kernel
// arguments are per-object state, so threads never share one; within a thread
// each launch sets every argument before queuing, and OpenCL takes their values
// at the enqueue, so one object per (program, name) serves all of that
// thread's launches and none is created per launch.
class Kernel {
 public:
  cl_kernel get() const { return kernel_; }
  // The kernel is handed out for the first time in the process: its first launch compiles (ocl_exit_drain.h).
  bool new_program() const { return new_program_; }
  // CL_KERNEL_WORK_GROUP_SIZE on its device: a launch's work-group is no larger.
  size_t work_group_limit() const { return work_group_limit_; }

 private:
  friend int32_t get_kernel(int32_t, const std::string&, const std::string&, const char*, Kernel*);
  cl_kernel kernel_ = nullptr;
  bool new_program_ = false;
  size_t work_group_limit_ = SIZE_MAX;
};

// `name` from the program of `source` built with `options` for `device`.
// CL_BUILD_PROGRAM_FAILURE carries the build log in its detail.
int32_t get_kernel(int32_t device, const std::string& source, const std::string& options, const char* name,
                   Kernel* kernel);

struct ProgramCacheStats {
  uint64_t memory_hits = 0;  // found built in this process
  uint64_t disk_hits = 0;    // loaded from a binary on disk
  uint64_t builds = 0;       // compiled from source
  double build_ms = 0;       // spent compiling from source
  double load_ms = 0;        // spent loading binaries from disk
};
ProgramCacheStats program_cache_stats();

}  // namespace torch_fl::ocl
