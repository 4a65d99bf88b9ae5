// DeviceCclBackend's end of life over the fake library (fake_ccl.h): the
// watchdog's timeout aborts the group, and nothing runs after shutdown.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <ATen/ATen.h>

#include <torch_fl/device.h>
#include <torch_fl/stream.h>

#include "collectives/device_ccl_backend.h"
#include "fake_ccl.h"

namespace {

using namespace fake_ccl;
using torch_fl::collectives::DeviceCclBackend;

TEST(DeviceCclBackend, TheWatchdogFailsAWorkNotCompleteWithinTheGroupsTimeoutAndAbortsTheGroup) {
  REQUIRE_TWO_DEVICES();
  const std::vector<uint8_t> id = new_unique_id();
  auto backend = c10::make_intrusive<DeviceCclBackend>(kFake, id, 0, 1, "fakeccl", std::chrono::milliseconds(20));
  c10d::Backend& as_backend = *backend;
  const c10::Device device(c10::DeviceType::PrivateUse1, 0);
  std::vector<at::Tensor> slow{at::ones({static_cast<int64_t>(kSlowCount)}, at::TensorOptions().device(device))};
  auto work = as_backend.allreduce(slow);
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (work->isSuccess() && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::string message = "(no error)";
  try {
    work->wait();
  } catch (const c10::DistBackendError& e) {
    message = e.what_without_backtrace();
  }
  EXPECT_NE(message.find("all_reduce (fakeccl, rank 0 of 1) failed: not complete after 20 ms (the group's timeout"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("its communicator was aborted"), std::string::npos) << message;
  std::vector<at::Tensor> later{at::ones({1}, at::TensorOptions().device(device))};
  try {
    as_backend.allreduce(later);
    ADD_FAILURE() << "a collective ran on an aborted group";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("shut down or aborted"), std::string::npos) << e.what();
  }
  torch_fl::synchronize_device(0);
}

TEST(DeviceCclBackend, ACollectiveAfterShutdownIsRefused) {
  REQUIRE_TWO_DEVICES();
  const std::vector<uint8_t> id = new_unique_id();
  auto backend = c10::make_intrusive<DeviceCclBackend>(kFake, id, 0, 1, "fakeccl", std::chrono::milliseconds(100));
  backend->shutdown();
  std::vector<at::Tensor> t{at::ones({1}, at::TensorOptions().device(c10::Device(c10::DeviceType::PrivateUse1, 0)))};
  c10d::Backend& as_backend = *backend;
  try {
    as_backend.allreduce(t);
    ADD_FAILURE() << "a collective ran after shutdown";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("shut down or aborted"), std::string::npos) << e.what();
  }
}

}  // namespace
