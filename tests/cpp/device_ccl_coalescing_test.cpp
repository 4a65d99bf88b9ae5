// DeviceCclBackend's startCoalescing/endCoalescing (batch_isend_irecv) over the
// fake library (fake_ccl.h): the calls in between issue as one group when it ends.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "fake_ccl.h"

namespace {

using namespace fake_ccl;

TEST(DeviceCclBackend, CoalescedSendsAndReceivesIssueAsOneGroupWhenItEnds) {
  REQUIRE_TWO_DEVICES();
  on_two_ranks([](int rank, c10d::Backend& backend, c10::Device device) {
    // batch_isend_irecv: both ranks send first, then receive. Without the group the
    // receives would wait behind sends a library buffers only so far.
    const int peer = 1 - rank;
    std::vector<at::Tensor> outgoing{on(device, {10.0f * rank, 10.0f * rank + 1})};
    std::vector<at::Tensor> incoming{on(device, {-1, -1})};
    ASSERT_TRUE(backend.supportsCoalescing());
    backend.startCoalescing();
    // A list all_gather copies its rows out after the call: it cannot be coalesced.
    std::vector<std::vector<at::Tensor>> rows{{on(device, {0}), on(device, {0})}};
    std::vector<at::Tensor> row{on(device, {1})};
    try {
      backend.allgather(rows, row);
      ADD_FAILURE() << "a list all_gather was coalesced";
    } catch (const c10::Error& e) {
      EXPECT_NE(std::string(e.what()).find("cannot run between startCoalescing and endCoalescing"),
                std::string::npos) << e.what();
    }
    auto send = backend.send(outgoing, peer, 0);
    auto receive = backend.recv(incoming, peer, 0);
    // Not issued until the group ends: its wait says so instead of returning early.
    EXPECT_THROW(receive->wait(), c10::Error);
    auto group = backend.endCoalescing();
    group->wait();
    receive->wait();
    EXPECT_EQ(values(incoming[0]), (std::vector<float>{10.0f * peer, 10.0f * peer + 1}));
    EXPECT_EQ(values(receive->getFuture()->value().toTensorList()[0]), values(incoming[0]));
  });
}

}  // namespace
