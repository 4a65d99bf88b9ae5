// Internals of the simulated NPU shared by its runtime API and its op library.
#pragma once

#include <memory>
#include <string>

#include "chip.h"
#include "npu_runtime.h"
#include "work_queue.h"

struct npurtStream_ {
  std::unique_ptr<torch_fl::sim::WorkQueue> work;
};

struct npurtEvent_ {
  std::shared_ptr<torch_fl::sim::Marker> marker;
};

namespace npu_sim {

// The devices, created on first use from TORCH_FL_NPU_* (see npu_runtime.h).
const torch_fl::sim::Chip& chip();

// Records the message for npurtGetRecentErrMsg() and returns `error`.
npuError fail(npuError error, std::string message);

}  // namespace npu_sim
