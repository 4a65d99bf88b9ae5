// The runtime's c10d backend for a vendor collective library (DeviceCclBackend,
// `distributed: {transport: vendor_ccl}`), over whichever vendor is built, with
// an in-process fake library: two ranks are two threads of this process, each on
// its own device, and the fake moves their data through host memory. It stands
// where NCCL stands for the nvidia vendor, so the backend's own part (checks,
// stream ordering, temporaries, splits, work and future, errors) runs in CI
// without a GPU; NCCL itself runs in `make gpu-check`.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <ATen/ATen.h>
#include <c10/core/DeviceGuard.h>

#include <torch_fl/collectives_abi.h>
#include <torch_fl/device.h>
#include <torch_fl/driver.h>
#include <torch_fl/stream.h>

#include "collectives/device_ccl_backend.h"

namespace {

using torch_fl::collectives::DeviceCclBackend;

constexpr tflStatus kFakeFailure = 7;
constexpr size_t kFailingCount = 12345;  // an all_reduce of this many elements fails
constexpr size_t kSlowCount = 23456;     // one of this many keeps its stream busy for a while after

// What the ranks share: a rendezvous exchanging each rank's bytes, and mailboxes for sends.
struct FakeWorld {
  int size = 0;
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::vector<char>> contributions;
  int arrived = 0;
  int generation = 0;
  std::map<std::pair<int, int>, std::deque<std::vector<char>>> mailboxes;  // (from, to) → messages

  // Every rank's bytes, once all have given theirs.
  std::vector<std::vector<char>> exchange(int rank, std::vector<char> mine) {
    std::unique_lock<std::mutex> lock(mutex);
    if (contributions.empty()) contributions.resize(size);
    contributions[rank] = std::move(mine);
    all_arrive(lock);
    std::vector<std::vector<char>> all = contributions;
    // A second round, so that no rank overwrites contributions another is still reading.
    all_arrive(lock);
    return all;
  }

  // Returns once every rank has called it (once per round).
  void all_arrive(std::unique_lock<std::mutex>& lock) {
    const int my_generation = generation;
    if (++arrived == size) {
      arrived = 0;
      ++generation;
      changed.notify_all();
    } else {
      changed.wait(lock, [&] { return generation != my_generation; });
    }
  }
};

struct FakeComm {
  std::shared_ptr<FakeWorld> world;
  int rank;
  int device;
};

std::mutex g_worlds_mutex;
std::map<std::string, std::shared_ptr<FakeWorld>> g_worlds;  // by unique id
std::atomic<int> g_next_id{0};
std::atomic<int> g_comms_made{0};

FakeComm* comm_of(tflComm comm) { return reinterpret_cast<FakeComm*>(comm); }

size_t bytes_of(size_t count, tflDtype dtype) {
  switch (dtype) {
    case TFL_DTYPE_INT64: case TFL_DTYPE_FLOAT64: return count * 8;
    case TFL_DTYPE_INT32: case TFL_DTYPE_FLOAT32: return count * 4;
    case TFL_DTYPE_FLOAT16: case TFL_DTYPE_BFLOAT16: return count * 2;
    default: return count;
  }
}

at::ScalarType scalar_type_of(tflDtype dtype) {
  switch (dtype) {
    case TFL_DTYPE_INT64: return at::kLong;
    case TFL_DTYPE_INT32: return at::kInt;
    case TFL_DTYPE_FLOAT64: return at::kDouble;
    case TFL_DTYPE_FLOAT16: return at::kHalf;
    case TFL_DTYPE_BFLOAT16: return at::kBFloat16;
    case TFL_DTYPE_INT8: return at::kChar;
    case TFL_DTYPE_UINT8: return at::kByte;
    case TFL_DTYPE_BOOL: return at::kBool;
    default: return at::kFloat;
  }
}

// Device memory to host, after the stream's earlier work (the fake blocks; NCCL would not).
std::vector<char> read(const void* device_data, size_t bytes, tflStream stream) {
  std::vector<char> host(bytes);
  const TflDriver& driver = torch_fl::driver();
  if (bytes > 0) driver.memcpy_d2h_async(host.data(), device_data, bytes, stream);
  driver.stream_synchronize(stream);
  return host;
}

void write(void* device_data, const std::vector<char>& host, size_t offset, size_t bytes, tflStream stream) {
  const TflDriver& driver = torch_fl::driver();
  if (bytes > 0) driver.memcpy_h2d_async(device_data, host.data() + offset, bytes, stream);
  driver.stream_synchronize(stream);
}

// The reduction of every rank's `count` elements starting at element `first`.
std::vector<char> reduce_all(const std::vector<std::vector<char>>& all, size_t first, size_t count, tflDtype dtype,
                             tflReduceOp op) {
  const at::ScalarType type = scalar_type_of(dtype);
  std::vector<at::Tensor> rows;
  for (const auto& bytes : all) {
    rows.push_back(at::from_blob(const_cast<char*>(bytes.data()) + bytes_of(first, dtype),
                                 {static_cast<int64_t>(count)}, at::TensorOptions().dtype(type)));
  }
  const at::Tensor stacked = at::stack(rows);
  at::Tensor reduced;
  switch (op) {
    case TFL_REDUCE_SUM: reduced = stacked.sum(0, false, type); break;
    case TFL_REDUCE_PRODUCT: reduced = stacked.prod(0, false, type); break;
    case TFL_REDUCE_MAX: reduced = std::get<0>(stacked.max(0)); break;
    case TFL_REDUCE_MIN: reduced = std::get<0>(stacked.min(0)); break;
    case TFL_REDUCE_AVG: reduced = stacked.mean(0); break;
  }
  reduced = reduced.contiguous();
  const char* data = static_cast<const char*>(reduced.data_ptr());
  return std::vector<char>(data, data + bytes_of(count, dtype));
}

thread_local bool t_in_group = false;
thread_local std::vector<std::function<void()>> t_grouped_receives;

tflStatus get_unique_id(void* id) {
  std::memset(id, 0, 16);
  std::snprintf(static_cast<char*>(id), 16, "world-%d", g_next_id++);
  return 0;
}

tflStatus comm_init(const void* id, int32_t size, int32_t rank, int32_t device, tflComm* comm) {
  std::shared_ptr<FakeWorld> world;
  {
    const std::lock_guard<std::mutex> lock(g_worlds_mutex);
    auto& slot = g_worlds[std::string(static_cast<const char*>(id))];
    if (!slot) {
      slot = std::make_shared<FakeWorld>();
      slot->size = size;
    }
    world = slot;
  }
  ++g_comms_made;
  *comm = reinterpret_cast<tflComm>(new FakeComm{world, rank, device});
  return 0;
}

tflStatus comm_free(tflComm comm) {
  delete comm_of(comm);
  return 0;
}

tflStatus comm_async_error(tflComm, tflStatus* error) {
  *error = 0;
  return 0;
}

// Device→device copies that keep `stream` busy for a while (a collective whose peer is late).
void occupy(tflStream stream, int device) {
  constexpr size_t kBytes = size_t{64} << 20;
  static void* buffers[2] = {nullptr, nullptr};
  const TflDriver& driver = torch_fl::driver();
  for (void*& buffer : buffers) {
    if (buffer == nullptr) driver.malloc(device, kBytes, &buffer);
  }
  // As many copies as take about a second on this chip (a simulator's or a GPU's),
  // timed after a first one (first touches of the memory cost more). At least
  // 100: on a loaded machine the two timed copies can take far longer than the
  // later ones, and too few would finish before the watchdog's first look.
  driver.memcpy_d2d_async(buffers[0], buffers[1], kBytes, stream);
  driver.stream_synchronize(stream);
  const auto started = std::chrono::steady_clock::now();
  for (int i = 0; i < 2; ++i) driver.memcpy_d2d_async(buffers[i % 2], buffers[1 - i % 2], kBytes, stream);
  driver.stream_synchronize(stream);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() / 2;
  const int copies = static_cast<int>(std::clamp(1.0 / std::max(seconds, 1e-7), 100.0, 50000.0));
  for (int i = 0; i < copies; ++i) driver.memcpy_d2d_async(buffers[i % 2], buffers[1 - i % 2], kBytes, stream);
}

tflStatus all_reduce(const void* send, void* recv, size_t count, tflDtype dtype, tflReduceOp op, tflComm comm,
                     tflStream stream) {
  if (count == kFailingCount) return kFakeFailure;
  FakeComm& c = *comm_of(comm);
  const auto all = c.world->exchange(c.rank, read(send, bytes_of(count, dtype), stream));
  write(recv, reduce_all(all, 0, count, dtype, op), 0, bytes_of(count, dtype), stream);
  if (count == kSlowCount) occupy(stream, c.device);  // after the (blocking) exchange: the stream stays busy
  return 0;
}

tflStatus broadcast(const void* send, void* recv, size_t count, tflDtype dtype, int32_t root, tflComm comm,
                    tflStream stream) {
  FakeComm& c = *comm_of(comm);
  const auto all = c.world->exchange(c.rank, read(send, bytes_of(count, dtype), stream));
  write(recv, all[root], 0, bytes_of(count, dtype), stream);
  return 0;
}

tflStatus reduce(const void* send, void* recv, size_t count, tflDtype dtype, tflReduceOp op, int32_t root,
                 tflComm comm, tflStream stream) {
  FakeComm& c = *comm_of(comm);
  const auto all = c.world->exchange(c.rank, read(send, bytes_of(count, dtype), stream));
  if (c.rank == root) write(recv, reduce_all(all, 0, count, dtype, op), 0, bytes_of(count, dtype), stream);
  return 0;
}

tflStatus all_gather(const void* send, void* recv, size_t send_count, tflDtype dtype, tflComm comm,
                     tflStream stream) {
  FakeComm& c = *comm_of(comm);
  const size_t bytes = bytes_of(send_count, dtype);
  const auto all = c.world->exchange(c.rank, read(send, bytes, stream));
  for (size_t r = 0; r < all.size(); ++r) write(static_cast<char*>(recv) + r * bytes, all[r], 0, bytes, stream);
  return 0;
}

tflStatus reduce_scatter(const void* send, void* recv, size_t recv_count, tflDtype dtype, tflReduceOp op,
                         tflComm comm, tflStream stream) {
  FakeComm& c = *comm_of(comm);
  const auto all = c.world->exchange(c.rank, read(send, bytes_of(recv_count * c.world->size, dtype), stream));
  write(recv, reduce_all(all, recv_count * c.rank, recv_count, dtype, op), 0, bytes_of(recv_count, dtype), stream);
  return 0;
}

tflStatus send(const void* buffer, size_t count, tflDtype dtype, int32_t peer, tflComm comm, tflStream stream) {
  FakeComm& c = *comm_of(comm);
  std::vector<char> message = read(buffer, bytes_of(count, dtype), stream);
  {
    const std::lock_guard<std::mutex> lock(c.world->mutex);
    c.world->mailboxes[{c.rank, peer}].push_back(std::move(message));
  }
  c.world->changed.notify_all();
  return 0;
}

tflStatus recv(void* buffer, size_t count, tflDtype dtype, int32_t peer, tflComm comm, tflStream stream) {
  FakeComm& c = *comm_of(comm);
  auto receive = [&c, buffer, count, dtype, peer, stream] {
    std::vector<char> message;
    {
      std::unique_lock<std::mutex> lock(c.world->mutex);
      auto& box = c.world->mailboxes[{peer, c.rank}];
      c.world->changed.wait(lock, [&] { return !box.empty(); });
      message = std::move(box.front());
      box.pop_front();
    }
    write(buffer, message, 0, std::min(message.size(), bytes_of(count, dtype)), stream);
  };
  // In a group, receives wait for the group's sends to have been posted.
  if (t_in_group) {
    t_grouped_receives.push_back(receive);
  } else {
    receive();
  }
  return 0;
}

tflStatus group_start() {
  t_in_group = true;
  return 0;
}

tflStatus group_end() {
  t_in_group = false;
  auto receives = std::move(t_grouped_receives);
  t_grouped_receives.clear();
  for (auto& receive : receives) receive();
  return 0;
}

const char* status_string(tflStatus status) { return status == kFakeFailure ? "fake failure" : "fake status"; }

const TflCollectives kFake = {TFL_COLLECTIVES_ABI_VERSION, "FakeCCL 1.0", 16, get_unique_id, comm_init, comm_free,
                              comm_free, comm_async_error, all_reduce, broadcast, reduce, all_gather, reduce_scatter,
                              send, recv, group_start, group_end, status_string};

#define REQUIRE_TWO_DEVICES()                                                                        \
  if (torch_fl::device_count() < 2)                                                                  \
  GTEST_SKIP() << "needs 2 " << torch_fl::driver().vendor << " devices, this machine has "          \
               << static_cast<int>(torch_fl::device_count())

// Runs `body(rank, backend, device)` on two ranks at once, rank r on device r.
void on_two_ranks(const std::function<void(int, c10d::Backend&, c10::Device)>& body) {
  std::vector<uint8_t> id(16);
  get_unique_id(id.data());
  std::vector<c10::intrusive_ptr<DeviceCclBackend>> backends;
  for (int rank = 0; rank < 2; ++rank) {
    backends.push_back(c10::make_intrusive<DeviceCclBackend>(kFake, id, rank, 2, "fakeccl",
                                                             std::chrono::milliseconds(5000)));
  }
  std::vector<std::string> failures(2);
  std::vector<std::thread> threads;
  for (int rank = 0; rank < 2; ++rank) {
    threads.emplace_back([&, rank] {
      const c10::Device device(c10::DeviceType::PrivateUse1, static_cast<c10::DeviceIndex>(rank));
      const c10::DeviceGuard on_device(device);
      try {
        body(rank, *backends[rank], device);
      } catch (const std::exception& e) {
        failures[rank] = e.what();
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (auto& backend : backends) backend->shutdown();
  EXPECT_EQ(failures[0], "");
  EXPECT_EQ(failures[1], "");
}

std::vector<float> values(const at::Tensor& t) {
  const at::Tensor host = t.cpu().to(at::kFloat).contiguous();
  return std::vector<float>(host.data_ptr<float>(), host.data_ptr<float>() + host.numel());
}

at::Tensor on(const c10::Device& device, std::vector<float> data) {
  return at::tensor(data).to(device);
}

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
    std::vector<at::Tensor> doubles{at::zeros({2}, at::TensorOptions().dtype(at::kDouble).device(device))};
    EXPECT_NE(message_of([&] { backend.allreduce(doubles); }).find(who + ": dtype float64 is not supported"),
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
    // A float16 output for a float32 input would be overrun: refused, nothing queued.
    std::vector<at::Tensor> outputs{at::zeros({4}, at::TensorOptions().dtype(at::kHalf).device(device))};
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

TEST(DeviceCclBackend, TheWatchdogFailsAWorkNotCompleteWithinTheGroupsTimeoutAndAbortsTheGroup) {
  REQUIRE_TWO_DEVICES();
  std::vector<uint8_t> id(16);
  get_unique_id(id.data());
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
  std::vector<uint8_t> id(16);
  get_unique_id(id.data());
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
