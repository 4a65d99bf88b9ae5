// OpenCL platform and device discovery: one platform, its devices, one context
// per device, and what each device reports about itself.
//
// TORCH_FL_OPENCL_PLATFORM picks the platform by index or by a case-insensitive
// part of its name or vendor ("pocl", "nvidia"); by default the first platform
// that has a device. TORCH_FL_OPENCL_MEMORY_MB caps every device below its
// reported global memory (PoCL does not enforce that size at all).
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ocl_svm.h"

namespace torch_fl::ocl {

struct Device {
  cl_device_id id = nullptr;
  cl_context context = nullptr;
  std::string name;            // CL_DEVICE_NAME
  std::string platform_name;   // CL_PLATFORM_NAME
  std::string version;         // CL_DEVICE_VERSION, e.g. "OpenCL 3.0 PoCL ..."
  std::string driver_version;  // CL_DRIVER_VERSION: part of the program cache's key
  int32_t major = 1, minor = 2;  // the OpenCL version the device supports
  uint64_t global_memory = 0;    // CL_DEVICE_GLOBAL_MEM_SIZE
  uint64_t max_allocation = 0;   // CL_DEVICE_MAX_MEM_ALLOC_SIZE
  uint64_t capacity = 0;         // what the driver lets be allocated: global memory, or the cap
  int32_t compute_units = 0;
  size_t work_group = 1;  // the launches' fixed work-group size (ocl_launch.cpp)
  bool svm = false;       // coarse-grain buffer SVM (ocl_svm.h)
  bool fp64 = false;   // cl_khr_fp64
  bool profiling = false;  // CL_QUEUE_PROFILING_ENABLE accepted
};

class Platform {
 public:
  // Discovers once per process. A failure (no writable cache, no such platform)
  // is kept and reported again by every call, with its detail.
  static int32_t get(Platform** platform);

  int32_t device_count() const { return static_cast<int32_t>(devices_.size()); }
  // kInvalidDevice (with a detail) for an index out of range.
  int32_t device(int32_t index, Device** device);
  const std::string& program_cache_dir() const { return program_cache_dir_; }
  // Where device memory comes from (ocl_svm.h): TORCH_FL_OPENCL_MEMORY, checked against every device.
  MemoryMode memory_mode() const { return memory_mode_; }

  ~Platform();

 private:
  Platform() = default;
  int32_t discover();

  std::vector<Device> devices_;
  std::string program_cache_dir_;
  MemoryMode memory_mode_ = MemoryMode::kBuffers;
};

// Every entry point of the driver checks this first: a process forked after
// the driver started has lost the platform's worker threads (PoCL's child hangs
// in its first kernel), so the child gets kBadFork instead of a hang.
int32_t check_not_forked();

}  // namespace torch_fl::ocl
