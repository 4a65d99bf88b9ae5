// The directories where compiled OpenCL programs are kept across processes:
// ours (program binaries, keyed by source and build options) and PoCL's own.
//
// PoCL answers an unwritable cache directory with CL_DEVICE_NOT_FOUND and no
// message, so the driver checks both before the first OpenCL call and says
// which directory and which variable are at fault.
#pragma once

#include <cstdint>
#include <string>

namespace torch_fl::ocl {

// Chooses and creates the program cache directory (TORCH_FL_OPENCL_CACHE_DIR,
// else the build tree's, else ~/.cache/torch_fl/opencl), points POCL_CACHE_DIR
// under it unless the user set one, and checks that each is writable.
// kConfiguration with a detail naming the directory when one is not.
int32_t prepare_cache_dirs(std::string* program_dir);

// Whether a file can be created in `dir` (created first, with its parents).
// Permission bits alone would not tell: root ignores them, a read-only mount does not.
bool is_writable_dir(const std::string& dir, std::string* why);

}  // namespace torch_fl::ocl
