/*
 * The Torch-FL collectives ABI: a chip's own collective library (NCCL, HCCL,
 * CNCL, ...) as one small C table.
 *
 * A vendor whose spec says `distributed: {transport: vendor_ccl}` implements
 * `torch_fl_vendor_collectives()`; the runtime's c10d backend
 * (runtime/src/collectives/device_ccl_backend.*) drives it, so every such
 * library shares one implementation of PyTorch's Backend contract (work
 * objects, stream ordering, the allocator's stream uses, error messages).
 * The calls mirror what these libraries already have in common: a
 * communicator made from a unique id that rank 0 creates and the others
 * receive, and enqueue-only collectives on the driver ABI's streams.
 *
 * Status codes are the library's own; 0 means success.
 */
#ifndef TORCH_FL_COLLECTIVES_ABI_H_
#define TORCH_FL_COLLECTIVES_ABI_H_

#include <stddef.h>
#include <stdint.h>

#include "driver_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TFL_COLLECTIVES_ABI_VERSION 1
#define TFL_COLLECTIVES_MAX_UNIQUE_ID 512

typedef struct tflComm_* tflComm;  /* one rank's communicator on one device */

typedef enum { TFL_REDUCE_SUM, TFL_REDUCE_PRODUCT, TFL_REDUCE_MAX, TFL_REDUCE_MIN, TFL_REDUCE_AVG } tflReduceOp;

typedef struct {
  uint32_t abi_version; /* TFL_COLLECTIVES_ABI_VERSION */
  const char* library;  /* e.g. "NCCL 2.30.7": used in error messages */

  /* Rank 0 makes the id (at most TFL_COLLECTIVES_MAX_UNIQUE_ID bytes); every rank passes it to comm_init. */
  size_t unique_id_bytes;
  tflStatus (*get_unique_id)(void* unique_id);
  /* Collective over the ranks: each calls it once with its own device. */
  tflStatus (*comm_init)(const void* unique_id, int32_t world_size, int32_t rank, int32_t device, tflComm* comm);
  tflStatus (*comm_destroy)(tflComm comm);
  /* Unblocks and frees a communicator whose collectives may never finish (a rank gone). */
  tflStatus (*comm_abort)(tflComm comm);
  /* An error raised asynchronously by work already queued (a peer failed); 0 when none. */
  tflStatus (*comm_async_error)(tflComm comm, tflStatus* error);

  /* Enqueued on `stream`; counts are in elements. In-place when send == recv. */
  tflStatus (*all_reduce)(const void* send, void* recv, size_t count, tflDtype dtype, tflReduceOp op, tflComm comm,
                          tflStream stream);
  tflStatus (*broadcast)(const void* send, void* recv, size_t count, tflDtype dtype, int32_t root, tflComm comm,
                         tflStream stream);
  tflStatus (*reduce)(const void* send, void* recv, size_t count, tflDtype dtype, tflReduceOp op, int32_t root,
                      tflComm comm, tflStream stream);
  /* recv holds world_size * send_count elements, rank r's at r * send_count. */
  tflStatus (*all_gather)(const void* send, void* recv, size_t send_count, tflDtype dtype, tflComm comm,
                          tflStream stream);
  /* send holds world_size * recv_count elements; rank r receives the reduction of block r. */
  tflStatus (*reduce_scatter)(const void* send, void* recv, size_t recv_count, tflDtype dtype, tflReduceOp op,
                              tflComm comm, tflStream stream);
  tflStatus (*send)(const void* buffer, size_t count, tflDtype dtype, int32_t peer, tflComm comm, tflStream stream);
  tflStatus (*recv)(void* buffer, size_t count, tflDtype dtype, int32_t peer, tflComm comm, tflStream stream);
  /* Calls between group_start and group_end are issued together (all-to-all, gather, scatter as sends and receives). */
  tflStatus (*group_start)(void);
  tflStatus (*group_end)(void);

  const char* (*status_string)(tflStatus status);
} TflCollectives;

/* Implemented by a vendor library whose spec declares `transport: vendor_ccl`. */
const TflCollectives* torch_fl_vendor_collectives(void);

#ifdef __cplusplus
}
#endif

#endif /* TORCH_FL_COLLECTIVES_ABI_H_ */
