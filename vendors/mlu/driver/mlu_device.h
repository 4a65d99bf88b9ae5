// Internals of the simulated MLU shared by its runtime API and its op library:
// the per-device state and how device work is enqueued.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "device_arena.h"
#include "mlu_runtime.h"
#include "work_queue.h"

struct mluQueue_ {
  std::unique_ptr<torch_fl::sim::WorkQueue> work;
};

struct mluNotifier_ {
  std::shared_ptr<torch_fl::sim::Marker> marker;
};

namespace mlu_sim {

struct Device {
  int index;
  std::unique_ptr<torch_fl::sim::DeviceArena> arena;
};

// All devices, created on first use from the environment.
std::vector<Device>& devices();
Device* device_at(int index);
Device* device_owning(const void* ptr);

// Records detail for mluGetLastErrorDetail() and returns `ret`.
mluRet_t fail(mluRet_t ret, std::string detail);

// Enqueues device work on `queue`; the work runs with the device's memory
// accessible and reports a failure by returning its message.
void enqueue(mluQueue_t queue, torch_fl::sim::WorkQueue::Task work);

}  // namespace mlu_sim
