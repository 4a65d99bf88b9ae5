// An in-order queue of device work executed by its own worker thread: the
// simulator's model of a hardware stream. Different queues run concurrently,
// so host code that forgets a stream wait really races.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "busy_clock.h"

namespace torch_fl::sim {

class WorkQueue {
 public:
  static constexpr std::chrono::microseconds kDefaultIdleSpin{50};
  // A task returns an empty string on success, or the failure's message.
  using Task = std::function<std::string()>;

  // `idle_spin`: how long the worker stays awake after the queue empties (see run()).
  // `busy_clock` (the device's, may be null) hears when this queue gains and drains work.
  WorkQueue(int device, int priority, std::chrono::microseconds idle_spin = kDefaultIdleSpin,
            BusyClock* busy_clock = nullptr);
  ~WorkQueue();
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  void submit(Task task);
  // Blocks until every task submitted so far has run. Returns the first
  // failure since the last synchronize (and clears it), or "".
  std::string synchronize();
  bool idle();

  int device() const { return device_; }
  int priority() const { return priority_; }

 private:
  void run();

  const int device_;
  const int priority_;
  const std::chrono::microseconds idle_spin_;
  BusyClock* const busy_clock_;
  std::atomic<uint64_t> submitted_signal_{0};  // submitted_, readable without the lock
  std::mutex mutex_;  // guards everything below
  std::condition_variable work_ready_;
  std::condition_variable work_done_;
  std::deque<Task> tasks_;
  uint64_t submitted_ = 0;
  uint64_t completed_ = 0;
  std::string first_error_;
  bool stopping_ = false;
  std::thread worker_;
};

// An event: completion flag plus the time the queue reached it.
// Shared ownership: a recorded marker stays alive until the queue reaches it,
// even if the host destroys its handle first.
class Marker : public std::enable_shared_from_this<Marker> {
 public:
  explicit Marker(int device) : device_(device) {}
  void record_on(WorkQueue& queue);
  bool completed();
  void wait();
  // Milliseconds between two completed markers; false if either is pending.
  bool elapsed_ms(Marker& end, float* ms);
  int device() const { return device_; }

 private:
  const int device_;
  std::mutex mutex_;
  std::condition_variable done_;
  uint64_t recorded_ = 0;   // generations requested
  uint64_t reached_ = 0;    // generations completed
  int64_t timestamp_ns_ = 0;
};

}  // namespace torch_fl::sim
