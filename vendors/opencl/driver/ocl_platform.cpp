#include "ocl_platform.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <mutex>

#include "ocl_cache_dir.h"
#include "ocl_status.h"

namespace torch_fl::ocl {
namespace {

// Set once discovery has started OpenCL, read by the fork handler in the child
// (which runs single-threaded): atomics suffice.
std::atomic<bool> g_started{false};
std::atomic<bool> g_forked{false};

const bool fork_handler_installed = [] {
  pthread_atfork(nullptr, nullptr, [] {
    if (g_started.load()) g_forked.store(true);
  });
  return true;
}();

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

// A string property of a platform or a device (clGetPlatformInfo, clGetDeviceInfo).
template <typename Object, typename Info>
std::string info_string(cl_int (*query)(Object, Info, size_t, void*, size_t*), Object object, Info what) {
  size_t size = 0;
  if (query(object, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string text(size, '\0');
  query(object, what, size, text.data(), nullptr);
  text.resize(text.find('\0') == std::string::npos ? size : text.find('\0'));
  return text;
}

std::string platform_info(cl_platform_id platform, cl_platform_info what) {
  return info_string(clGetPlatformInfo, platform, what);
}

std::string device_string(cl_device_id device, cl_device_info what) { return info_string(clGetDeviceInfo, device, what); }

template <typename T>
T device_value(cl_device_id device, cl_device_info what) {
  T value{};
  clGetDeviceInfo(device, what, sizeof(value), &value, nullptr);
  return value;
}

uint64_t capacity_cap() {
  const char* text = std::getenv("TORCH_FL_OPENCL_MEMORY_MB");
  if (!text || !*text) return UINT64_MAX;
  return std::strtoull(text, nullptr, 10) << 20;
}

// TORCH_FL_OPENCL_PLATFORM: an index, or a part of the name or vendor.
int32_t choose_platform(const std::vector<cl_platform_id>& platforms, cl_platform_id* chosen) {
  const char* wanted = std::getenv("TORCH_FL_OPENCL_PLATFORM");
  std::string listing;
  for (size_t i = 0; i < platforms.size(); ++i) {
    const std::string name = platform_info(platforms[i], CL_PLATFORM_NAME);
    const std::string vendor = platform_info(platforms[i], CL_PLATFORM_VENDOR);
    listing += (i ? ", " : "") + std::to_string(i) + ": " + name + " (" + vendor + ")";
    if (wanted && *wanted) {
      const std::string key = lower(wanted);
      if (key == std::to_string(i) || lower(name).find(key) != std::string::npos ||
          lower(vendor).find(key) != std::string::npos) {
        *chosen = platforms[i];
        return kSuccess;
      }
    } else {
      cl_uint devices = 0;
      if (clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_ALL, 0, nullptr, &devices) == CL_SUCCESS && devices > 0) {
        *chosen = platforms[i];
        return kSuccess;
      }
    }
  }
  if (wanted && *wanted) {
    return fail(kConfiguration, std::string("TORCH_FL_OPENCL_PLATFORM=") + wanted +
                                    " matches no OpenCL platform; the platforms are " + listing);
  }
  *chosen = nullptr;  // platforms without devices: zero devices, not a failure
  return kSuccess;
}

}  // namespace

int32_t check_not_forked() {
  if (!g_forked.load(std::memory_order_relaxed)) return kSuccess;
  return fail(kBadFork, "the OpenCL driver cannot be used in a process forked after it was initialised "
                        "(the platform's worker threads do not survive fork); use the 'spawn' start method");
}

int32_t Platform::get(Platform** platform) {
  if (const int32_t status = check_not_forked()) return status;
  // Discovery runs once; its failure is kept with its detail and re-reported.
  static std::once_flag once;
  static Platform* instance = nullptr;  // lives for the process: contexts outlive static destructors' users
  static int32_t status = kSuccess;
  static std::string detail;
  std::call_once(once, [] {
    instance = new Platform();
    status = instance->discover();
    if (status != kSuccess) detail = last_detail();
  });
  if (status != kSuccess) return fail(status, detail);
  *platform = instance;
  return kSuccess;
}

int32_t Platform::discover() {
  if (const int32_t status = prepare_cache_dirs(&program_cache_dir_)) return status;
  if (const int32_t status = memory_mode_from_environment(&memory_mode_)) return status;
  g_started.store(true);
  cl_uint count = 0;
  cl_int error = clGetPlatformIDs(0, nullptr, &count);
  if (error == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (error == CL_SUCCESS && count == 0)) return kSuccess;
  if (error != CL_SUCCESS) return check_cl(error, "clGetPlatformIDs");
  std::vector<cl_platform_id> platforms(count);
  if (const int32_t status = check_cl(clGetPlatformIDs(count, platforms.data(), nullptr), "clGetPlatformIDs")) return status;
  cl_platform_id platform = nullptr;
  if (const int32_t status = choose_platform(platforms, &platform)) return status;
  if (!platform) return kSuccess;

  cl_uint device_count = 0;
  error = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &device_count);
  if (error == CL_DEVICE_NOT_FOUND) return kSuccess;
  if (error != CL_SUCCESS) return check_cl(error, "clGetDeviceIDs");
  std::vector<cl_device_id> ids(device_count);
  if (const int32_t status = check_cl(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, device_count, ids.data(), nullptr),
                                      "clGetDeviceIDs")) {
    return status;
  }
  const uint64_t cap = capacity_cap();
  for (cl_device_id id : ids) {
    Device device;
    device.id = id;
    device.platform_name = platform_info(platform, CL_PLATFORM_NAME);
    device.name = device_string(id, CL_DEVICE_NAME);
    device.version = device_string(id, CL_DEVICE_VERSION);
    device.driver_version = device_string(id, CL_DRIVER_VERSION);
    // "OpenCL <major>.<minor> <vendor-specific>"
    if (device.version.size() > 10) {
      device.major = std::atoi(device.version.c_str() + 7);
      device.minor = std::atoi(device.version.c_str() + device.version.find('.') + 1);
    }
    device.global_memory = device_value<cl_ulong>(id, CL_DEVICE_GLOBAL_MEM_SIZE);
    device.max_allocation = device_value<cl_ulong>(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    device.capacity = std::min<uint64_t>(device.global_memory, cap);
    device.compute_units = static_cast<int32_t>(device_value<cl_uint>(id, CL_DEVICE_MAX_COMPUTE_UNITS));
    device.work_group = std::min<size_t>(64, std::max<size_t>(1, device_value<size_t>(id, CL_DEVICE_MAX_WORK_GROUP_SIZE)));
    // TORCH_FL_OPENCL_NO_FP64=1 treats the device as a GPU without cl_khr_fp64 is:
    // float64 on the CPU fallback, float32 computed in float (tests/python/test_opencl_fp64.py).
    const char* no_fp64 = std::getenv("TORCH_FL_OPENCL_NO_FP64");
    device.fp64 = device_string(id, CL_DEVICE_EXTENSIONS).find("cl_khr_fp64") != std::string::npos &&
                  !(no_fp64 && std::string(no_fp64) == "1");
    const auto queue_properties = device_value<cl_command_queue_properties>(id, CL_DEVICE_QUEUE_PROPERTIES);
    device.profiling = (queue_properties & CL_QUEUE_PROFILING_ENABLE) != 0;
    device.svm = supports_svm(id);
    if (memory_mode_ == MemoryMode::kSvm && !device.svm) {
      return fail(kConfiguration, "TORCH_FL_OPENCL_MEMORY=svm, but device " + std::to_string(devices_.size()) + " (" +
                                      device.name + ", " + device.version +
                                      ") has no coarse-grain buffer SVM; use TORCH_FL_OPENCL_MEMORY=buffers");
    }
    device.context = clCreateContext(nullptr, 1, &id, nullptr, nullptr, &error);
    if (const int32_t status = check_cl(error, "clCreateContext")) return status;
    devices_.push_back(std::move(device));
  }
  return kSuccess;
}

int32_t Platform::device(int32_t index, Device** device) {
  if (index < 0 || index >= device_count()) {
    return fail(kInvalidDevice, "device " + std::to_string(index) + " does not exist (" +
                                    std::to_string(device_count()) + " OpenCL device(s))");
  }
  *device = &devices_[static_cast<size_t>(index)];
  return kSuccess;
}

Platform::~Platform() {
  for (Device& device : devices_) clReleaseContext(device.context);
}

}  // namespace torch_fl::ocl
