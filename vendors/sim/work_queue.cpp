#include "work_queue.h"

#include <chrono>
#include <exception>

namespace torch_fl::sim {

WorkQueue::WorkQueue(int device, int priority, std::chrono::microseconds idle_spin, BusyClock* busy_clock)
    : device_(device), priority_(priority), idle_spin_(idle_spin), busy_clock_(busy_clock) {
  worker_ = std::thread([this] { run(); });
}

WorkQueue::~WorkQueue() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  worker_.join();
}

void WorkQueue::submit(Task task) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (busy_clock_ && submitted_ == completed_) busy_clock_->queue_became_busy();
    tasks_.push_back(std::move(task));
    ++submitted_;
    submitted_signal_.store(submitted_, std::memory_order_release);
  }
  work_ready_.notify_one();
}

std::string WorkQueue::synchronize() {
  std::unique_lock<std::mutex> lock(mutex_);
  const uint64_t target = submitted_;
  work_done_.wait(lock, [&] { return completed_ >= target; });
  std::string error;
  error.swap(first_error_);
  return error;
}

bool WorkQueue::idle() {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_ == submitted_;
}

void WorkQueue::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    if (tasks_.empty() && !stopping_ && idle_spin_.count() > 0) {
      // Stay awake briefly before sleeping: a host issuing a burst of small ops
      // then finds the worker awake, and submitting costs no wake-up syscall.
      // (Instruction counts turn it off: the spin's length depends on the clock.)
      const uint64_t seen = submitted_;
      lock.unlock();
      const auto deadline = std::chrono::steady_clock::now() + idle_spin_;
      while (submitted_signal_.load(std::memory_order_acquire) == seen &&
             std::chrono::steady_clock::now() < deadline) {
        std::this_thread::yield();
      }
      lock.lock();
    }
    work_ready_.wait(lock, [&] { return stopping_ || !tasks_.empty(); });
    if (tasks_.empty()) return;  // stopping, and everything submitted has run
    Task task = std::move(tasks_.front());
    tasks_.pop_front();
    lock.unlock();
    std::string error;
    try {
      error = task();
    } catch (const std::exception& e) {
      error = e.what();
    } catch (...) {
      error = "unknown exception in device work";
    }
    task = nullptr;  // release captures before reporting completion
    lock.lock();
    if (!error.empty() && first_error_.empty()) first_error_ = std::move(error);
    ++completed_;
    if (busy_clock_ && completed_ == submitted_) busy_clock_->queue_became_idle();
    work_done_.notify_all();
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
