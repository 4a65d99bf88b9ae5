// DeviceCclBackend's collectives over the fake library (fake_ccl.h): each places
// every rank's data where c10d says, after what the caller's stream wrote, in
// place where the library has an in-place form.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include <ATen/ATen.h>

#include "fake_ccl.h"

namespace {

using namespace fake_ccl;

TEST(DeviceCclBackend, AllReduceSeesWhatTheCallersStreamWroteAndEachOpReduces) {
  REQUIRE_TWO_DEVICES();
  on_two_ranks([](int rank, c10d::Backend& backend, c10::Device device) {
    // Written on the caller's stream just before: the collective stream must wait for it.
    std::vector<at::Tensor> big{at::ones({1 << 20}, at::TensorOptions().device(device)).mul_(rank + 1)};
    c10d::AllreduceOptions sum;
    backend.allreduce(big, sum)->wait();
    const at::Tensor host = big[0].cpu();
    EXPECT_TRUE(host.eq(3.0).all().item<bool>()) << host.min().item<float>();
    for (auto [op, expected] : {std::pair{c10d::ReduceOp::MAX, 2.0f}, {c10d::ReduceOp::MIN, 1.0f},
                                {c10d::ReduceOp::PRODUCT, 2.0f}, {c10d::ReduceOp::AVG, 1.5f}}) {
      std::vector<at::Tensor> t{on(device, {static_cast<float>(rank + 1)})};
      c10d::AllreduceOptions options;
      options.reduceOp = c10d::ReduceOp(op);
      auto work = backend.allreduce(t, options);
      work->wait();
      EXPECT_EQ(values(t[0]), std::vector<float>{expected}) << static_cast<int>(op);
      // The future carries the reduced tensor (DDP's reducer reads it from there).
      EXPECT_EQ(values(work->getFuture()->value().toTensorList()[0]), std::vector<float>{expected});
    }
  });
}

TEST(DeviceCclBackend, GathersScattersAndAllToAllPlaceEachRanksData) {
  REQUIRE_TWO_DEVICES();
  on_two_ranks([](int rank, c10d::Backend& backend, c10::Device device) {
    const float r = static_cast<float>(rank);
    // all_gather into a list, and into one tensor
    std::vector<at::Tensor> input{on(device, {r, r + 10})};
    std::vector<std::vector<at::Tensor>> gathered{{on(device, {-1, -1}), on(device, {-1, -1})}};
    backend.allgather(gathered, input)->wait();
    EXPECT_EQ(values(gathered[0][0]), (std::vector<float>{0, 10}));
    EXPECT_EQ(values(gathered[0][1]), (std::vector<float>{1, 11}));
    at::Tensor flat = on(device, {-1, -1, -1, -1});
    backend._allgather_base(flat, input[0])->wait();
    EXPECT_EQ(values(flat), (std::vector<float>{0, 10, 1, 11}));
    // reduce_scatter: block r of the sum
    at::Tensor whole = on(device, {r, r, 10 * r, 10 * r});
    at::Tensor mine = on(device, {-1, -1});
    backend._reduce_scatter_base(mine, whole)->wait();
    EXPECT_EQ(values(mine), rank == 0 ? (std::vector<float>{1, 1}) : (std::vector<float>{10, 10}));
    std::vector<at::Tensor> out{on(device, {-1})};
    std::vector<std::vector<at::Tensor>> pieces{{on(device, {r + 1}), on(device, {10 * (r + 1)})}};
    backend.reduce_scatter(out, pieces)->wait();
    EXPECT_EQ(values(out[0]), std::vector<float>{rank == 0 ? 3.0f : 30.0f});
    // all_to_all_single with uneven splits: rank 0 sends 1 row to 0 and 2 to 1; rank 1 sends 2 and 1.
    at::Tensor send_rows = on(device, {100 * r, 100 * r + 1, 100 * r + 2});
    at::Tensor receive_rows = on(device, {-1, -1, -1});
    std::vector<int64_t> input_splits = rank == 0 ? std::vector<int64_t>{1, 2} : std::vector<int64_t>{2, 1};
    std::vector<int64_t> output_splits = rank == 0 ? std::vector<int64_t>{1, 2} : std::vector<int64_t>{2, 1};
    backend.alltoall_base(receive_rows, send_rows, output_splits, input_splits)->wait();
    EXPECT_EQ(values(receive_rows), rank == 0 ? (std::vector<float>{0, 100, 101}) : (std::vector<float>{1, 2, 102}));
    // in place: the output is the input
    at::Tensor in_place = on(device, {r, 10 + r});
    std::vector<int64_t> none;
    backend.alltoall_base(in_place, in_place, none, none)->wait();
    EXPECT_EQ(values(in_place), rank == 0 ? (std::vector<float>{0, 1}) : (std::vector<float>{10, 11}));
    // broadcast, gather and scatter from rank 1
    std::vector<at::Tensor> b{on(device, {r})};
    c10d::BroadcastOptions from_one;
    from_one.rootRank = 1;
    backend.broadcast(b, from_one)->wait();
    EXPECT_EQ(values(b[0]), std::vector<float>{1});
    std::vector<std::vector<at::Tensor>> at_root;
    if (rank == 1) at_root = {{on(device, {-1}), on(device, {-1})}};
    std::vector<at::Tensor> mine_only{on(device, {r + 5})};
    c10d::GatherOptions gather_at_one;
    gather_at_one.rootRank = 1;
    backend.gather(at_root, mine_only, gather_at_one)->wait();
    if (rank == 1) {
      EXPECT_EQ(values(at_root[0][0]), std::vector<float>{5});
      EXPECT_EQ(values(at_root[0][1]), std::vector<float>{6});
    }
    std::vector<at::Tensor> scattered{on(device, {-1})};
    std::vector<std::vector<at::Tensor>> to_scatter;
    if (rank == 1) to_scatter = {{on(device, {40}), on(device, {41})}};
    c10d::ScatterOptions scatter_from_one;
    scatter_from_one.rootRank = 1;
    backend.scatter(scattered, to_scatter, scatter_from_one)->wait();
    EXPECT_EQ(values(scattered[0]), std::vector<float>{40.0f + r});
    // send/recv
    std::vector<at::Tensor> message{rank == 0 ? on(device, {7, 8}) : on(device, {-1, -1})};
    if (rank == 0) {
      backend.send(message, 1, 0)->wait();
    } else {
      backend.recv(message, 0, 0)->wait();
      EXPECT_EQ(values(message[0]), (std::vector<float>{7, 8}));
    }
    backend.barrier(c10d::BarrierOptions())->wait();
  });
}

TEST(DeviceCclBackend, InPlaceFormsRunAndMismatchedDtypesAreRefusedBeforeAnythingIsQueued) {
  REQUIRE_TWO_DEVICES();
  on_two_ranks([](int rank, c10d::Backend& backend, c10::Device device) {
    // FSDP2's all-gather: the input is the rank's block of the output.
    at::Tensor gathered = on(device, {-1, -1, -1, -1});
    at::Tensor mine = gathered.narrow(0, 2 * rank, 2);
    mine.copy_(on(device, {rank + 1.0f, rank + 1.0f}));
    backend._allgather_base(gathered, mine)->wait();
    EXPECT_EQ(values(gathered), (std::vector<float>{1, 1, 2, 2}));
    // reduce_scatter whose output is the rank's block of the input.
    at::Tensor whole = on(device, {1, 2, 3, 4});
    at::Tensor block = whole.narrow(0, 2 * rank, 2);
    backend._reduce_scatter_base(block, whole)->wait();
    EXPECT_EQ(values(block), rank == 0 ? (std::vector<float>{2, 4}) : (std::vector<float>{6, 8}));
    // An int8 output for a float32 input would be overrun: refused, nothing queued
    // (int8: a dtype every spec's distributed.dtypes lists, so only the mismatch is at fault).
    std::vector<at::Tensor> outputs{at::zeros({4}, at::TensorOptions().dtype(at::kChar).device(device))};
    std::vector<at::Tensor> inputs{on(device, {1, 2})};
    try {
      backend.allgather_into_tensor_coalesced(outputs, inputs);
      ADD_FAILURE() << "mismatched dtypes were accepted";
    } catch (const c10::Error& e) {
      EXPECT_NE(std::string(e.what()).find("inputs and outputs must share one dtype"), std::string::npos) << e.what();
    }
    std::vector<at::Tensor> t{on(device, {1})};
    backend.allreduce(t)->wait();  // the ranks are still in step
    EXPECT_EQ(values(t[0]), std::vector<float>{2});
  });
}

}  // namespace
