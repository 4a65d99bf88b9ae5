// What the c10d backends' tests share: two ranks as two threads of this process.
#pragma once

#include <gtest/gtest.h>

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <ATen/ATen.h>
#include <c10/core/DeviceGuard.h>
#include <torch/csrc/distributed/c10d/Backend.hpp>

namespace two_ranks {

using Body = std::function<void(int, c10d::Backend&, c10::Device)>;

// Runs `body(rank, backend, device)` on two ranks at once, rank r with
// `backends[r]` on `devices[r]` (current in its thread), then shuts the backends
// down. What a rank raises fails the test.
inline void run(const std::vector<c10::intrusive_ptr<c10d::Backend>>& backends, const std::vector<c10::Device>& devices,
                const Body& body) {
  std::vector<std::string> failures(2);
  std::vector<std::thread> threads;
  for (int rank = 0; rank < 2; ++rank) {
    threads.emplace_back([&, rank] {
      const c10::DeviceGuard on_device(devices[rank]);
      try {
        body(rank, *backends[rank], devices[rank]);
      } catch (const std::exception& e) {
        failures[rank] = e.what();
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (const auto& backend : backends) backend->shutdown();
  EXPECT_EQ(failures[0], "");
  EXPECT_EQ(failures[1], "");
}

// A rendezvous of `size` ranks (threads) exchanging one `T` each.
template <typename T>
struct Exchange {
  int size = 0;
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<T> contributions;
  int arrived = 0;
  int generation = 0;

  // Every rank's `T`, once all have given theirs.
  std::vector<T> exchange(int rank, T mine) {
    std::unique_lock<std::mutex> lock(mutex);
    if (contributions.empty()) contributions.resize(size);
    contributions[rank] = std::move(mine);
    all_arrive(lock);
    std::vector<T> all = contributions;
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

// A tensor's elements, as floats on the host.
inline std::vector<float> values(const at::Tensor& t) {
  const at::Tensor host = t.cpu().to(at::kFloat).contiguous();
  return std::vector<float>(host.data_ptr<float>(), host.data_ptr<float>() + host.numel());
}

}  // namespace two_ranks
