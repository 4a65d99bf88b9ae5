#include "fake_ccl.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include <torch_fl/collectives_abi.h>
#include <torch_fl/device.h>
#include "driver.h"
#include <torch_fl/stream.h>

#include "collectives/device_ccl_backend.h"

namespace fake_ccl {
namespace {

using torch_fl::collectives::DeviceCclBackend;

constexpr tflStatus kFakeFailure = 7;

// What the ranks share: a rendezvous exchanging each rank's bytes, and mailboxes for sends.
struct FakeWorld : two_ranks::Exchange<std::vector<char>> {
  std::map<std::pair<int, int>, std::deque<std::vector<char>>> mailboxes;  // (from, to) → messages
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

}  // namespace

const TflCollectives kFake = {TFL_COLLECTIVES_ABI_VERSION, "FakeCCL 1.0", 16, get_unique_id, comm_init, comm_free,
                              comm_free, comm_async_error, all_reduce, broadcast, reduce, all_gather, reduce_scatter,
                              send, recv, group_start, group_end, status_string};

std::vector<uint8_t> new_unique_id() {
  std::vector<uint8_t> id(16);
  get_unique_id(id.data());
  return id;
}

void on_two_ranks(const two_ranks::Body& body) {
  const std::vector<uint8_t> id = new_unique_id();
  std::vector<c10::intrusive_ptr<c10d::Backend>> backends;
  std::vector<c10::Device> devices;
  for (int rank = 0; rank < 2; ++rank) {
    backends.push_back(c10::make_intrusive<DeviceCclBackend>(kFake, id, rank, 2, "fakeccl",
                                                             std::chrono::milliseconds(5000)));
    devices.emplace_back(c10::DeviceType::PrivateUse1, static_cast<c10::DeviceIndex>(rank));
  }
  two_ranks::run(backends, devices, body);
}

at::Tensor on(const c10::Device& device, std::vector<float> data) {
  return at::tensor(data).to(device);
}

}  // namespace fake_ccl
