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

#include <cstdint>
#include <string>

namespace torch_fl::ocl {

// A kernel the caller owns. cl_kernel arguments are per object state, so each
// launch takes its own kernel from the cached program (cheap) instead of
// sharing one between threads.
class Kernel {
 public:
  Kernel() = default;
  explicit Kernel(cl_kernel kernel) : kernel_(kernel) {}
  ~Kernel() {
    if (kernel_) clReleaseKernel(kernel_);
  }
  Kernel(Kernel&& other) noexcept : kernel_(other.kernel_), new_program_(other.new_program_) {
    other.kernel_ = nullptr;
  }
  Kernel& operator=(Kernel&& other) noexcept {
    std::swap(kernel_, other.kernel_);
    std::swap(new_program_, other.new_program_);
    return *this;
  }
  cl_kernel get() const { return kernel_; }
  // Its program was built or loaded for this kernel: its first launch compiles (ocl_exit_drain.h).
  bool new_program() const { return new_program_; }
  void set_new_program() { new_program_ = true; }

 private:
  cl_kernel kernel_ = nullptr;
  bool new_program_ = false;
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
