#include "ocl_program_cache.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <sstream>
#include <vector>

#include "ocl_platform.h"
#include "ocl_status.h"

namespace torch_fl::ocl {
namespace {

struct Cache {
  std::mutex mutex;  // guards programs and stats; builds run under it (one build per key)
  std::map<std::string, cl_program> programs;  // by key; kept for the process
  ProgramCacheStats stats;
};

Cache& cache() {
  static auto* instance = new Cache();  // never destroyed: programs outlive static destructors' users
  return *instance;
}

// FNV-1a, 64 bits: a file name, not a security boundary (a collision would need
// two different sources of one build; the program then fails to find a kernel).
std::string hash_key(const std::string& text) {
  uint64_t hash = 1469598103934665603ull;
  for (unsigned char c : text) hash = (hash ^ c) * 1099511628211ull;
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(hash));
  return hex;
}

std::string build_log(cl_program program, cl_device_id device) {
  size_t size = 0;
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
  std::string log(size, '\0');
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
  return log;
}

cl_program load_binary(const Device& device, const std::string& path, const std::string& options) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return nullptr;
  const std::vector<unsigned char> binary((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const unsigned char* data = binary.data();
  const size_t size = binary.size();
  cl_int binary_status = CL_SUCCESS, error = CL_SUCCESS;
  cl_program program = clCreateProgramWithBinary(device.context, 1, &device.id, &size, &data, &binary_status, &error);
  if (error != CL_SUCCESS || binary_status != CL_SUCCESS) return nullptr;
  if (clBuildProgram(program, 1, &device.id, options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
    clReleaseProgram(program);  // a stale or foreign binary: rebuilt from source
    return nullptr;
  }
  return program;
}

// Written to a temporary name and renamed: a concurrent reader sees all or nothing.
void save_binary(cl_program program, const std::string& path) {
  size_t size = 0;
  if (clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, nullptr) != CL_SUCCESS || size == 0) return;
  std::vector<unsigned char> binary(size);
  unsigned char* data = binary.data();
  if (clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof(data), &data, nullptr) != CL_SUCCESS) return;
  const std::string temporary = path + ".tmp" + std::to_string(getpid());
  {
    std::ofstream file(temporary, std::ios::binary);
    file.write(reinterpret_cast<const char*>(binary.data()), static_cast<std::streamsize>(size));
    if (!file) return;
  }
  std::rename(temporary.c_str(), path.c_str());
}

int32_t build(const Device& device, const std::string& source, const std::string& options, const std::string& path,
              cl_program* built) {
  const char* text = source.c_str();
  cl_int error = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(device.context, 1, &text, nullptr, &error);
  if (const int32_t status = check_cl(error, "clCreateProgramWithSource")) return status;
  error = clBuildProgram(program, 1, &device.id, options.c_str(), nullptr, nullptr);
  if (error != CL_SUCCESS) {
    const std::string log = build_log(program, device.id);
    clReleaseProgram(program);
    return fail(error, std::string("clBuildProgram (options '") + options + "'): " + status_name(error) + "\n" + log);
  }
  save_binary(program, path);
  *built = program;
  return kSuccess;
}

}  // namespace

int32_t get_kernel(int32_t index, const std::string& source, const std::string& options, const char* name,
                   Kernel* kernel) {
  Platform* platform = nullptr;
  Device* device = nullptr;
  if (const int32_t status = Platform::get(&platform)) return status;
  if (const int32_t status = platform->device(index, &device)) return status;
  const std::string key =
      hash_key(device->name + '\n' + device->driver_version + '\n' + options + '\n' + source);
  Cache& programs = cache();
  cl_program program = nullptr;
  bool new_program = false;
  {
    std::lock_guard<std::mutex> lock(programs.mutex);
    const std::string memory_key = std::to_string(index) + ':' + key;
    auto found = programs.programs.find(memory_key);
    if (found != programs.programs.end()) {
      program = found->second;
      ++programs.stats.memory_hits;
    } else {
      const std::string path = platform->program_cache_dir() + "/" + key + ".clbin";
      const auto started = std::chrono::steady_clock::now();
      const auto elapsed_ms = [&] {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
      };
      program = load_binary(*device, path, options);
      if (program) {
        ++programs.stats.disk_hits;
        programs.stats.load_ms += elapsed_ms();
      } else {
        if (const int32_t status = build(*device, source, options, path, &program)) return status;
        ++programs.stats.builds;
        programs.stats.build_ms += elapsed_ms();
      }
      programs.programs[memory_key] = program;
      new_program = true;
    }
  }
  cl_int error = CL_SUCCESS;
  cl_kernel made = clCreateKernel(program, name, &error);
  if (error != CL_SUCCESS) return fail(error, std::string("clCreateKernel '") + name + "': " + status_name(error));
  *kernel = Kernel(made);
  if (new_program) kernel->set_new_program();
  return kSuccess;
}

ProgramCacheStats program_cache_stats() {
  std::lock_guard<std::mutex> lock(cache().mutex);
  return cache().stats;
}

}  // namespace torch_fl::ocl
