// DeviceCclBackend's end of life over the fake library (fake_ccl.h): the
// watchdog's timeout aborts the group, and nothing runs after shutdown.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
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

#ifdef TORCH_FL_C10D_ABORT_HOOKS
// torch >= 2.14: the group's abort hooks run when the watchdog gives up on a Work
// (a timeout), and not when the caller aborts the group itself.
TEST(DeviceCclBackend, AbortHooksRunBeforeATimeoutAbortsTheGroupNotForARequestedAbort) {
  REQUIRE_TWO_DEVICES();
  const c10::Device device(c10::DeviceType::PrivateUse1, 0);
  std::atomic<int> runs{0};
  auto timing_out = c10::make_intrusive<DeviceCclBackend>(kFake, new_unique_id(), 0, 1, "fakeccl",
                                                          std::chrono::milliseconds(20));
  timing_out->registerAbortHook(7, [&] { ++runs; });
  std::vector<at::Tensor> slow{at::ones({static_cast<int64_t>(kSlowCount)}, at::TensorOptions().device(device))};
  auto work = static_cast<c10d::Backend&>(*timing_out).allreduce(slow);
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (work->isSuccess() && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_FALSE(work->isSuccess()) << "the watchdog never gave up on the slow all_reduce";
  EXPECT_GE(runs.load(), 1) << "the abort hook did not run before the timeout's abort";
  torch_fl::synchronize_device(0);

  runs = 0;
  auto asked = c10::make_intrusive<DeviceCclBackend>(kFake, new_unique_id(), 0, 1, "fakeccl",
                                                     std::chrono::milliseconds(10000));
  asked->registerAbortHook(7, [&] { ++runs; });
  asked->registerAbortHook(8, [&] { ++runs; });
  asked->unregisterAbortHook(8);
  asked->abort();
  EXPECT_EQ(runs.load(), 0) << "an abort the caller asked for ran the failure hooks";
}
#endif

#ifdef TORCH_FL_C10D_COMPLETION_HOOKS
// torch >= 2.15: a completion hook fires once for each Work the watchdog sees
// complete, with the Work's completion key, and stops when unregistered.
TEST(DeviceCclBackend, CompletionHooksReportEachCompletedWorkByItsKeyUntilUnregistered) {
  REQUIRE_TWO_DEVICES();
  const c10::Device device(c10::DeviceType::PrivateUse1, 0);
  auto backend = c10::make_intrusive<DeviceCclBackend>(kFake, new_unique_id(), 0, 1, "fakeccl",
                                                       std::chrono::milliseconds(10000));
  c10d::Backend& as_backend = *backend;
  EXPECT_TRUE(as_backend.supportsCompletionHooks());
  EXPECT_TRUE(as_backend.supportsAbortHooks());
  EXPECT_FALSE(as_backend.isInitialized()) << "the communicator is made at the first collective";
  std::mutex mutex;
  std::vector<uint64_t> keys;
  as_backend.registerCompletionHook(3, [&](const c10d::CompletionHookArgs& args) {
    const std::lock_guard<std::mutex> lock(mutex);
    keys.push_back(args.completionKey);
    EXPECT_FALSE(args.duration_ms.has_value());
  });
  std::vector<at::Tensor> t{at::ones({8}, at::TensorOptions().device(device))};
  auto first = as_backend.allreduce(t);
  auto second = as_backend.allreduce(t);
  first->wait();
  second->wait();
  EXPECT_TRUE(as_backend.isInitialized());
  const auto reported = [&] {
    const std::lock_guard<std::mutex> lock(mutex);
    return keys.size();
  };
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (reported() < 2 && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  {
    const std::lock_guard<std::mutex> lock(mutex);
    EXPECT_EQ(keys, (std::vector<uint64_t>{first->getCompletionKey(), second->getCompletionKey()}));
  }
  // Calls of a coalesced group report each its own Work (the flight recorder tracks the calls).
  as_backend.startCoalescing();
  auto in_group_a = as_backend.allreduce(t);
  auto in_group_b = as_backend.allreduce(t);
  auto group = as_backend.endCoalescing();
  group->wait();
  const auto then = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (reported() < 5 && std::chrono::steady_clock::now() < then) {  // the calls' two and the group's own
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  {
    const std::lock_guard<std::mutex> lock(mutex);
    ASSERT_EQ(keys.size(), 5u) << "a coalesced call's Work was never reported complete, or one twice";
    for (const auto& work : {in_group_a, in_group_b, group}) {
      EXPECT_NE(std::find(keys.begin(), keys.end(), work->getCompletionKey()), keys.end());
    }
  }
  as_backend.unregisterCompletionHook(3);
  as_backend.allreduce(t)->wait();
  torch_fl::synchronize_device(0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // six of the watchdog's polls
  EXPECT_EQ(reported(), 5u) << "a hook ran after it was unregistered";
  backend->shutdown();
}
#endif

}  // namespace
