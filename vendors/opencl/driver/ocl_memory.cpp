#include "ocl_memory.h"

#include <mutex>
#include <sstream>
#include <string>

#include "ocl_platform.h"
#include "ocl_status.h"

namespace torch_fl::ocl {
namespace {

// Allocation checks the capacity and then creates the buffer: one lock keeps two
// threads from both passing the check for the last free bytes.
std::mutex g_capacity_mutex;

std::string describe(int32_t index, const Device& device) {
  return "device " + std::to_string(index) + " (" + device.name + ")";
}

}  // namespace

int32_t allocate(int32_t index, size_t bytes, void** address) {
  *address = nullptr;
  Platform* platform = nullptr;
  Device* device = nullptr;
  if (const int32_t status = Platform::get(&platform)) return status;
  if (const int32_t status = platform->device(index, &device)) return status;
  if (bytes > device->max_allocation) {
    std::ostringstream detail;
    detail << "cannot allocate " << bytes << " bytes on " << describe(index, *device)
           << ": above its largest single allocation, CL_DEVICE_MAX_MEM_ALLOC_SIZE = " << device->max_allocation;
    return fail(kOutOfMemory, detail.str());
  }
  std::lock_guard<std::mutex> lock(g_capacity_mutex);
  const size_t used = address_space().used(index);
  if (bytes > device->capacity - used) {
    std::ostringstream detail;
    detail << "cannot allocate " << bytes << " bytes on " << describe(index, *device) << ": " << used
           << " of its " << device->capacity << " bytes are in use";
    if (device->capacity < device->global_memory) detail << " (capped by TORCH_FL_OPENCL_MEMORY_MB)";
    return fail(kOutOfMemory, detail.str());
  }
  if (platform->memory_mode() == MemoryMode::kSvm) {
    cl_mem buffer = nullptr;
    if (svm_allocate(device->context, bytes, address, &buffer) != kSuccess) {
      return fail(kOutOfMemory, "cannot allocate " + std::to_string(bytes) + " bytes of SVM on " +
                                    describe(index, *device) + ": " + last_detail());
    }
    address_space().insert_at(index, buffer, bytes, *address);
    return kSuccess;
  }
  cl_int error = CL_SUCCESS;
  // An empty buffer is invalid in OpenCL; an empty allocation still needs a unique address.
  cl_mem buffer = clCreateBuffer(device->context, CL_MEM_READ_WRITE, bytes == 0 ? 1 : bytes, nullptr, &error);
  if (error == CL_MEM_OBJECT_ALLOCATION_FAILURE || error == CL_OUT_OF_RESOURCES || error == CL_OUT_OF_HOST_MEMORY) {
    check_cl(error, "clCreateBuffer");
    return fail(kOutOfMemory, "cannot allocate " + std::to_string(bytes) + " bytes on " + describe(index, *device) +
                                  ": " + last_detail());
  }
  if (const int32_t status = check_cl(error, "clCreateBuffer")) return status;
  *address = address_space().insert(index, buffer, bytes);
  if (*address == nullptr) {
    clReleaseMemObject(buffer);
    return fail(kOutOfMemory, "cannot reserve " + std::to_string(bytes) + " bytes of address space for " +
                                  describe(index, *device));
  }
  return kSuccess;
}

int32_t release(void* address) {
  if (const int32_t status = check_not_forked()) return status;
  cl_mem buffer = address_space().erase(address);
  if (buffer == nullptr) {
    std::ostringstream detail;
    detail << "free: " << address << " is not the start of an OpenCL allocation";
    return fail(kInvalidAddress, detail.str());
  }
  // Commands still queued on the buffer keep it alive (OpenCL reference counting).
  return check_cl(clReleaseMemObject(buffer), "clReleaseMemObject");
}

int32_t resolve(const void* address, size_t bytes, Resolved* resolved) {
  if (address_space().resolve(address, resolved) && bytes <= resolved->available) return kSuccess;
  std::ostringstream detail;
  detail << address << " (+" << bytes << " bytes) is not inside one OpenCL allocation";
  return fail(kInvalidAddress, detail.str());
}

int32_t memory_info(int32_t index, size_t* free_bytes, size_t* total_bytes) {
  Platform* platform = nullptr;
  Device* device = nullptr;
  if (const int32_t status = Platform::get(&platform)) return status;
  if (const int32_t status = platform->device(index, &device)) return status;
  *total_bytes = device->capacity;
  *free_bytes = device->capacity - address_space().used(index);
  return kSuccess;
}

}  // namespace torch_fl::ocl
