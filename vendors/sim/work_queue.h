// An in-order queue of device work executed by its own worker thread: the
// simulator's model of a hardware stream. Different queues run concurrently,
// so host code that forgets a stream wait really races.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>

#include "busy_clock.h"
#include "inline_function.h"

namespace torch_fl::sim {

class WorkQueue {
 public:
  static constexpr std::chrono::microseconds kDefaultIdleSpin{50};
  // A task returns an empty string on success, or the failure's message. Held
  // inline (see inline_function.h): 640 bytes take an elementwise op's three
  // tensor descriptors and its scalar.
  using Task = InlineFunction<std::string(), 640>;
  // Tasks that may wait in one queue; a submit to a full queue waits for a
  // free slot, as a hardware command queue of fixed depth makes its host wait.
  static constexpr uint64_t kDepth = 256;

  // `idle_spin`: how long the worker stays awake after the queue empties (see run()).
  // `busy_clock` (the device's, may be null) hears when this queue starts and drains work.
  WorkQueue(int device, int priority, std::chrono::microseconds idle_spin = kDefaultIdleSpin,
            BusyClock* busy_clock = nullptr);
  ~WorkQueue();
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  // Any host thread may submit; tasks of one thread run in its order. A
  // callable that fits a Task inline is built in its slot of the ring: on a
  // tiny op's hot path each intermediate Task would copy its captures again.
  template <class F>
  void submit(F&& work) {
    using Work = std::decay_t<F>;
    if constexpr (!std::is_same_v<Work, Task> && Task::fits_inline<Work>() &&
                  std::is_nothrow_constructible_v<Work, F&&>) {
      const uint64_t ticket = claim();
      slot(ticket).task.emplace(std::forward<F>(work));
      publish(ticket);
    } else {
      Task task(std::forward<F>(work));  // may allocate, and throw, before a slot is taken
      const uint64_t ticket = claim();
      slot(ticket).task = std::move(task);
      publish(ticket);
    }
  }
  // Blocks until every task submitted so far has run. Returns the first
  // failure since the last synchronize (and clears it), or "".
  std::string synchronize();
  bool idle();

  int device() const { return device_; }
  int priority() const { return priority_; }

 private:
  // One slot of the ring (Vyukov's bounded queue): `sequence` says whose turn
  // it is. Slot i is free for the submit of ticket t when sequence == t, holds
  // that task when sequence == t + 1, and is free again for ticket t + kDepth.
  // The sequence has a line of its own: an idle worker polls it, and a host
  // writing the task's first bytes beside it would lose the line to each poll.
  struct Slot {
    alignas(64) std::atomic<uint64_t> sequence{0};
    alignas(64) Task task;
  };

  // A free slot's ticket, waiting for the worker while the ring is full; the
  // slot must be published next (a claimed slot stops the worker until it is).
  uint64_t claim();
  void publish(uint64_t ticket);
  Slot& slot(uint64_t ticket) { return slots_[ticket & (kDepth - 1)]; }
  void run();
  bool try_pop(Task& task);     // the worker only
  bool next_is_ready() const;   // the worker only
  void wake_worker_if_asleep();

  const int device_;
  const int priority_;
  const std::chrono::microseconds idle_spin_;
  BusyClock* const busy_clock_;
  // The host and the worker share nothing per task but the task's slot: a
  // mutex per submit bounced its cache line between their cores, which cost
  // more wall time than a tiny op's own dispatch.
  std::unique_ptr<Slot[]> slots_;
  alignas(64) std::atomic<uint64_t> next_ticket_{0};  // submits so far (taken by hosts)
  alignas(64) uint64_t next_to_run_ = 0;               // the worker's position
  alignas(64) std::atomic<uint64_t> completed_{0};  // written by the worker after each task
  // Read by the host on every submit, and by the worker after every task, but
  // rarely written: a line of their own, which stays in both cores' caches. On
  // completed_'s line, each submit's read cost a miss on the line the worker
  // had just written.
  alignas(64) std::atomic<bool> worker_sleeping_{false};  // the worker waits on work_ready_: a submit must signal it
  std::atomic<int> host_waiters_{0};          // threads in synchronize(): a completion must signal them
  std::atomic<bool> stopping_{false};
  alignas(64) std::mutex mutex_;  // the sleeps and first_error_
  std::condition_variable work_ready_;
  std::condition_variable work_done_;
  std::string first_error_;
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
