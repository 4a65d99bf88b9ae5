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
// What a random op that runs on the CPU fallback draws from: a CPU generator
// seeded from one offset reserved on the device generator, so that the device's
// manual_seed and get/set_rng_state make fallen-back ops repeat too.
at::Generator cpu_generator_from(const at::Generator& device_generator);

}  // namespace torch_fl
