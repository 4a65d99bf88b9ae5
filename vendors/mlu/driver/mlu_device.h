// Internals of the simulated MLU shared by its runtime API and its op library:
// the chip (devices and their memory) and how device work is enqueued.
#pragma once

#include <utility>

#include "chip_calls.h"
#include "mlu_runtime.h"

struct mluQueue_ : torch_fl::sim::QueueHandle {};
struct mluNotifier_ : torch_fl::sim::MarkerHandle {};

namespace mlu_sim {

// The devices, created on first use from TORCH_FL_MLU_* (see mlu_runtime.h).
const torch_fl::sim::Chip& chip();

// Records detail for mluGetLastErrorDetail() and returns the status.
using torch_fl::sim::fail;

// Enqueues device work on `queue`; the work runs with the device's memory
// accessible and reports a failure by returning its message.
template <class Work>
void enqueue(mluQueue_t queue, Work&& work) {
  chip().enqueue(*queue->work, std::forward<Work>(work));
}

}  // namespace mlu_sim
