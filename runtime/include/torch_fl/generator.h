// The device random generator: a counter-based (seed, offset) pair. Random
// kernels receive the pair, so results depend only on seed and offset, never
// on which worker thread runs them or when.
#pragma once

#include <ATen/core/Generator.h>

#include <cstdint>
#include <optional>

namespace torch_fl {

struct RngState {
  uint64_t seed;
  uint64_t offset;
};

const at::Generator& default_generator(c10::DeviceIndex device);
at::Generator make_generator(c10::DeviceIndex device);
// Reserves `increment` offsets from gen (or the current device's default generator).
RngState next_rng_state(const std::optional<at::Generator>& gen, uint64_t increment = 1);

}  // namespace torch_fl
