// The OpenCL vendor's implementation of the Torch-FL driver ABI: a thin adapter
// from the ABI's conventions to the OpenCL runtime layer in driver/ (opaque
// addresses, profiled in-order queues, marker events, copies).
#include <torch_fl/driver_abi.h>

#include <cstdio>
#include <string>

#include "ocl_copy.h"
#include "ocl_memory.h"
#include "ocl_platform.h"
#include "ocl_program_cache.h"
#include "ocl_queue.h"
#include "ocl_status.h"

namespace {

namespace ocl = torch_fl::ocl;

ocl::Stream& stream_of(tflStream s) { return *reinterpret_cast<ocl::Stream*>(s); }
ocl::Event& event_of(tflEvent e) { return *reinterpret_cast<ocl::Event*>(e); }

tflStatus find_device(int32_t index, ocl::Device** device) {
  ocl::Platform* platform = nullptr;
  if (const int32_t status = ocl::Platform::get(&platform)) return status;
  return platform->device(index, device);
}

tflStatus device_count(int32_t* count) {
  *count = 0;
  ocl::Platform* platform = nullptr;
  if (const int32_t status = ocl::Platform::get(&platform)) return status;
  *count = platform->device_count();
  return ocl::kSuccess;
}

tflStatus device_properties(int32_t index, tflDeviceProperties* properties) {
  ocl::Device* device = nullptr;
  if (const int32_t status = find_device(index, &device)) return status;
  // The capability is the OpenCL version the device supports (3.0 on PoCL).
  *properties = tfl_make_device_properties(device->name.c_str(), device->major, device->minor, device->capacity,
                                           device->compute_units);
  return ocl::kSuccess;
}

// Allocations start on pages (ocl_address_space.h); the runtime's blocks inside
// them keep its own rounding, so kernels see element-aligned offsets.
size_t memory_alignment() { return 4096; }

tflStatus memory_info(int32_t device, size_t* free_bytes, size_t* total_bytes) {
  return ocl::memory_info(device, free_bytes, total_bytes);
}

tflStatus busy_time(int32_t index, uint64_t* busy_ns, uint64_t* elapsed_ns) {
  ocl::Device* device = nullptr;
  if (const int32_t status = find_device(index, &device)) return status;
  ocl::busy_clock(index).read(busy_ns, elapsed_ns);
  return ocl::kSuccess;
}

tflStatus device_malloc(int32_t device, size_t bytes, void** ptr) { return ocl::allocate(device, bytes, ptr); }
tflStatus device_free(int32_t, void* ptr) { return ocl::release(ptr); }
int32_t device_of_pointer(const void* ptr) {
  ocl::Resolved resolved;
  return ocl::address_space().resolve(ptr, &resolved) ? resolved.device : -1;
}

// OpenCL queues have no priorities (cl_khr_priority_hints is optional): every stream is alike.
tflStatus stream_create(int32_t device, int32_t, tflStream* stream) {
  ocl::Stream* created = nullptr;
  const int32_t status = ocl::Stream::create(device, &created);
  *stream = reinterpret_cast<tflStream>(created);
  return status;
}
tflStatus stream_destroy(tflStream stream) {
  delete &stream_of(stream);
  return ocl::kSuccess;
}
tflStatus stream_synchronize(tflStream stream) { return stream_of(stream).synchronize(); }
tflStatus stream_query(tflStream stream, int32_t* idle) {
  bool done = false;
  const int32_t status = stream_of(stream).query(&done);
  *idle = done;
  return status;
}

tflStatus event_create(int32_t device, tflEvent* event) {
  if (const int32_t status = ocl::check_not_forked()) return status;
  *event = reinterpret_cast<tflEvent>(new ocl::Event(device));  // owned by the runtime until event_destroy
  return ocl::kSuccess;
}
tflStatus event_destroy(tflEvent event) {
  delete &event_of(event);
  return ocl::kSuccess;
}
tflStatus event_record(tflEvent event, tflStream stream) { return event_of(event).record(stream_of(stream)); }
tflStatus event_query(tflEvent event, int32_t* completed) {
  bool done = false;
  const int32_t status = event_of(event).query(&done);
  *completed = done;
  return status;
}
tflStatus event_synchronize(tflEvent event) { return event_of(event).synchronize(); }
tflStatus stream_wait_event(tflStream stream, tflEvent event) { return event_of(event).block(stream_of(stream)); }
tflStatus event_elapsed_ms(tflEvent start, tflEvent end, float* ms) {
  return ocl::Event::elapsed_ms(event_of(start), event_of(end), ms);
}

tflStatus memcpy_h2d(void* dst, const void* src, size_t bytes, tflStream s) {
  return ocl::write(stream_of(s), dst, src, bytes, ocl::HostSource::kStaged);
}
tflStatus memcpy_h2d_pinned(void* dst, const void* src, size_t bytes, tflStream s) {
  return ocl::write(stream_of(s), dst, src, bytes, ocl::HostSource::kBorrowed);
}
tflStatus memcpy_h2d_sync(void* dst, const void* src, size_t bytes, tflStream s) {
  return ocl::write(stream_of(s), dst, src, bytes, ocl::HostSource::kWaited);
}
tflStatus memcpy_d2h(void* dst, const void* src, size_t bytes, tflStream s) {
  return ocl::read(stream_of(s), dst, src, bytes);
}
tflStatus memcpy_d2d(void* dst, const void* src, size_t bytes, tflStream s) {
  return ocl::copy(stream_of(s), dst, src, bytes);
}

ocl::ElementType element_type(tflDtype dtype) {
  switch (dtype) {
    case TFL_DTYPE_BOOL: return ocl::ElementType::kBool;
    case TFL_DTYPE_UINT8: return ocl::ElementType::kU8;
    case TFL_DTYPE_INT8: return ocl::ElementType::kI8;
    case TFL_DTYPE_INT16: return ocl::ElementType::kI16;
    case TFL_DTYPE_INT32: return ocl::ElementType::kI32;
    case TFL_DTYPE_INT64: return ocl::ElementType::kI64;
    case TFL_DTYPE_FLOAT16: return ocl::ElementType::kF16;
    case TFL_DTYPE_BFLOAT16: return ocl::ElementType::kBF16;
    case TFL_DTYPE_FLOAT32: return ocl::ElementType::kF32;
    case TFL_DTYPE_FLOAT64: return ocl::ElementType::kF64;
    case TFL_DTYPE_COMPLEX64: return ocl::ElementType::kC64;
    case TFL_DTYPE_COMPLEX128: return ocl::ElementType::kC128;
  }
  return ocl::ElementType::kU8;
}

ocl::StridedView view_of(const tflStridedView& view) {
  return ocl::StridedView{view.data, element_type(view.dtype), view.ndim, view.sizes, view.strides};
}

tflStatus copy_strided(const tflStridedView* dst, const tflStridedView* src, tflStream s) {
  static_assert(ocl::kMaxDims >= TFL_MAX_DIMS, "the driver's copy must take every view the ABI can describe");
  return ocl::copy_strided(stream_of(s), view_of(*dst), view_of(*src));
}

const char* status_string(tflStatus status) { return ocl::status_name(status); }
const char* last_error_detail() { return ocl::last_detail(); }
int32_t status_is_out_of_memory(tflStatus status) { return status == ocl::kOutOfMemory; }

// The program cache's counters: what a user asks when a first run is slow
// (builds) or a second one should not be (disk hits); and which memory path
// runs (memory_svm 1: TORCH_FL_OPENCL_MEMORY=svm, ocl_svm.h).
const char* driver_counters() {
  const ocl::ProgramCacheStats stats = ocl::program_cache_stats();
  ocl::Platform* platform = nullptr;
  const bool svm = ocl::Platform::get(&platform) == ocl::kSuccess && platform->memory_mode() == ocl::MemoryMode::kSvm;
  thread_local std::string text;
  char line[320];
  std::snprintf(line, sizeof(line),
                "program_cache_memory_hits=%llu\nprogram_cache_disk_hits=%llu\nprogram_builds=%llu\n"
                "program_build_ms=%.1f\nprogram_load_ms=%.1f\nmemory_svm=%d\n",
                static_cast<unsigned long long>(stats.memory_hits), static_cast<unsigned long long>(stats.disk_hits),
                static_cast<unsigned long long>(stats.builds), stats.build_ms, stats.load_ms, svm ? 1 : 0);
  text = line;
  return text.c_str();
}

// float64 (and complex128) only where the device has cl_khr_fp64: many GPUs lack it,
// and a spec cannot know which device a user has.
uint32_t device_dtypes(int32_t index) {
  ocl::Device* device = nullptr;
  if (find_device(index, &device) != ocl::kSuccess || device->fp64) return TFL_ALL_DTYPES;
  return TFL_ALL_DTYPES & ~((1u << TFL_DTYPE_FLOAT64) | (1u << TFL_DTYPE_COMPLEX128));
}

// OpenCL has no memory shared between processes: device tensors cross
// torch.multiprocessing by value.
uint32_t device_capabilities(int32_t) { return 0; }
tflStatus no_ipc(const char* call) {
  return ocl::fail(ocl::kNotSupported, std::string(call) + ": OpenCL has no device memory shared between processes");
}
tflStatus ipc_get_mem_handle(void*, tflIpcMemHandle*) { return no_ipc("ipc_get_mem_handle"); }
tflStatus ipc_open_mem_handle(int32_t, const tflIpcMemHandle*, void**, size_t*) {
  return no_ipc("ipc_open_mem_handle");
}
tflStatus ipc_close_mem_handle(void*) { return no_ipc("ipc_close_mem_handle"); }

const TflDriver kDriver = TFL_DRIVER_TABLE("opencl");

}  // namespace

extern "C" const TflDriver* torch_fl_vendor_driver(void) { return &kDriver; }
