#include "work_queue.h"

#include <chrono>
#include <exception>

namespace torch_fl::sim {

static_assert((WorkQueue::kDepth & (WorkQueue::kDepth - 1)) == 0, "the ring's depth is a power of two");

WorkQueue::WorkQueue(int device, int priority, std::chrono::microseconds idle_spin, BusyClock* busy_clock)
    : device_(device), priority_(priority), idle_spin_(idle_spin), busy_clock_(busy_clock),
      slots_(new Slot[kDepth]) {
  for (uint64_t i = 0; i < kDepth; ++i) slots_[i].sequence.store(i, std::memory_order_relaxed);
  worker_ = std::thread([this] { run(); });
}

WorkQueue::~WorkQueue() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_.store(true);
  }
  work_ready_.notify_all();
  worker_.join();
}

uint64_t WorkQueue::claim() {
  uint64_t ticket = next_ticket_.load(std::memory_order_relaxed);
  while (true) {
    const uint64_t sequence = slot(ticket).sequence.load(std::memory_order_acquire);
    if (sequence == ticket) {
      if (next_ticket_.compare_exchange_weak(ticket, ticket + 1, std::memory_order_relaxed)) return ticket;
    } else if (sequence < ticket) {
      // Full: the slot still holds the task of ticket - kDepth. Wait for the worker.
      std::this_thread::yield();
      ticket = next_ticket_.load(std::memory_order_relaxed);
    } else {
      ticket = next_ticket_.load(std::memory_order_relaxed);  // another host took this ticket
    }
  }
}

void WorkQueue::publish(uint64_t ticket) {
  slot(ticket).sequence.store(ticket + 1);  // sequentially consistent: see wake_worker_if_asleep()
  wake_worker_if_asleep();
}

void WorkQueue::wake_worker_if_asleep() {
  // The slot's sequence was stored, and the worker's flag is read, sequentially
  // consistently, as the worker stores its flag before it looks at the slot
  // again (run()): either the worker sees the task, or this sees the flag and
  // signals. A worker that is awake needs no signal, and signalling costs
  // atomic operations on a condition variable the worker's core shares.
  if (worker_sleeping_.load()) {
    { std::lock_guard<std::mutex> lock(mutex_); }  // the worker is inside wait() once this is free
    work_ready_.notify_one();
  }
}

bool WorkQueue::next_is_ready() const {
  return slots_[next_to_run_ & (kDepth - 1)].sequence.load() == next_to_run_ + 1;
}

bool WorkQueue::try_pop(Task& task) {
  if (!next_is_ready()) return false;
  Slot& slot = slots_[next_to_run_ & (kDepth - 1)];
  task = std::move(slot.task);
  slot.sequence.store(next_to_run_ + kDepth, std::memory_order_release);
  ++next_to_run_;
  return true;
}

std::string WorkQueue::synchronize() {
  const uint64_t target = next_ticket_.load(std::memory_order_acquire);
  std::unique_lock<std::mutex> lock(mutex_);
  if (completed_.load(std::memory_order_acquire) < target) {
    host_waiters_.fetch_add(1);  // before the check under the lock: see the completion in run()
    work_done_.wait(lock, [&] { return completed_.load(std::memory_order_acquire) >= target; });
    host_waiters_.fetch_sub(1);
  }
  std::string error;
  error.swap(first_error_);
  return error;
}

bool WorkQueue::idle() {
  return completed_.load(std::memory_order_acquire) == next_ticket_.load(std::memory_order_acquire);
}

void WorkQueue::run() {
  bool busy = false;
  Task task;
  while (true) {
    if (!try_pop(task)) {
      // Stay awake briefly before sleeping: a host issuing a burst of small ops
      // then finds the worker awake, and submitting costs no wake-up.
      // (Instruction counts turn it off: the spin's length depends on the clock.)
      if (idle_spin_.count() > 0) {
        const auto deadline = std::chrono::steady_clock::now() + idle_spin_;
        while (!next_is_ready() && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
      }
      if (!try_pop(task)) {
        std::unique_lock<std::mutex> lock(mutex_);
        worker_sleeping_.store(true);  // before looking again: see wake_worker_if_asleep()
        while (!try_pop(task)) {
          if (stopping_.load()) return;  // stopping, and everything submitted has run
          work_ready_.wait(lock);
        }
        worker_sleeping_.store(false);
      }
    }
    if (!busy && busy_clock_) busy_clock_->queue_became_busy();
    busy = true;
    std::string error;
    try {
      error = task();
    } catch (const std::exception& e) {
      error = e.what();
    } catch (...) {
      error = "unknown exception in device work";
    }
    task.reset();  // release captures before reporting completion
    if (!error.empty()) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (first_error_.empty()) first_error_ = std::move(error);
    }
    // An empty queue goes idle before its completion is reported: a host that
    // synchronized reads a closed busy period (utilisation), not one still counting.
    if (!next_is_ready()) {
      if (busy_clock_) busy_clock_->queue_became_idle();
      busy = false;
    }
    completed_.fetch_add(1);  // sequentially consistent: see host_waiters_ in synchronize()
    if (host_waiters_.load() > 0) {
      { std::lock_guard<std::mutex> lock(mutex_); }  // a waiter between its check and its wait is inside wait() now
      work_done_.notify_all();
    }
  }
}

static int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch()).count();
}

void Marker::record_on(WorkQueue& queue) {
  uint64_t generation;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    generation = ++recorded_;
  }
  queue.submit([self = shared_from_this(), generation]() -> std::string {
    std::lock_guard<std::mutex> lock(self->mutex_);
    if (generation > self->reached_) {
      self->reached_ = generation;
      self->timestamp_ns_ = now_ns();
    }
    self->done_.notify_all();
    return "";
  });
}

bool Marker::completed() {
  std::lock_guard<std::mutex> lock(mutex_);
  return reached_ >= recorded_;
}

void Marker::wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  const uint64_t target = recorded_;
  done_.wait(lock, [&] { return reached_ >= target; });
}

bool Marker::elapsed_ms(Marker& end, float* ms) {
  int64_t start_ns, end_ns;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (reached_ < recorded_ || recorded_ == 0) return false;
    start_ns = timestamp_ns_;
  }
  {
    std::lock_guard<std::mutex> lock(end.mutex_);
    if (end.reached_ < end.recorded_ || end.recorded_ == 0) return false;
    end_ns = end.timestamp_ns_;
  }
  *ms = static_cast<float>(end_ns - start_ns) / 1e6f;
  return true;
}

}  // namespace torch_fl::sim
