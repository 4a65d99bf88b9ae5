#include "ocl_cache_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "ocl_status.h"

#ifndef TORCH_FL_OPENCL_BUILD_CACHE
#define TORCH_FL_OPENCL_BUILD_CACHE ""
#endif

namespace torch_fl::ocl {
namespace {

bool make_dirs(const std::string& dir, std::string* why) {
  for (size_t slash = dir.find('/', 1);; slash = dir.find('/', slash + 1)) {
    const std::string prefix = slash == std::string::npos ? dir : dir.substr(0, slash);
    if (!prefix.empty() && mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) {
      *why = "cannot create " + prefix + ": " + std::strerror(errno);
      return false;
    }
    if (slash == std::string::npos) return true;
  }
}

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

}  // namespace

bool is_writable_dir(const std::string& dir, std::string* why) {
  if (!make_dirs(dir, why)) return false;
  std::string probe = dir + "/.write_probe_XXXXXX";
  std::vector<char> path(probe.begin(), probe.end());
  path.push_back('\0');
  const int fd = mkstemp(path.data());
  if (fd < 0) {
    *why = "cannot create a file in " + dir + ": " + std::strerror(errno);
    return false;
  }
  close(fd);
  unlink(path.data());
  return true;
}

int32_t prepare_cache_dirs(std::string* program_dir) {
  std::string why;
  const std::string chosen = env("TORCH_FL_OPENCL_CACHE_DIR");
  if (!chosen.empty()) {
    if (!is_writable_dir(chosen, &why)) {
      return fail(kConfiguration, "the OpenCL program cache TORCH_FL_OPENCL_CACHE_DIR=" + chosen +
                                      " is not writable (" + why + "); point it at a writable directory");
    }
    *program_dir = chosen;
  } else {
    // The build tree's when the library runs from it; a user's cache when installed.
    std::vector<std::string> candidates;
    if (*TORCH_FL_OPENCL_BUILD_CACHE) candidates.emplace_back(TORCH_FL_OPENCL_BUILD_CACHE);
    if (!env("XDG_CACHE_HOME").empty()) candidates.push_back(env("XDG_CACHE_HOME") + "/torch_fl/opencl");
    if (!env("HOME").empty()) candidates.push_back(env("HOME") + "/.cache/torch_fl/opencl");
    std::string reasons;
    for (const std::string& dir : candidates) {
      if (is_writable_dir(dir, &why)) {
        *program_dir = dir;
        break;
      }
      reasons += (reasons.empty() ? "" : "; ") + why;
    }
    if (program_dir->empty()) {
      return fail(kConfiguration, "no writable directory for the OpenCL program cache (" + reasons +
                                      "); set TORCH_FL_OPENCL_CACHE_DIR to one");
    }
  }
  const std::string pocl = env("POCL_CACHE_DIR");
  if (pocl.empty()) {
    // Before the first OpenCL call, while no other thread of ours reads the
    // environment: PoCL reads the variable when the ICD loader starts it.
    const std::string ours = *program_dir + "/pocl";
    if (!is_writable_dir(ours, &why)) return fail(kConfiguration, "PoCL's kernel cache " + ours + ": " + why);
    setenv("POCL_CACHE_DIR", ours.c_str(), 0);
  } else if (!is_writable_dir(pocl, &why)) {
    return fail(kConfiguration, "PoCL's kernel cache POCL_CACHE_DIR=" + pocl + " is not writable (" + why +
                                    "); PoCL would report no devices (CL_DEVICE_NOT_FOUND). Unset it or make it writable");
  }
  return kSuccess;
}

}  // namespace torch_fl::ocl
