/*
 * The simulated NPU's runtime API (in the style of an Ascend-like chip). Its
 * conventions differ from the MLU's on purpose, as real chips' do:
 *   - a per-thread "current device" (npurtSetDevice): allocations, streams and
 *     events are created on it, not on a device named in the call;
 *   - copies name the destination's capacity (destMax) as well as the count;
 *   - its own status codes (npuError) and a "recent error message" per thread;
 *   - device memory aligned to 512 bytes.
 *
 * Environment:
 *   TORCH_FL_NPU_DEVICES    number of devices (default 2)
 *   TORCH_FL_NPU_MEMORY_MB  memory per device in MiB (default 4096)
 *   TORCH_FL_NPU_PROTECT=1  device memory is inaccessible to the host outside driver work
 */
#ifndef NPU_RUNTIME_H_
#define NPU_RUNTIME_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t npuError;
#define NPU_SUCCESS 0
#define NPU_ERROR_INVALID_PARAM 107000
#define NPU_ERROR_INVALID_DEVICE 107001
#define NPU_ERROR_NOT_SUPPORTED 107002
#define NPU_ERROR_NOT_READY 107003
#define NPU_ERROR_BAD_ALLOC 207001
#define NPU_ERROR_INVALID_ADDRESS 207002
#define NPU_ERROR_EXECUTION 507011

#define NPU_MEMORY_ALIGNMENT 512

typedef struct npurtStream_* npurtStream;
typedef struct npurtEvent_* npurtEvent;

typedef enum {
  NPU_MEMCPY_HOST_TO_DEVICE = 1,
  NPU_MEMCPY_DEVICE_TO_HOST = 2,
  NPU_MEMCPY_DEVICE_TO_DEVICE = 3,
  /* from page-locked host memory the caller keeps unchanged until the copy has
   * run: read in place by the copy engine, no staging */
  NPU_MEMCPY_PINNED_HOST_TO_DEVICE = 4,
} npurtMemcpyKind;

const char* npurtGetErrorName(npuError error);
/* What went wrong in this thread's last failed call, in words. */
const char* npurtGetRecentErrMsg(void);

/* NPU_ERROR_INVALID_PARAM when TORCH_FL_NPU_* asks for an impossible chip (see the message). */
npuError npurtGetDeviceCount(uint32_t* count);

typedef struct {
  const char* socName;
  int32_t versionMajor, versionMinor; /* the SoC generation */
  size_t hbmBytes;
  uint32_t aiCoreCount;
} npurtDeviceInfo;
npuError npurtGetDeviceInfo(int32_t device, npurtDeviceInfo* info);
/* The calling thread's current device (default 0). */
npuError npurtSetDevice(int32_t device);
npuError npurtGetDevice(int32_t* device);

/* On the current device. */
npuError npurtMalloc(void** ptr, size_t size);
npuError npurtFree(void* ptr);
npuError npurtGetMemInfo(size_t* free_bytes, size_t* total_bytes);
typedef struct {
  uint64_t busyNs;   /* time with work in any stream */
  uint64_t uptimeNs; /* time since the device came up */
} npurtUtilization;
npuError npurtGetDeviceUtilization(npurtUtilization* utilization);
/* NPU_ERROR_INVALID_ADDRESS when ptr is not device memory. */
npuError npurtPointerGetDevice(const void* ptr, int32_t* device);

/* On the current device; lower priority values run first. */
npuError npurtCreateStreamWithPriority(npurtStream* stream, int32_t priority);
npuError npurtDestroyStream(npurtStream stream);
npuError npurtSynchronizeStream(npurtStream stream);
/* *complete = 1 when every task on the stream has run. */
npuError npurtStreamQuery(npurtStream stream, int32_t* complete);

npuError npurtCreateEvent(npurtEvent* event);
npuError npurtDestroyEvent(npurtEvent event);
npuError npurtRecordEvent(npurtEvent event, npurtStream stream);
npuError npurtQueryEvent(npurtEvent event, int32_t* complete);
npuError npurtSynchronizeEvent(npurtEvent event);
npuError npurtStreamWaitEvent(npurtStream stream, npurtEvent event);
npuError npurtEventElapsedTime(float* ms, npurtEvent start, npurtEvent end);

/* Ordered on `stream`; a host source may be reused on return. */
/* Device memory shared between processes: npurtIpcGetMemHandle names a whole
 * allocation (from its start; the pages it lies on are mapped, so a neighbour's
 * bytes on them are visible too); another process opens it on its current device, and
 * frees it with npurtIpcCloseMemHandle. Opened memory cannot be shared on, and
 * stays valid after the producer exits; the producer keeps it allocated while it
 * is opened (what it writes there after freeing it is seen). */
typedef struct {
  uint8_t data[64];
} npurtIpcMemHandle;
npuError npurtIpcGetMemHandle(npurtIpcMemHandle* handle, void* ptr);
npuError npurtIpcOpenMemHandle(void** ptr, size_t* size, const npurtIpcMemHandle* handle);
npuError npurtIpcCloseMemHandle(void* ptr);

npuError npurtMemcpyAsync(void* dst, size_t dest_max, const void* src, size_t count, npurtMemcpyKind kind,
                          npurtStream stream);
/* Ordered on `stream`; returns when the copy is done (a host source is read in place). */
npuError npurtMemcpy(void* dst, size_t dest_max, const void* src, size_t count, npurtMemcpyKind kind,
                     npurtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* NPU_RUNTIME_H_ */
