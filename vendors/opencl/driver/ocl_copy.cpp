#include "ocl_copy.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <vector>

#include "ocl_launch.h"
#include "ocl_memory.h"
#include "ocl_platform.h"
#include "ocl_status.h"

namespace torch_fl::ocl {
namespace {

void CL_CALLBACK free_staging(cl_event, cl_int, void* staging) { std::free(staging); }

int32_t resolve_on(const Stream& stream, const void* address, size_t bytes, Resolved* resolved) {
  if (const int32_t status = resolve(address, bytes, resolved)) return status;
  if (resolved->device != stream.device()) {
    return fail(kInvalidAddress, "device " + std::to_string(resolved->device) + "'s memory used on a stream of device " +
                                     std::to_string(stream.device()));
  }
  return kSuccess;
}

// The element offset of `address`, or kInvalidAddress when it is not on an element boundary.
int32_t element_offset(const Resolved& resolved, ElementType type, int64_t* offset) {
  const size_t size = element_size(type);
  if (resolved.offset % size != 0) {
    return fail(kInvalidAddress, "a " + std::string(element_name(type)) + " view at byte offset " +
                                     std::to_string(resolved.offset) + " is not on an element boundary");
  }
  *offset = static_cast<int64_t>(resolved.offset / size);
  return kSuccess;
}

// The furthest element a view reaches, in bytes from its start (views with
// negative strides do not reach device memory here: PyTorch has none).
size_t extent_bytes(const StridedView& view) {
  int64_t last = 0;
  for (int32_t d = 0; d < view.ndim; ++d) {
    if (view.sizes[d] == 0) return 0;
    last += (view.sizes[d] - 1) * view.strides[d];
  }
  return static_cast<size_t>(last + 1) * element_size(view.type);
}

int32_t enqueue_copy(Stream& stream, cl_mem dst, size_t dst_offset, cl_mem src, size_t src_offset, size_t bytes) {
  cl_event event = nullptr;
  if (const int32_t status = check_cl(clEnqueueCopyBuffer(stream.queue(), src, dst, src_offset, dst_offset, bytes, 0,
                                                          nullptr, &event),
                                      "clEnqueueCopyBuffer")) {
    return status;
  }
  stream.track(event);
  return kSuccess;
}

// A queued host transfer: the stream's next sync waits for it, and a flush
// starts it now instead of when the queue next fills.
int32_t started(Stream& stream, cl_event event) {
  stream.track(event);
  clFlush(stream.queue());
  return kSuccess;
}

// OpenCL refuses overlapping ranges of one buffer (CL_MEM_COPY_OVERLAP), which
// memcpy_d2d's callers may pass (memmove semantics): through a scratch buffer,
// which the queued copies keep alive after its release here.
int32_t copy_through_scratch(Stream& stream, const Resolved& dst, const Resolved& src, size_t bytes) {
  cl_int error = CL_SUCCESS;
  cl_mem scratch = clCreateBuffer(stream.context(), CL_MEM_READ_WRITE, bytes, nullptr, &error);
  if (const int32_t status = check_cl(error, "clCreateBuffer (scratch for an overlapping copy)")) return status;
  int32_t status = enqueue_copy(stream, scratch, 0, src.buffer, src.offset, bytes);
  if (status == kSuccess) status = enqueue_copy(stream, dst.buffer, dst.offset, scratch, 0, bytes);
  clReleaseMemObject(scratch);
  return status;
}

// A source on another device: OpenCL buffers belong to one context (one per
// device here), so the bytes go through the host. The caller has waited for the
// source's stream (the ABI's cross-device contract); the read blocks on a queue
// of the source's device, the write is queued on the destination's stream.
int32_t copy_across_devices(Stream& stream, void* device_dst, const Resolved& src, size_t bytes) {
  static std::mutex mutex;
  static std::map<int32_t, Stream*> readers;  // one queue per source device, kept for the process
  std::vector<unsigned char> host(bytes);
  {
    const std::lock_guard<std::mutex> lock(mutex);
    Stream*& reader = readers[src.device];
    if (!reader) {
      if (const int32_t status = Stream::create(src.device, &reader)) return status;
    }
    if (const int32_t status = check_cl(clEnqueueReadBuffer(reader->queue(), src.buffer, CL_TRUE, src.offset, bytes,
                                                            host.data(), 0, nullptr, nullptr),
                                        "clEnqueueReadBuffer (a copy across devices)")) {
      return status;
    }
  }
  return write(stream, device_dst, host.data(), bytes, HostSource::kStaged);
}

}  // namespace

int32_t write(Stream& stream, void* device_dst, const void* host_src, size_t bytes, HostSource source) {
  if (const int32_t status = check_not_forked()) return status;
  if (bytes == 0) return kSuccess;
  Resolved dst;
  if (const int32_t status = resolve_on(stream, device_dst, bytes, &dst)) return status;
  const void* from = host_src;
  void* staging = nullptr;
  if (source == HostSource::kStaged) {
    staging = std::malloc(bytes);
    if (!staging) return fail(CL_OUT_OF_HOST_MEMORY, "staging " + std::to_string(bytes) + " bytes for a host-to-device copy");
    std::memcpy(staging, host_src, bytes);
    from = staging;
  }
  cl_event event = nullptr;
  const cl_bool blocking = source == HostSource::kWaited ? CL_TRUE : CL_FALSE;
  const cl_int error = clEnqueueWriteBuffer(stream.queue(), dst.buffer, blocking, dst.offset, bytes, from, 0, nullptr, &event);
  if (error != CL_SUCCESS) {
    std::free(staging);
    return check_cl(error, "clEnqueueWriteBuffer");
  }
  if (staging && clSetEventCallback(event, CL_COMPLETE, free_staging, staging) != CL_SUCCESS) {
    clWaitForEvents(1, &event);  // no callback: free it once the write is done
    std::free(staging);
  }
  return started(stream, event);
}

int32_t read(Stream& stream, void* host_dst, const void* device_src, size_t bytes) {
  if (const int32_t status = check_not_forked()) return status;
  if (bytes == 0) return kSuccess;
  Resolved src;
  if (const int32_t status = resolve_on(stream, device_src, bytes, &src)) return status;
  cl_event event = nullptr;
  if (const int32_t status = check_cl(clEnqueueReadBuffer(stream.queue(), src.buffer, CL_FALSE, src.offset, bytes,
                                                          host_dst, 0, nullptr, &event),
                                      "clEnqueueReadBuffer")) {
    return status;
  }
  return started(stream, event);
}

int32_t copy(Stream& stream, void* device_dst, const void* device_src, size_t bytes) {
  if (const int32_t status = check_not_forked()) return status;
  if (bytes == 0) return kSuccess;
  Resolved dst, src;
  if (const int32_t status = resolve_on(stream, device_dst, bytes, &dst)) return status;
  if (const int32_t status = resolve(device_src, bytes, &src)) return status;
  if (src.device != stream.device()) return copy_across_devices(stream, device_dst, src, bytes);
  const bool overlap = dst.buffer == src.buffer && dst.offset < src.offset + bytes && src.offset < dst.offset + bytes;
  if (overlap && dst.offset == src.offset) return kSuccess;  // a copy onto itself (x.copy_(x))
  if (overlap) return copy_through_scratch(stream, dst, src, bytes);
  return enqueue_copy(stream, dst.buffer, dst.offset, src.buffer, src.offset, bytes);
}

int32_t copy_strided(Stream& stream, const StridedView& dst, const StridedView& src) {
  if (const int32_t status = check_not_forked()) return status;
  if (dst.ndim != src.ndim || dst.ndim > kMaxDims) return fail(CL_INVALID_VALUE, "copy_strided: views of different ranks");
  const Geometry shape = make_geometry(dst.ndim, dst.sizes);
  if (shape.numel == 0) return kSuccess;
  Resolved to, from;
  if (const int32_t status = resolve_on(stream, dst.address, extent_bytes(dst), &to)) return status;
  if (const int32_t status = resolve_on(stream, src.address, extent_bytes(src), &from)) return status;
  Geometry geometry = shape;
  int64_t to_offset = 0, from_offset = 0;
  if (const int32_t status = element_offset(to, dst.type, &to_offset)) return status;
  if (const int32_t status = element_offset(from, src.type, &from_offset)) return status;
  set_operand(&geometry, 0, dst.strides, to_offset);
  set_operand(&geometry, 1, src.strides, from_offset);

  Platform* platform = nullptr;
  Device* device = nullptr;
  Platform::get(&platform);
  platform->device(stream.device(), &device);
  std::string macros;
  if (dst.type == src.type) {
    macros = bits_macros("DST", dst.type) + bits_macros("SRC", src.type);
  } else {
    const bool complex = is_complex(dst.type) || is_complex(src.type);
    const std::string compute = complex ? complex_compute_type({dst.type, src.type}, device->fp64)
                                        : compute_type({dst.type, src.type}, device->fp64);
    if (compute.empty()) {
      return fail(kNotSupported, std::string("copy from ") + element_name(src.type) + " to " +
                                     element_name(dst.type) + " on " + device->name + " (no cl_khr_fp64)");
    }
    const auto element = complex ? complex_macros : element_macros;
    macros = fp64_pragma(compute, {dst.type, src.type}) + element("DST", dst.type, compute) +
             element("SRC", src.type, compute);
  }
  const std::string source = macros + kIndexingSource + kCopySource;
  return Launch(stream, source, "", "copy_strided")
      .value(geometry)
      .buffer(to.buffer)
      .buffer(from.buffer)
      .run(static_cast<uint64_t>(geometry.numel));
}

}  // namespace torch_fl::ocl
