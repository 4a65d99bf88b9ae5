#include "ocl_program_cache.h"

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <unordered_map>
#include <utility>
#include <mutex>
#include <sstream>
#include <vector>

#include "ocl_platform.h"
#include "ocl_status.h"

namespace torch_fl::ocl {
namespace {

// A program in memory, found again by comparing what built it: a lookup per
// launch must not hash the whole source byte by byte (the disk key does).
struct Program {
  int32_t device;
  std::string options;
  std::string source;
  cl_program program;
};

struct Cache {
  std::mutex mutex;  // guards programs and stats; builds run under it (one build per key)
  std::unordered_multimap<size_t, Program> programs;  // by fingerprint(); kept for the process
  std::set<std::pair<cl_program, std::string>> launched;  // kernels handed out at least once
  ProgramCacheStats stats;
};

size_t fingerprint(int32_t device, const std::string& options, const std::string& source) {
  const std::hash<std::string> hash;  // libstdc++'s is word-at-a-time
  return hash(source) ^ (hash(options) * 31) ^ (static_cast<size_t>(device) * 0x9e3779b97f4a7c15ull);
}

// This thread's kernel objects, by program and name (see Kernel).
struct ThreadKernels {
  struct Entry {
    cl_kernel kernel = nullptr;
    size_t work_group_limit = SIZE_MAX;  // CL_KERNEL_WORK_GROUP_SIZE
  };
  std::map<std::pair<cl_program, std::string>, Entry> kernels;
  ~ThreadKernels() {
    // A forked child's PoCL may hold its parent's locks: leave the kernels to the exit.
    if (check_not_forked() != kSuccess) return;
    for (auto& entry : kernels) clReleaseKernel(entry.second.kernel);  // queued launches keep theirs alive
  }
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
  Cache& programs = cache();
  cl_program program = nullptr;
  bool new_program = false;
  {
    std::lock_guard<std::mutex> lock(programs.mutex);
    const size_t print = fingerprint(index, options, source);
    const auto candidates = programs.programs.equal_range(print);
    for (auto it = candidates.first; it != candidates.second; ++it) {
      const Program& known = it->second;
      if (known.device == index && known.options == options && known.source == source) {
        program = known.program;
        break;
      }
    }
    if (program) {
      ++programs.stats.memory_hits;
    } else {
      const std::string key =
          hash_key(device->name + '\n' + device->driver_version + '\n' + options + '\n' + source);
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
      programs.programs.emplace(print, Program{index, options, source, program});
    }
    // A program's kernels compile each at their own first launch (a pooling
    // program holds six): that launch runs synchronously (ocl_exit_drain.h).
    new_program = programs.launched.emplace(program, std::string(name)).second;
  }
  thread_local ThreadKernels mine;
  auto [slot, inserted] = mine.kernels.try_emplace(std::make_pair(program, std::string(name)));
  if (inserted) {
    cl_int error = CL_SUCCESS;
    slot->second.kernel = clCreateKernel(program, name, &error);
    if (error != CL_SUCCESS) {
      mine.kernels.erase(slot);
      return fail(error, std::string("clCreateKernel '") + name + "': " + status_name(error));
    }
    // A GPU may allow a register-heavy kernel fewer work-items than the device's maximum.
    size_t limit = 0;
    if (clGetKernelWorkGroupInfo(slot->second.kernel, device->id, CL_KERNEL_WORK_GROUP_SIZE, sizeof(limit), &limit,
                                 nullptr) == CL_SUCCESS && limit > 0) {
      slot->second.work_group_limit = limit;
    }
  }
  kernel->kernel_ = slot->second.kernel;
  kernel->work_group_limit_ = slot->second.work_group_limit;
  kernel->new_program_ = new_program;
  return kSuccess;
}

ProgramCacheStats program_cache_stats() {
  std::lock_guard<std::mutex> lock(cache().mutex);
  return cache().stats;
}

}  // namespace torch_fl::ocl
