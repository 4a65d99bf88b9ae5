// Device storage helpers shared by resize_, set_ and the hooks.
#pragma once

#include <c10/core/StorageImpl.h>

#include <cstddef>

namespace torch_fl {

// Grows (or shrinks) a device storage to new_bytes, keeping the common prefix
// of its contents (copied on the device, in stream order).
void resize_storage_bytes(c10::StorageImpl* storage, size_t new_bytes);

}  // namespace torch_fl
