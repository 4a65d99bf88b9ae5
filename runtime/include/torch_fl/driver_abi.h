/*
 * The Torch-FL vendor driver ABI.
 *
 * Every chip implements this one small C table; the runtime (device guard,
 * allocator, streams, events, copies) is written against it and nothing else.
 * It is C so that a vendor can implement it in any language and ship it as a
 * plain shared library. All calls take an explicit device index: the driver
 * keeps no "current device", the runtime does.
 *
 * Status codes are the vendor's own; 0 means success. `status_string` turns
 * any code into the vendor's message.
 */
#ifndef TORCH_FL_DRIVER_ABI_H_
#define TORCH_FL_DRIVER_ABI_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TFL_DRIVER_ABI_VERSION 7
#define TFL_MAX_DIMS 12

typedef int32_t tflStatus;
#define TFL_SUCCESS 0

typedef struct tflStream_* tflStream;  /* an in-order queue of device work */
typedef struct tflEvent_* tflEvent;    /* a marker recorded on a stream */

/* Element types for the strided copy below (values are the driver's business). */
typedef enum {
  TFL_DTYPE_BOOL, TFL_DTYPE_UINT8, TFL_DTYPE_INT8, TFL_DTYPE_INT16, TFL_DTYPE_INT32, TFL_DTYPE_INT64,
  TFL_DTYPE_FLOAT16, TFL_DTYPE_BFLOAT16, TFL_DTYPE_FLOAT32, TFL_DTYPE_FLOAT64,
  TFL_DTYPE_COMPLEX64, TFL_DTYPE_COMPLEX128
} tflDtype;

/* What torch.<device>.get_device_properties() reports. */
typedef struct {
  char name[256];                /* e.g. "MLU (simulated)"; NUL-terminated */
  int32_t major, minor;          /* the vendor's capability (architecture) numbering */
  size_t total_memory;           /* bytes */
  int32_t multi_processor_count; /* compute units */
} tflDeviceProperties;

/* For adapters: a tflDeviceProperties from the vendor's own description (the name is truncated to fit). */
static inline tflDeviceProperties tfl_make_device_properties(const char* name, int32_t major, int32_t minor,
                                                             size_t total_memory, int32_t multi_processor_count) {
  tflDeviceProperties properties = {{0}, major, minor, total_memory, multi_processor_count};
  for (size_t i = 0; name && name[i] && i + 1 < sizeof(properties.name); ++i) properties.name[i] = name[i];
  return properties;
}

/* Names a device allocation to another process (CUDA's cudaIpcMemHandle_t is as
 * large); its bytes are the driver's business and travel as they are. */
#define TFL_IPC_HANDLE_BYTES 64
typedef struct {
  unsigned char bytes[TFL_IPC_HANDLE_BYTES];
} tflIpcMemHandle;

/* What a device can do beyond the core ABI (device_capabilities). */
#define TFL_CAP_IPC_MEMORY (1u << 0) /* the ipc_* calls share memory between processes */

/* A strided view of device memory. */
typedef struct {
  void* data;
  tflDtype dtype;
  int32_t ndim;
  int64_t sizes[TFL_MAX_DIMS];
  int64_t strides[TFL_MAX_DIMS]; /* in elements */
} tflStridedView;

typedef struct {
  uint32_t abi_version;   /* TFL_DRIVER_ABI_VERSION */
  const char* vendor;     /* e.g. "mlu": used in every error message */

  /* devices */
  /* Zero devices is success (a machine without the chip); a failure is a
   * driver that cannot start, e.g. a bad configuration (last_error_detail says why). */
  tflStatus (*device_count)(int32_t* count);
  tflStatus (*device_properties)(int32_t device, tflDeviceProperties* properties);
  size_t (*memory_alignment)(void);  /* every device allocation is aligned to this */
  tflStatus (*memory_info)(int32_t device, size_t* free_bytes, size_t* total_bytes);

  /* device memory: the host must not dereference it */
  tflStatus (*malloc)(int32_t device, size_t bytes, void** ptr);
  tflStatus (*free)(int32_t device, void* ptr);
  /* Which device owns ptr; -1 if none. */
  int32_t (*device_of_pointer)(const void* ptr);

  /* streams: each is an in-order queue; different streams may run concurrently */
  tflStatus (*stream_create)(int32_t device, int32_t priority, tflStream* stream);
  tflStatus (*stream_destroy)(tflStream stream);
  tflStatus (*stream_synchronize)(tflStream stream); /* also reports errors of earlier async work */
  tflStatus (*stream_query)(tflStream stream, int32_t* idle);

  /* events */
  tflStatus (*event_create)(int32_t device, tflEvent* event);
  tflStatus (*event_destroy)(tflEvent event);
  tflStatus (*event_record)(tflEvent event, tflStream stream);
  tflStatus (*event_query)(tflEvent event, int32_t* completed);
  tflStatus (*event_synchronize)(tflEvent event);
  tflStatus (*stream_wait_event)(tflStream stream, tflEvent event);
  tflStatus (*event_elapsed_ms)(tflEvent start, tflEvent end, float* ms);

  /* copies, ordered on `stream`. Host→device returns once the host buffer may be
   * reused; device→host completes asynchronously (synchronize before reading). */
  tflStatus (*memcpy_h2d_async)(void* dst, const void* src, size_t bytes, tflStream stream);
  tflStatus (*memcpy_d2h_async)(void* dst, const void* src, size_t bytes, tflStream stream);
  tflStatus (*memcpy_d2d_async)(void* dst, const void* src, size_t bytes, tflStream stream);
  /* dst[i] = cast(src[i]) over two strided views of the same shape, on one device. */
  tflStatus (*copy_strided_async)(const tflStridedView* dst, const tflStridedView* src, tflStream stream);

  /* The vendor's message for a status code, and detail on the last failure of this thread. */
  const char* (*status_string)(tflStatus status);
  const char* (*last_error_detail)(void);
  /* Distinguishes out-of-memory from other failures of malloc. */
  int32_t (*status_is_out_of_memory)(tflStatus status);

  /* Host→device copy ordered on `stream` that returns once the data is on the
   * device: no staging copy is needed, since the host buffer is read in place. */
  tflStatus (*memcpy_h2d_sync)(void* dst, const void* src, size_t bytes, tflStream stream);

  /* How long the device has had work queued or running on any stream (overlap counted
   * once), and how long since it came up, in nanoseconds: `torch-fl info`'s utilisation.
   * A chip that cannot tell returns a failure status (last_error_detail says why). */
  tflStatus (*busy_time)(int32_t device, uint64_t* busy_ns, uint64_t* elapsed_ns);

  /* Host→device copy ordered on `stream` from page-locked memory that the caller
   * keeps alive and unchanged until the copy has run (the runtime's pinned
   * allocator records the stream's use): the copy may read it in place, later,
   * so the host pays nothing for it. A chip whose copy engine cannot do that
   * implements it as memcpy_h2d_async. */
  tflStatus (*memcpy_h2d_pinned_async)(void* dst, const void* src, size_t bytes, tflStream stream);

  /* What the driver counts that `torch-fl info` shows: "name=value" lines (an
   * OpenCL driver's program cache: hits, builds, build time), owned by the
   * driver and valid until the calling thread's next call; "" when it counts
   * nothing. */
  const char* (*driver_counters)(void);

  /* The element types `device` computes, as bits (1u << tflDtype). The runtime
   * runs a dtype the spec declares native but the device lacks on the CPU
   * fallback there: float64 on an OpenCL GPU without cl_khr_fp64 is the case.
   * TFL_ALL_DTYPES for a device that computes whatever its spec says. */
  uint32_t (*device_dtypes)(int32_t device);
  /* TFL_CAP_* bits of `device`. */
  uint32_t (*device_capabilities)(int32_t device);
  /* Device memory shared between processes (TFL_CAP_IPC_MEMORY; a driver without it
   * fails each call, and last_error_detail says why).
   * get: the handle of the allocation starting at `ptr` (a `malloc` result; the
   *   runtime shares whole caching-allocator segments, after synchronizing the
   *   device so that the bytes are final).
   * open: maps another process's handle into `device`'s memory; *bytes is the
   *   allocation's size (0 where the driver cannot tell). Opened memory is device memory like any other, except that
   *   `free` refuses it and `get` refuses to share it on.
   * close: unmaps memory from open. Whether it stays valid after the producer frees
   *   the allocation is the driver's business; the runtime keeps a shared block
   *   allocated until every consumer has released it. */
  tflStatus (*ipc_get_mem_handle)(void* ptr, tflIpcMemHandle* handle);
  tflStatus (*ipc_open_mem_handle)(int32_t device, const tflIpcMemHandle* handle, void** ptr, size_t* bytes);
  tflStatus (*ipc_close_mem_handle)(void* ptr);
} TflDriver;

#define TFL_ALL_DTYPES ((1u << (TFL_DTYPE_COMPLEX128 + 1)) - 1u)

/* For an adapter that names its functions after the table's fields (as
 * vendors/<vendor>/torch_fl_driver.cpp do): the whole table in one line,
 *   const TflDriver kDriver = TFL_DRIVER_TABLE("mlu");
 * so that a field added to the ABI is one place to change, not one per vendor. */
#define TFL_DRIVER_TABLE(VENDOR)                                                                           \
  {                                                                                                        \
    TFL_DRIVER_ABI_VERSION, VENDOR, device_count, device_properties, memory_alignment, memory_info,       \
        device_malloc, device_free, device_of_pointer, stream_create, stream_destroy, stream_synchronize,  \
        stream_query, event_create, event_destroy, event_record, event_query, event_synchronize,           \
        stream_wait_event, event_elapsed_ms, memcpy_h2d, memcpy_d2h, memcpy_d2d, copy_strided,             \
        status_string, last_error_detail, status_is_out_of_memory, memcpy_h2d_sync, busy_time,             \
        memcpy_h2d_pinned, driver_counters, device_dtypes, device_capabilities, ipc_get_mem_handle,        \
        ipc_open_mem_handle, ipc_close_mem_handle                                                          \
  }

/* Implemented by each vendor library. */
const TflDriver* torch_fl_vendor_driver(void);

#ifdef __cplusplus
}
#endif

#endif /* TORCH_FL_DRIVER_ABI_H_ */
