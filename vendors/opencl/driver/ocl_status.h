// The OpenCL driver's status codes and its per-thread detail on the last failure.
//
// A status is OpenCL's own cl_int where an OpenCL call failed (the ICD and the
// platform speak those), or one of the codes below for what the driver detects
// itself. Ours lie far below OpenCL's range and its extensions' (down to about
// -1100), so one int32 says both who failed and why.
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <string>

namespace torch_fl::ocl {

enum DriverStatus : int32_t {
  kSuccess = CL_SUCCESS,
  kOutOfMemory = -20001,     // past the device's capacity cap or its largest single allocation
  kInvalidAddress = -20002,  // not inside an allocation of this driver
  kBadFork = -20003,         // used in a process forked after initialisation
  kConfiguration = -20004,   // the platform choice or a cache directory is unusable
  kNotSupported = -20005,    // the device cannot do this (e.g. float64 without cl_khr_fp64)
  kInvalidDevice = -20006,
  kKernelFault = -20007,     // a kernel found a bad index (ocl_fault.h)
};

// "CL_OUT_OF_RESOURCES", "TORCH_FL_OCL_OUT_OF_MEMORY", ...
const char* status_name(int32_t status);

// What the last failure on this thread was about (empty if none).
const char* last_detail();

// Records `detail` as this thread's last failure and returns `status`.
int32_t fail(int32_t status, std::string detail);

// CL_SUCCESS, or fail(error, "<call>: <name>").
int32_t check_cl(cl_int error, const char* call);

}  // namespace torch_fl::ocl
