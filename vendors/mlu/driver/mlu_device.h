// Internals of the simulated MLU shared by its runtime API and its op library:
// the chip (devices and their memory) and how device work is enqueued.
#pragma once

#include <memory>
#include <string>

#include "chip.h"
#include "mlu_runtime.h"
#include "work_queue.h"

struct mluQueue_ {
  std::unique_ptr<torch_fl::sim::WorkQueue> work;
};

struct mluNotifier_ {
  std::shared_ptr<torch_fl::sim::Marker> marker;
};

namespace mlu_sim {

// The devices, created on first use from TORCH_FL_MLU_* (see mlu_runtime.h).
const torch_fl::sim::Chip& chip();

// Records detail for mluGetLastErrorDetail() and returns `ret`.
mluRet_t fail(mluRet_t ret, std::string detail);

// Enqueues device work on `queue`; the work runs with the device's memory
// accessible and reports a failure by returning its message.
inline void enqueue(mluQueue_t queue, torch_fl::sim::WorkQueue::Task work) {
  chip().enqueue(*queue->work, std::move(work));
}

}  // namespace mlu_sim
