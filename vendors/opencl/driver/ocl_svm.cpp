// clSVMAlloc and its kin are OpenCL 2.0; the rest of the driver keeps to the 1.2
// API that every platform has, and calls these only for a device that reports SVM.
#undef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 200

#include "ocl_svm.h"

#include <cstdlib>
#include <string>

#include "ocl_status.h"

namespace torch_fl::ocl {
namespace {

struct SvmBlock {
  cl_context context;
  void* address;
};

// Runs when the buffer over the SVM is destroyed: its last queued command is done.
void CL_CALLBACK free_svm(cl_mem, void* user_data) {
  auto* block = static_cast<SvmBlock*>(user_data);
  clSVMFree(block->context, block->address);
  delete block;
}

}  // namespace

int32_t memory_mode_from_environment(MemoryMode* mode) {
  const char* text = std::getenv("TORCH_FL_OPENCL_MEMORY");
  const std::string wanted = text ? text : "";
  if (wanted.empty() || wanted == "buffers") {
    *mode = MemoryMode::kBuffers;
  } else if (wanted == "svm") {
    *mode = MemoryMode::kSvm;
  } else {
    return fail(kConfiguration, "TORCH_FL_OPENCL_MEMORY=" + wanted +
                                    " is not a memory path: use 'buffers' (opaque addresses, any device) or 'svm' "
                                    "(shared virtual memory, OpenCL 2.0 devices with coarse-grain buffer SVM)");
  }
  return kSuccess;
}

bool supports_svm(cl_device_id device) {
  cl_device_svm_capabilities capabilities = 0;
  // A device before OpenCL 2.0 does not know the query: no SVM.
  return clGetDeviceInfo(device, CL_DEVICE_SVM_CAPABILITIES, sizeof(capabilities), &capabilities, nullptr) ==
             CL_SUCCESS &&
         (capabilities & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) != 0;
}

int32_t svm_allocate(cl_context context, size_t bytes, void** address, cl_mem* buffer) {
  const size_t size = bytes == 0 ? 1 : bytes;  // an empty allocation still needs a unique address
  void* memory = clSVMAlloc(context, CL_MEM_READ_WRITE, size, 0);
  if (!memory) return fail(CL_MEM_OBJECT_ALLOCATION_FAILURE, "clSVMAlloc of " + std::to_string(size) + " bytes failed");
  cl_int error = CL_SUCCESS;
  cl_mem made = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, size, memory, &error);
  if (error != CL_SUCCESS) {
    clSVMFree(context, memory);
    return check_cl(error, "clCreateBuffer over an SVM allocation");
  }
  auto* block = new SvmBlock{context, memory};
  error = clSetMemObjectDestructorCallback(made, free_svm, block);
  if (error != CL_SUCCESS) {
    delete block;
    clReleaseMemObject(made);
    clSVMFree(context, memory);
    return check_cl(error, "clSetMemObjectDestructorCallback");
  }
  *address = memory;
  *buffer = made;
  return kSuccess;
}

}  // namespace torch_fl::ocl
