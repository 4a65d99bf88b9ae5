#include "busy_clock.h"

#include <chrono>

namespace torch_fl::sim {

namespace {
int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

BusyClock::BusyClock() : started_ns_(now_ns()) {}

void BusyClock::queue_became_busy() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (busy_queues_++ == 0) busy_since_ns_ = now_ns();
}

void BusyClock::queue_became_idle() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (--busy_queues_ == 0) busy_total_ns_ += now_ns() - busy_since_ns_;
}

void BusyClock::read(uint64_t* busy_ns, uint64_t* elapsed_ns) {
  std::lock_guard<std::mutex> lock(mutex_);
  const int64_t now = now_ns();
  // A busy period still open counts up to now, so a long kernel shows while it runs.
  *busy_ns = static_cast<uint64_t>(busy_total_ns_ + (busy_queues_ > 0 ? now - busy_since_ns_ : 0));
  *elapsed_ns = static_cast<uint64_t>(now - started_ns_);
}

}  // namespace torch_fl::sim
