// Device tensors shared with other processes (torch.multiprocessing), through the
// driver's IPC calls (driver_abi.h, TFL_CAP_IPC_MEMORY).
//
// Producer: a storage's first send replaces its DataPtr with one that wraps the
// allocator's (the pointer is unchanged); freeing it then keeps the block
// allocated in "limbo" until every consumer has released it (ipc_slots.h).
// Consumer: a received storage maps the producer's segment once per process and
// releases its slot when freed, after its device work is done. A received
// storage cannot be sent on (CUDA's rule), and sending a tensor back to its own
// producer gives it its original storage.
//
// Python reaches this through the torch_fl::_ipc_* operators (ipc.cpp);
// torch_fl/multiprocessing.py is the reducer.
#pragma once

#include <c10/core/Allocator.h>

namespace torch_fl {

// The allocator's own DataPtr behind `data`: itself unless the storage was sent.
const c10::DataPtr& allocator_data_ptr(const c10::DataPtr& data);
// Frees the blocks of sent storages that every consumer has released; returns how many.
int64_t collect_sent_storages();

}  // namespace torch_fl
