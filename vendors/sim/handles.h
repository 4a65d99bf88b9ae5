// What a simulated chip's queue and event handles hold. Each chip's API names
// its handles its own way (mluQueue_t, npurtStream, ...) and derives its
// handle structs from these, so the chips share one implementation.
#pragma once

#include <memory>

#include "work_queue.h"

namespace torch_fl::sim {

struct QueueHandle {
  std::unique_ptr<WorkQueue> work;
};

struct MarkerHandle {
  std::shared_ptr<Marker> marker;
};

}  // namespace torch_fl::sim
