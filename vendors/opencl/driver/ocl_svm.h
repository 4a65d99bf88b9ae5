// Shared virtual memory: the optional allocation path (TORCH_FL_OPENCL_MEMORY=svm).
//
// By default a tensor's data pointer is an opaque address (ocl_address_space.h),
// which works on every OpenCL device. With TORCH_FL_OPENCL_MEMORY=svm, on devices
// that report coarse-grain buffer SVM (OpenCL 2.0), each allocation comes from
// clSVMAlloc and its data pointer is the SVM address itself: OpenCL code outside
// Torch-FL (a kernel of the user's through clSetKernelArgSVMPointer, another
// library on the same context) can take a tensor's data_ptr() as it is.
//
// The op library and CLBlast still see a cl_mem: a buffer over the SVM
// allocation (CL_MEM_USE_HOST_PTR, which OpenCL 2.0 defines to use the shared
// memory as its storage). So every kernel, copy and offset is the handle path's,
// and the two paths differ only in where the memory comes from. The host never
// dereferences the address: coarse-grain SVM needs a map for that, and the
// driver's copies go through the queue as on the handle path.
#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <cstdint>

namespace torch_fl::ocl {

enum class MemoryMode { kBuffers, kSvm };

// What TORCH_FL_OPENCL_MEMORY asks for: "buffers" (the default) or "svm";
// kConfiguration, naming the choices, for anything else.
int32_t memory_mode_from_environment(MemoryMode* mode);

// The device reports coarse-grain buffer SVM.
bool supports_svm(cl_device_id device);

// `bytes` of SVM in `context` and a buffer over them. The SVM is freed when the
// buffer is destroyed, which OpenCL delays until the commands using it are done.
int32_t svm_allocate(cl_context context, size_t bytes, void** address, cl_mem* buffer);

}  // namespace torch_fl::ocl
