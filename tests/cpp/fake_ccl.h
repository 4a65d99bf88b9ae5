// An in-process fake of a vendor collective library (the TflCollectives table of
// torch_fl/collectives_abi.h), for DeviceCclBackend's tests (device_ccl_*_test.cpp),
// over whichever vendor is built: two ranks are two threads of this process, each
// on its own device, and the fake moves their data through host memory. It stands
// where NCCL stands for the nvidia vendor, so the backend's own part (checks,
// stream ordering, temporaries, splits, work and future, errors) runs in CI
// without a GPU; NCCL itself runs in `make gpu-check`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include <ATen/ATen.h>
#include <torch/csrc/distributed/c10d/Backend.hpp>

#include <torch_fl/collectives_abi.h>
#include <torch_fl/device.h>
#include "driver.h"

#include "two_ranks.h"

namespace fake_ccl {

constexpr size_t kFailingCount = 12345;  // an all_reduce of this many elements fails
constexpr size_t kSlowCount = 23456;     // one of this many keeps its stream busy for a while after

// The fake library's table ("FakeCCL 1.0").
extern const TflCollectives kFake;

// A unique id for a new group of the fake library.
std::vector<uint8_t> new_unique_id();

#define REQUIRE_TWO_DEVICES()                                                                        \
  if (torch_fl::device_count() < 2)                                                                  \
  GTEST_SKIP() << "needs 2 " << torch_fl::driver().vendor << " devices, this machine has "          \
               << static_cast<int>(torch_fl::device_count())

// Runs `body(rank, backend, device)` on two ranks at once, rank r on device r,
// each with a DeviceCclBackend ("fakeccl") of one group over the fake library.
void on_two_ranks(const two_ranks::Body& body);

using two_ranks::values;
// `data` as a float32 tensor on `device`.
at::Tensor on(const c10::Device& device, std::vector<float> data);

}  // namespace fake_ccl
