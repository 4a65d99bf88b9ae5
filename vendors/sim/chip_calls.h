// The semantics both simulated chips' runtime APIs share, in no chip's
// vocabulary: each call says whether it failed, how, and why. Each chip's
// runtime keeps only its API convention (how it names devices, handles and
// copy directions) and maps a failure to its own status code with report().
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "chip.h"
#include "error_detail.h"
#include "handles.h"

namespace torch_fl::sim {

// kBadConfiguration and kExecution carry a message of their own: the
// environment setting at fault, or what a failed task returned.
// kInvalidValue: an argument that is not what the call takes (another chip's IPC handle).
enum class Failure { kNone, kBadConfiguration, kInvalidDevice, kOutOfMemory, kInvalidAddress, kExecution, kInvalidValue };

struct Outcome {
  Failure failure = Failure::kNone;
  std::string detail;  // why, without the API's name; empty on success
  bool ok() const { return failure == Failure::kNone; }
};

// A chip's status code for each Failure.
template <class Status>
struct StatusCodes {
  Status success;
  Status bad_configuration;
  Status invalid_device;
  Status out_of_memory;
  Status invalid_address;
  Status execution;
};

// The chip's status for `outcome`, recording the detail for its "last error"
// call: "<api>: <why>", except for the failures whose message is their own.
template <class Status>
Status report(const StatusCodes<Status>& codes, const char* api, Outcome outcome) {
  switch (outcome.failure) {
    case Failure::kNone: return codes.success;
    case Failure::kBadConfiguration: return fail(codes.bad_configuration, std::move(outcome.detail));
    case Failure::kExecution: return fail(codes.execution, std::move(outcome.detail));
    case Failure::kInvalidDevice: return fail(codes.invalid_device, api + (": " + outcome.detail));
    case Failure::kOutOfMemory: return fail(codes.out_of_memory, api + (": " + outcome.detail));
    case Failure::kInvalidValue: return fail(codes.bad_configuration, api + (": " + outcome.detail));
    case Failure::kInvalidAddress: break;
  }
  return fail(codes.invalid_address, api + (": " + outcome.detail));
}

// Where a copy's ends live; each chip's copy direction maps onto one of these.
enum class CopyKind { kHostToDevice, kPinnedHostToDevice, kDeviceToHost, kDeviceToDevice };

// The devices the environment configured, or why it configured none.
Outcome device_count(const Chip& chip, int* count);
// An invalid device's detail is "device <n>".
Outcome allocate(const Chip& chip, int device, size_t bytes, void** ptr);
// nullptr is a no-op, as with free(). Memory opened from another process is
// refused: it is closed with the IPC close call.
Outcome release(const Chip& chip, void* ptr);

// Memory shared between processes (CUDA's IPC memory handles; shared_pages.h).
// get: ptr is the start of a live allocation. open: maps another process's handle into `device`'s
// memory. close: unmaps what open returned.
Outcome ipc_get(const Chip& chip, void* ptr, SharedPagesHandle* handle);
Outcome ipc_open(const Chip& chip, int device, const SharedPagesHandle& handle, void** ptr, size_t* bytes);
Outcome ipc_close(const Chip& chip, void* ptr);
Outcome memory_info(const Chip& chip, int device, size_t* free_bytes, size_t* total_bytes);
Outcome busy_time_ns(const Chip& chip, int device, uint64_t* busy_ns, uint64_t* uptime_ns);

// Waits for the queue's work; a failed task is a kExecution with its message.
Outcome synchronize(QueueHandle& queue);
// Work submitted to `queue` later runs after `marker` completes.
void wait_for(QueueHandle& queue, const MarkerHandle& marker);

// Checks that the device ends of a copy are live device memory, then queues
// it; a pageable host source is staged so the caller may reuse it on return.
Outcome copy_async(const Chip& chip, QueueHandle& queue, void* dst, const void* src, size_t bytes, CopyKind kind);
// The same, waiting for the copy (and the queue's earlier work): the host
// source is read in place, with no staging.
Outcome copy(const Chip& chip, QueueHandle& queue, void* dst, const void* src, size_t bytes, CopyKind kind);

}  // namespace torch_fl::sim
