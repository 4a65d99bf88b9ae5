// The runtime's c10d backend for a chip without a collective library
// (StagedBackend, `distributed: {transport: gloo_staged}`), over whichever vendor
// is built, with an in-process fake host backend where a group has Gloo: two
// ranks are two threads of this process, and the fake meets their host tensors
// in memory. The backend's own part runs here: the checks, the staging to host
// and back, the order of collectives on one tensor, the ranks' agreement check,
// shutdown. Gloo itself runs in tests/python/test_distributed.py.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include <torch_fl/backend_info.h>
#include <torch_fl/device.h>

#include "collectives/staged_backend.h"
#include "two_ranks.h"

namespace {

using torch_fl::collectives::StagedBackend;

// What the ranks share: a rendezvous exchanging each rank's host tensor.
struct HostWorld : two_ranks::Exchange<at::Tensor> {
  explicit HostWorld(int ranks) { size = ranks; }
};

// A host collective that ran in the call (the fake's calls block until every rank has made them).
class DoneWork final : public c10d::Work {
 public:
  bool isCompleted() override { return true; }
  bool wait(std::chrono::milliseconds) override { return true; }
};

// Gloo's place: the collectives the tests use, on host tensors.
class FakeHost final : public c10d::Backend {
 public:
  FakeHost(std::shared_ptr<HostWorld> world, int rank) : c10d::Backend(rank, world->size), world_(std::move(world)) {}

  c10::intrusive_ptr<c10d::Work> allgather(std::vector<std::vector<at::Tensor>>& outputs,
                                           std::vector<at::Tensor>& inputs, const c10d::AllgatherOptions&) override {
    const auto all = world_->exchange(getRank(), inputs.at(0).clone());
    for (size_t r = 0; r < all.size(); ++r) outputs.at(0).at(r).copy_(all[r]);
    return c10::make_intrusive<DoneWork>();
  }

  c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor>& tensors, const c10d::AllreduceOptions&) override {
    EXPECT_TRUE(tensors.at(0).is_cpu());  // staged: the host backend sees host tensors only
    const auto all = world_->exchange(getRank(), tensors.at(0).clone());
    tensors.at(0).copy_(at::stack(all).sum(0));
    return c10::make_intrusive<DoneWork>();
  }

 private:
  const std::shared_ptr<HostWorld> world_;
};

c10::intrusive_ptr<StagedBackend> staged_backend(const std::shared_ptr<HostWorld>& world, int rank) {
  // The host twins are pinned, which takes the device's name, as torch_fl's import
  // gives it (torch.utils.rename_privateuse1_backend).
  static const bool named = [] {
    c10::register_privateuse1_backend(torch_fl::backend_info().device);
    return true;
  }();
  (void)named;
  return c10::make_intrusive<StagedBackend>(c10::make_intrusive<FakeHost>(world, rank), "staged");
}

// Each test starts with this: skipped, with the reason, on a machine without the vendor's
// device (a GPU vendor built here).
#define REQUIRE_A_DEVICE()                                                                  \
  if (torch_fl::device_count() < 1)                                                         \
  GTEST_SKIP() << "needs a " << torch_fl::backend_info().vendor << " device, this machine has none"

c10::Device device_of(int rank) {
  return c10::Device(c10::DeviceType::PrivateUse1, static_cast<c10::DeviceIndex>(rank % torch_fl::device_count()));
}

// Runs `body(rank, backend, device)` on two ranks at once, rank r on device r (or
// on the one device there is).
void on_two_ranks(const two_ranks::Body& body) {
  auto world = std::make_shared<HostWorld>(2);
  two_ranks::run({staged_backend(world, 0), staged_backend(world, 1)}, {device_of(0), device_of(1)}, body);
}

using two_ranks::values;

std::string message_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const c10::Error& e) {
    return e.what_without_backtrace();
  }
  return "(no error)";
}

TEST(StagedBackend, ADeviceAllReduceIsStagedThroughTheHostAndCopiedBackACpuOneIsNot) {
  REQUIRE_A_DEVICE();
  on_two_ranks([](int rank, c10d::Backend& backend, c10::Device device) {
    // Written on the caller's stream just before: the copy to host must wait for it.
    std::vector<at::Tensor> big{at::ones({1 << 20}, at::TensorOptions().device(device)).mul_(rank + 1)};
    auto work = backend.allreduce(big);
    work->wait();
    EXPECT_TRUE(big[0].cpu().eq(3.0).all().item<bool>());
    // The future carries the device tensor itself (DDP's reducer reads it from there).
    const at::Tensor result = work->getFuture()->value().toTensorList()[0];
    EXPECT_TRUE(result.is_same(big[0]));
    std::vector<at::Tensor> host{at::full({2}, static_cast<float>(rank + 1))};
    backend.allreduce(host)->wait();
    EXPECT_EQ(values(host[0]), (std::vector<float>{3, 3}));
  });
}

TEST(StagedBackend, ACollectiveReadingWhatAnEarlierOneWritesWaitsForItsCopyBack) {
  REQUIRE_A_DEVICE();
  on_two_ranks([](int, c10d::Backend& backend, c10::Device device) {
    std::vector<at::Tensor> t{at::ones({3}, at::TensorOptions().device(device))};
    auto first = backend.allreduce(t);
    auto second = backend.allreduce(t);  // not waited for in between: it must read the first's result
    second->wait();
    first->wait();
    EXPECT_EQ(values(t[0]), (std::vector<float>{4, 4, 4}));
  });
}

TEST(StagedBackend, RanksThatDisagreeOnTheShapeFailTogetherNamingEachRanksCall) {
  REQUIRE_A_DEVICE();
  on_two_ranks([](int rank, c10d::Backend& backend, c10::Device device) {
    std::vector<at::Tensor> t{at::ones({2 + rank}, at::TensorOptions().device(device))};
    const std::string failed = message_of([&] { backend.allreduce(t)->wait(); });
    EXPECT_NE(failed.find("all_reduce (staged, rank " + std::to_string(rank) +
                          " of 2) failed: the ranks called different collectives or shapes (rank 0: all_reduce of "
                          "float32 with 2 elements; rank 1: all_reduce of float32 with 3 elements)"),
              std::string::npos)
        << failed;
    std::vector<at::Tensor> same{at::ones({2}, at::TensorOptions().device(device))};
    backend.allreduce(same)->wait();  // the ranks are still in step
    EXPECT_EQ(values(same[0]), (std::vector<float>{2, 2}));
  });
}

TEST(StagedBackend, TensorsItDoesNotTakeAreRefusedNamingTheCollectiveAndNothingRunsAfterShutdown) {
  REQUIRE_A_DEVICE();
  auto backend = staged_backend(std::make_shared<HostWorld>(1), 0);
  c10d::Backend& as_backend = *backend;
  const c10::Device device = device_of(0);
  const std::string who = "all_reduce (staged, rank 0 of 1): ";
  // int16: in no spec's distributed.dtypes (Gloo has no int16 reductions).
  std::vector<at::Tensor> shorts{at::zeros({2}, at::TensorOptions().dtype(at::kShort).device(device))};
  EXPECT_NE(message_of([&] { as_backend.allreduce(shorts); }).find(who + "dtype int16 is not supported"),
            std::string::npos);
  std::vector<at::Tensor> transposed{at::zeros({4, 4}, at::TensorOptions().device(device)).t()};
  EXPECT_NE(message_of([&] { as_backend.allreduce(transposed); }).find(who + "tensors must be contiguous"),
            std::string::npos);
  std::vector<at::Tensor> mixed{at::zeros({2}, at::TensorOptions().device(device)), at::zeros({2})};
  EXPECT_NE(message_of([&] { as_backend.allreduce(mixed); }).find(": one collective takes tensors of one device"),
            std::string::npos);
  std::vector<at::Tensor> fine{at::ones({2}, at::TensorOptions().device(device))};
  as_backend.allreduce(fine)->wait();
  EXPECT_EQ(values(fine[0]), (std::vector<float>{1, 1}));
  backend->shutdown();
  EXPECT_NE(message_of([&] { as_backend.allreduce(fine); }).find("the process group has been shut down"),
            std::string::npos);
}

}  // namespace
