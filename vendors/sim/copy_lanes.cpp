#include "copy_lanes.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

namespace torch_fl::sim {
namespace {

constexpr size_t kPieceAlignment = 4096;  // pieces start on page boundaries
constexpr unsigned kMaxLanes = 8;

// One split copy: its pieces are claimed by index, by the caller and by helpers.
struct SplitCopy {
  uint8_t* dst;
  const uint8_t* src;
  size_t bytes;
  size_t piece;
  size_t pieces;
  std::atomic<size_t> next{0};  // the next unclaimed piece
  std::atomic<size_t> done{0};

  // Copies one unclaimed piece; false when every piece is claimed.
  bool run_one() {
    const size_t index = next.fetch_add(1);
    if (index >= pieces) return false;
    const size_t begin = index * piece;
    std::memcpy(dst + begin, src + begin, std::min(piece, bytes - begin));
    done.fetch_add(1, std::memory_order_release);
    return true;
  }
};

class Lanes {
 public:
  Lanes() : count_(std::clamp(std::thread::hardware_concurrency(), 1u, kMaxLanes)) {
    // Helpers are detached and the object never destroyed: queued copies may run at exit.
    for (unsigned i = 1; i < count_; ++i) std::thread([this] { help(); }).detach();
  }

  void copy(void* dst, const void* src, size_t bytes) {
    if (count_ == 1 || bytes < kSplitBytes) {
      std::memcpy(dst, src, bytes);
      return;
    }
    auto job = std::make_shared<SplitCopy>();
    job->dst = static_cast<uint8_t*>(dst);
    job->src = static_cast<const uint8_t*>(src);
    job->bytes = bytes;
    const size_t share = (bytes + count_ - 1) / count_;
    job->piece = (share + kPieceAlignment - 1) / kPieceAlignment * kPieceAlignment;
    job->pieces = (bytes + job->piece - 1) / job->piece;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      waiting_.push_back(job);
    }
    wake_.notify_all();
    while (job->run_one()) {
    }
    forget(job);
    // The helpers' pieces: each is short (a share of one copy), so spinning beats a sleep.
    while (job->done.load(std::memory_order_acquire) < job->pieces) std::this_thread::yield();
  }

 private:
  void help() {
    for (;;) {
      std::shared_ptr<SplitCopy> job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [this] { return !waiting_.empty(); });
        job = waiting_.front();
      }
      while (job->run_one()) {
      }
      forget(job);
    }
  }

  // Drops a copy whose pieces are all claimed from the waiting list.
  void forget(const std::shared_ptr<SplitCopy>& job) {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto found = std::find(waiting_.begin(), waiting_.end(), job);
    if (found != waiting_.end()) waiting_.erase(found);
  }

  const unsigned count_;
  std::mutex mutex_;  // guards waiting_
  std::condition_variable wake_;
  std::deque<std::shared_ptr<SplitCopy>> waiting_;  // copies with pieces left to claim
};

Lanes& lanes() {
  static auto* instance = new Lanes();
  return *instance;
}

}  // namespace

void copy_over_lanes(void* dst, const void* src, size_t bytes) { lanes().copy(dst, src, bytes); }

}  // namespace torch_fl::sim
