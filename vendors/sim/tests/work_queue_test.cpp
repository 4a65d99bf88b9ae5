// WorkQueue runs tasks in order on its worker, past a full ring and whatever
// the idle spin; InlineFunction holds a task inline or on the heap and destroys its
// captures exactly once.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "inline_function.h"
#include "work_queue.h"

namespace torch_fl::sim {
namespace {

using Small = InlineFunction<int(int), 64>;

TEST(InlineFunction, SmallCallableIsCalledWithItsCaptures) {
  const int base = 40;
  Small add = [base](int x) { return base + x; };
  EXPECT_TRUE(static_cast<bool>(add));
  EXPECT_EQ(add(2), 42);
}

TEST(InlineFunction, LargeCallableGoesToTheHeapAndStillWorks) {
  std::array<int, 100> table{};  // 400 bytes: more than the 64 inline
  table[7] = 9;
  Small lookup = [table](int i) { return table[i]; };
  Small moved = std::move(lookup);
  EXPECT_FALSE(static_cast<bool>(lookup));
  EXPECT_EQ(moved(7), 9);
}

// Counts live copies of a capture, inline and on the heap alike.
struct Tracked {
  std::shared_ptr<int> token;
};

TEST(InlineFunction, CapturesAreDestroyedOnceWhenMovedAndReset) {
  auto token = std::make_shared<int>(1);
  for (bool large : {false, true}) {
    {
      std::array<char, 200> padding{};
      Small first = large ? Small([t = Tracked{token}, padding](int) { return *t.token + padding[0]; })
                          : Small([t = Tracked{token}](int) { return *t.token; });
      EXPECT_EQ(token.use_count(), 2);
      Small second = std::move(first);
      Small third;
      third = std::move(second);
      EXPECT_EQ(token.use_count(), 2) << "a move leaves one live capture";
      EXPECT_EQ(third(0), 1);
      third.reset();
      EXPECT_EQ(token.use_count(), 1) << "reset destroys the capture";
      Small fourth = [t = Tracked{token}](int) { return 0; };
    }
    EXPECT_EQ(token.use_count(), 1) << "destruction releases the capture (large=" << large << ")";
  }
}

// Counts the moves of a capture: a tiny op's descriptors are copied by each one (#33).
struct MoveCounter {
  std::atomic<int>* moves;
  explicit MoveCounter(std::atomic<int>* m) : moves(m) {}
  MoveCounter(MoveCounter&& other) noexcept : moves(other.moves) { moves->fetch_add(1); }
  MoveCounter(const MoveCounter&) = delete;
};

TEST(InlineFunction, EmplaceBuildsInPlaceAndDestroysThePreviousCallable) {
  std::atomic<int> moves{0};
  auto token = std::make_shared<int>(1);
  Small held = [t = Tracked{token}](int) { return 1; };
  held.emplace([m = MoveCounter(&moves)](int x) { return x + 1; });
  EXPECT_EQ(token.use_count(), 1) << "the previous callable's captures are gone";
  EXPECT_EQ(moves.load(), 1) << "one move, from the argument into the storage";
  EXPECT_EQ(held(41), 42);
}

TEST(WorkQueue, ACallableIsMovedOnceIntoTheQueue) {
  WorkQueue queue(0, 0, std::chrono::microseconds(0));
  std::atomic<bool> release{false};  // holds the worker, so that it cannot take the task out yet
  queue.submit([&]() -> std::string {
    while (!release.load()) std::this_thread::yield();
    return "";
  });
  std::atomic<int> moves{0};
  std::atomic<bool> ran{false};
  queue.submit([m = MoveCounter(&moves), &ran]() -> std::string {
    ran.store(true);
    return "";
  });
  EXPECT_EQ(moves.load(), 1) << "built in its slot, not moved through intermediate Tasks";
  release.store(true);
  EXPECT_EQ(queue.synchronize(), "");
  EXPECT_TRUE(ran.load());
}

TEST(WorkQueue, AFullQueueMakesTheHostWaitAndLosesNothing) {
  for (int spin_us : {0, 50}) {
    WorkQueue queue(0, 0, std::chrono::microseconds(spin_us));
    std::vector<int> order;
    // The worker is held while the host submits four queues' depth of tasks:
    // the host waits at the full ring until another thread lets the worker go.
    std::atomic<bool> release{false};
    queue.submit([&]() -> std::string {
      while (!release.load()) std::this_thread::yield();
      return "";
    });
    std::thread releaser([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      release.store(true);
    });
    const int count = 4 * static_cast<int>(WorkQueue::kDepth);
    for (int i = 0; i < count; ++i) {
      queue.submit([&order, i]() -> std::string {
        order.push_back(i);
        return "";
      });
    }
    EXPECT_TRUE(release.load()) << "the host went past a full queue";
    releaser.join();
    EXPECT_EQ(queue.synchronize(), "");
    ASSERT_EQ(order.size(), static_cast<size_t>(count)) << "spin " << spin_us;
    for (int i = 0; i < count; ++i) ASSERT_EQ(order[i], i);
    EXPECT_TRUE(queue.idle());
  }
}

TEST(WorkQueue, TaskCapturesAreReleasedBeforeCompletionIsReported) {
  WorkQueue queue(0, 0, std::chrono::microseconds(0));
  auto token = std::make_shared<int>(1);
  queue.submit([t = Tracked{token}]() -> std::string { return ""; });
  EXPECT_EQ(queue.synchronize(), "");
  EXPECT_EQ(token.use_count(), 1);
}

TEST(WorkQueue, TheBusyPeriodIsClosedWhenSynchronizeReturns) {
  // What utilisation reads: once the host has synchronized, the queue is idle.
  BusyClock clock;
  WorkQueue queue(0, 0, std::chrono::microseconds(50), &clock);
  queue.submit([]() -> std::string {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return "";
  });
  EXPECT_EQ(queue.synchronize(), "");
  uint64_t busy_then = 0, busy_later = 0, elapsed = 0;
  clock.read(&busy_then, &elapsed);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  clock.read(&busy_later, &elapsed);
  EXPECT_GE(busy_then, 5000000u);
  EXPECT_EQ(busy_later, busy_then) << "the queue still counted as busy after synchronize()";
}

TEST(WorkQueue, FirstErrorIsReportedOnceBySynchronize) {
  WorkQueue queue(0, 0);
  queue.submit([]() -> std::string { return "first"; });
  queue.submit([]() -> std::string { return "second"; });
  EXPECT_EQ(queue.synchronize(), "first");
  EXPECT_EQ(queue.synchronize(), "");
}

TEST(WorkQueue, SeveralHostThreadsSubmitAndWaitWithoutLosingWork) {
  // No idle spin: the worker sleeps between bursts, so every submit may have to wake it.
  WorkQueue queue(0, 0, std::chrono::microseconds(0));
  std::atomic<int> ran{0};
  std::vector<std::thread> hosts;
  for (int h = 0; h < 4; ++h) {
    hosts.emplace_back([&] {
      for (int i = 0; i < 500; ++i) {
        queue.submit([&ran]() -> std::string {
          ran.fetch_add(1);
          return "";
        });
        if (i % 50 == 0) EXPECT_EQ(queue.synchronize(), "");
      }
    });
  }
  for (std::thread& host : hosts) host.join();
  EXPECT_EQ(queue.synchronize(), "");
  EXPECT_EQ(ran.load(), 2000);
}

}  // namespace
}  // namespace torch_fl::sim
