// DeviceCclBackend's refusals and the library's errors (fake_ccl.h): each names
// the collective, the rank and the library, and leaves the group usable.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "fake_ccl.h"

namespace {

using namespace fake_ccl;

TEST(DeviceCclBackend, BadInputAndLibraryErrorsNameTheCollectiveRankAndLibrary) {
  REQUIRE_TWO_DEVICES();
  on_two_ranks([](int rank, c10d::Backend& backend, c10::Device device) {
    auto message_of = [](const std::function<void()>& call) -> std::string {
      try {
        call();
      } catch (const c10::Error& e) {
        return e.what_without_backtrace();
      }
      return "(no error)";
    };
    const std::string who = "all_reduce (fakeccl, rank " + std::to_string(rank) + " of 2)";
    // int16: in no spec's distributed.dtypes (Gloo has no int16 reductions, so staged backends cannot take it).
    std::vector<at::Tensor> shorts{at::zeros({2}, at::TensorOptions().dtype(at::kShort).device(device))};
    EXPECT_NE(message_of([&] { backend.allreduce(shorts); }).find(who + ": dtype int16 is not supported"),
              std::string::npos);
    std::vector<at::Tensor> transposed{at::zeros({4, 4}, at::TensorOptions().device(device)).t()};
    EXPECT_NE(message_of([&] { backend.allreduce(transposed); }).find("tensors must be contiguous"), std::string::npos);
    std::vector<at::Tensor> ints{at::zeros({2}, at::TensorOptions().dtype(at::kInt).device(device))};
    c10d::AllreduceOptions average;
    average.reduceOp = c10d::ReduceOp(c10d::ReduceOp::AVG);
    EXPECT_NE(message_of([&] { backend.allreduce(ints, average); }).find("ReduceOp.AVG takes floating-point"),
              std::string::npos);
    std::vector<at::Tensor> cpu{at::zeros({2})};
    EXPECT_NE(message_of([&] { backend.allreduce(cpu); }).find("tensors on cpu are not this backend's"),
              std::string::npos);
    std::vector<at::Tensor> failing{at::zeros({static_cast<int64_t>(kFailingCount)}, at::TensorOptions().device(device))};
    const std::string failed = message_of([&] { backend.allreduce(failing); });
    EXPECT_NE(failed.find(who + " failed: FakeCCL 1.0 all_reduce: fake failure"), std::string::npos) << failed;
    // The communicator is on this rank's device: another device needs a group of its own.
    const c10::Device other(c10::DeviceType::PrivateUse1, static_cast<c10::DeviceIndex>(1 - rank));
    std::vector<at::Tensor> elsewhere{at::zeros({2}, at::TensorOptions().device(other))};
    EXPECT_NE(message_of([&] { backend.allreduce(elsewhere); }).find("needs a process group of its own"),
              std::string::npos);
    // Nothing was lost: the group still works.
    std::vector<at::Tensor> t{on(device, {1})};
    backend.allreduce(t)->wait();
    EXPECT_EQ(values(t[0]), std::vector<float>{2});
  });
}

}  // namespace
