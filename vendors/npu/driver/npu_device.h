// Internals of the simulated NPU shared by its runtime API and its op library.
#pragma once

#include "chip_calls.h"
#include "npu_runtime.h"

struct npurtStream_ : torch_fl::sim::QueueHandle {};
struct npurtEvent_ : torch_fl::sim::MarkerHandle {};

namespace npu_sim {

// The devices, created on first use from TORCH_FL_NPU_* (see npu_runtime.h).
const torch_fl::sim::Chip& chip();

// Records the message for npurtGetRecentErrMsg() and returns the error.
using torch_fl::sim::fail;

}  // namespace npu_sim
