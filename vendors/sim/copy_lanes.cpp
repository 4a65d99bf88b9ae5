#include "copy_lanes.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

namespace torch_fl::sim {
namespace {

constexpr size_t kPieceAlignment = 4096;  // piece lengths are whole pages (of dst's offsets)
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

  // Copies one unclaimed piece; false when every piece is claimed. `last` says whether
  // this piece completed the copy.
  bool run_one(bool& last) {
    const size_t index = next.fetch_add(1);
    if (index >= pieces) return false;
    const size_t begin = index * piece;
    std::memcpy(dst + begin, src + begin, std::min(piece, bytes - begin));
    last = done.fetch_add(1, std::memory_order_acq_rel) + 1 == pieces;
    return true;
  }
};

// The cores this process may run on (its affinity mask: a rank pinned to some cores,
// taskset), not every core of the machine.
unsigned usable_cores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return static_cast<unsigned>(CPU_COUNT(&set));
  return std::thread::hardware_concurrency();
}

class Lanes {
 public:
  Lanes() = default;

  // Helpers hold `this`: started once the object exists. A helper the system refuses
  // (a thread limit) leaves fewer lanes, never a failed copy.
  void start_helpers() {
    const unsigned wanted = std::clamp(usable_cores(), 1u, kMaxLanes) - 1;
    for (unsigned i = 0; i < wanted; ++i) {
      try {
        std::thread([this] { help(); }).detach();
      } catch (const std::system_error&) {
        break;
      }
      helpers_.fetch_add(1);
    }
  }

  void copy(void* dst, const void* src, size_t bytes) {
    const unsigned lanes = helpers_.load() + 1;
    if (lanes == 1 || bytes < kSplitBytes || forked_.load()) {
      std::memcpy(dst, src, bytes);
      return;
    }
    auto job = std::make_shared<SplitCopy>();
    job->dst = static_cast<uint8_t*>(dst);
    job->src = static_cast<const uint8_t*>(src);
    job->bytes = bytes;
    const size_t share = (bytes + lanes - 1) / lanes;
    job->piece = (share + kPieceAlignment - 1) / kPieceAlignment * kPieceAlignment;
    job->pieces = (bytes + job->piece - 1) / job->piece;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      waiting_.push_back(job);
    }
    wake_.notify_all();
    bool last = false;
    while (job->run_one(last)) {
    }
    forget(job);
    // Pieces still running in helpers: sleep until the last one says so.
    std::unique_lock<std::mutex> lock(mutex_);
    finished_.wait(lock, [&] { return job->done.load(std::memory_order_acquire) == job->pieces; });
  }

  // fork(): the child has none of the helpers, and a mutex a helper held stays locked in
  // it. The prepare handler takes the mutex so that the child gets it unlocked, and the
  // child copies alone from then on.
  void before_fork() { mutex_.lock(); }
  void after_fork_in_parent() { mutex_.unlock(); }
  void after_fork_in_child() {
    forked_.store(true);
    mutex_.unlock();
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
      bool last = false;
      while (job->run_one(last)) {
        if (last) {
          { const std::lock_guard<std::mutex> lock(mutex_); }  // the caller is waiting, or sees done
          finished_.notify_all();
        }
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

  std::atomic<unsigned> helpers_{0};
  std::atomic<bool> forked_{false};
  std::mutex mutex_;  // guards waiting_; finished_ and wake_ wait on it
  std::condition_variable wake_, finished_;
  std::deque<std::shared_ptr<SplitCopy>> waiting_;  // copies with pieces left to claim
};

Lanes* g_lanes = nullptr;  // for the fork handlers, which take no argument

Lanes& lanes() {
  // Never destroyed: queued copies may run at exit, and helpers hold it.
  static Lanes* instance = [] {
    g_lanes = new Lanes();
    pthread_atfork([] { g_lanes->before_fork(); }, [] { g_lanes->after_fork_in_parent(); },
                   [] { g_lanes->after_fork_in_child(); });
    g_lanes->start_helpers();
    return g_lanes;
  }();
  return *instance;
}

}  // namespace

void copy_over_lanes(void* dst, const void* src, size_t bytes) { lanes().copy(dst, src, bytes); }

}  // namespace torch_fl::sim
