/*
 * The simulated MLU's own runtime API (in the style of a Cambricon-like chip:
 * queues and notifiers rather than streams and events, its own status codes).
 *
 * Environment:
 *   TORCH_FL_MLU_DEVICES    number of devices (default 2)
 *   TORCH_FL_MLU_MEMORY_MB  memory per device in MiB (default 4096)
 *   TORCH_FL_MLU_PROTECT=1  device memory is inaccessible to the host outside driver work
 */
#ifndef MLU_RUNTIME_H_
#define MLU_RUNTIME_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  MLU_RET_SUCCESS = 0,
  MLU_RET_ERR_INVALID_VALUE = 632001,
  MLU_RET_ERR_NO_MEMORY = 632002,
  MLU_RET_ERR_INVALID_DEVICE = 632003,
  MLU_RET_ERR_INVALID_ADDRESS = 632004,
  MLU_RET_ERR_EXECUTION = 632005,
  MLU_RET_ERR_NOT_SUPPORTED = 632006,
  MLU_RET_ERR_NOT_READY = 632007,
} mluRet_t;

#define MLU_MEMORY_ALIGNMENT (64 * 1024)

typedef struct mluQueue_* mluQueue_t;
typedef struct mluNotifier_* mluNotifier_t;

/* MLU_MEMCPY_PINNED_HOST_TO_DEV: from page-locked host memory the caller keeps
 * unchanged until the copy has run; the copy engine reads it in place (no staging). */
typedef enum {
  MLU_MEMCPY_HOST_TO_DEV,
  MLU_MEMCPY_DEV_TO_HOST,
  MLU_MEMCPY_DEV_TO_DEV,
  MLU_MEMCPY_PINNED_HOST_TO_DEV
} mluMemcpyDirection_t;

const char* mluGetErrorStr(mluRet_t ret);
/* Detail on this thread's last failure (which address, which size, ...). */
const char* mluGetLastErrorDetail(void);

/* MLU_RET_ERR_INVALID_VALUE when TORCH_FL_MLU_* asks for an impossible chip (see the detail). */
mluRet_t mluGetDeviceCount(int* count);

typedef struct {
  char name[64];
  int major, minor; /* the MLU architecture generation */
  size_t totalMemory;
  int clusterCount; /* compute clusters */
} mluDeviceProp_t;
mluRet_t mluGetDeviceProperties(int device, mluDeviceProp_t* prop);
mluRet_t mluMalloc(int device, void** ptr, size_t bytes);
mluRet_t mluFree(void* ptr);
mluRet_t mluMemGetInfo(int device, size_t* free_bytes, size_t* total_bytes);
/* Microseconds the device has had work in any queue, and since it came up. */
mluRet_t mluDeviceGetBusyTime(int device, uint64_t* busy_us, uint64_t* uptime_us);
/* The device owning ptr, or -1. */
int mluPointerDevice(const void* ptr);

mluRet_t mluQueueCreate(int device, int priority, mluQueue_t* queue);
mluRet_t mluQueueDestroy(mluQueue_t queue);
mluRet_t mluQueueSync(mluQueue_t queue);
mluRet_t mluQueueQuery(mluQueue_t queue); /* MLU_RET_ERR_NOT_READY while busy */
int mluQueueDevice(mluQueue_t queue);

mluRet_t mluNotifierCreate(int device, mluNotifier_t* notifier);
mluRet_t mluNotifierDestroy(mluNotifier_t notifier);
mluRet_t mluPlaceNotifier(mluNotifier_t notifier, mluQueue_t queue);
mluRet_t mluNotifierQuery(mluNotifier_t notifier); /* MLU_RET_ERR_NOT_READY while pending */
mluRet_t mluNotifierWait(mluNotifier_t notifier);
mluRet_t mluQueueWaitNotifier(mluQueue_t queue, mluNotifier_t notifier);
mluRet_t mluNotifierElapsedTime(mluNotifier_t start, mluNotifier_t end, float* ms);

/* Device memory shared between processes. The handle names a whole allocation
 * (from its start; every MLU allocation is whole 64 KiB units of its own).
 * Another process opens it on the same device; the opened memory is freed with
 * mluIpcCloseMemHandle, not mluFree, and cannot be shared on. It stays valid
 * after the producer exits; what the producer writes there after freeing it is
 * seen, so the producer keeps it allocated while it is opened. */
#define MLU_IPC_HANDLE_SIZE 64
typedef struct {
  unsigned char reserved[MLU_IPC_HANDLE_SIZE];
} mluIpcMemHandle_t;
mluRet_t mluIpcGetMemHandle(mluIpcMemHandle_t* handle, void* ptr);
mluRet_t mluIpcOpenMemHandle(int device, void** ptr, size_t* bytes, mluIpcMemHandle_t handle);
mluRet_t mluIpcCloseMemHandle(void* ptr);

mluRet_t mluMemcpyAsync(void* dst, const void* src, size_t bytes, mluQueue_t queue, mluMemcpyDirection_t dir);
/* Ordered on `queue`; returns when the copy is done (host memory is read in place). */
mluRet_t mluMemcpy(void* dst, const void* src, size_t bytes, mluQueue_t queue, mluMemcpyDirection_t dir);

#ifdef __cplusplus
}
#endif

#endif /* MLU_RUNTIME_H_ */
