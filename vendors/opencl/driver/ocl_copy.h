// Copies of the OpenCL driver, ordered on a stream. Device memory is reached
// only through these (and kernels): its addresses are not host memory.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ocl_element_types.h"
#include "ocl_geometry.h"
#include "ocl_queue.h"

namespace torch_fl::ocl {

enum class HostSource {
  kStaged,   // copied aside first: the caller may reuse its buffer at once
  kBorrowed, // read in place later: the caller keeps it alive until the stream passes
  kWaited,   // read in place, and the call returns once the data is on the device
};

int32_t write(Stream& stream, void* device_dst, const void* host_src, size_t bytes, HostSource source);
// Completes asynchronously: synchronize the stream before reading `host_dst`.
int32_t read(Stream& stream, void* host_dst, const void* device_src, size_t bytes);
// device_src may lie on another device (through the host; its stream waited for first).
int32_t copy(Stream& stream, void* device_dst, const void* device_src, size_t bytes);

struct StridedView {
  void* address;
  ElementType type;
  int32_t ndim;
  const int64_t* sizes;
  const int64_t* strides;  // in elements
};
// dst[i] = cast(src[i]) over two views of one shape, by a kernel on the stream.
int32_t copy_strided(Stream& stream, const StridedView& dst, const StridedView& src);

}  // namespace torch_fl::ocl
