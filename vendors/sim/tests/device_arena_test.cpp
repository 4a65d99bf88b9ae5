// DeviceArena::covers answers from the live allocations alone, also through
// the hint it keeps of the last allocation it found: a released allocation,
// a range running past its allocation, and a range spanning two allocations
// are not covered.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "device_arena.h"

namespace {

using torch_fl::sim::DeviceArena;

constexpr size_t kAlignment = 512;

uint8_t* bytes_of(void* ptr) { return static_cast<uint8_t*>(ptr); }

TEST(DeviceArena, CoversOnlyRangesInsideOneLiveAllocation) {
  DeviceArena arena(1 << 20, kAlignment, /*protect=*/false);
  uint8_t* a = bytes_of(arena.allocate(kAlignment));
  uint8_t* b = bytes_of(arena.allocate(kAlignment));
  ASSERT_EQ(b, a + kAlignment) << "the test needs two adjacent allocations";
  for (int pass = 0; pass < 2; ++pass) {  // the second pass is answered from the hint
    EXPECT_TRUE(arena.covers(a, kAlignment));
    EXPECT_TRUE(arena.covers(a + 8, 16));
    EXPECT_FALSE(arena.covers(a + 8, kAlignment)) << "runs past a";
    EXPECT_FALSE(arena.covers(a, 2 * kAlignment)) << "spans a and b";
  }
  EXPECT_FALSE(arena.covers(b + kAlignment, 4)) << "never allocated";
}

TEST(DeviceArena, AReleasedAllocationIsNotCoveredEvenJustAfterAHit) {
  DeviceArena arena(1 << 20, kAlignment, /*protect=*/false);
  void* a = arena.allocate(100);
  void* b = arena.allocate(100);
  EXPECT_TRUE(arena.covers(a, 100));  // a is the hint now
  ASSERT_TRUE(arena.release(a));
  EXPECT_FALSE(arena.covers(a, 100));
  EXPECT_FALSE(arena.covers(a, 1));
  EXPECT_TRUE(arena.covers(b, 100));
}

TEST(DeviceArena, ConcurrentCheckersSeeLiveAllocationsWhileOthersComeAndGo) {
  // A checker's own allocation stays live throughout; other threads allocate,
  // check and release theirs, moving the hint under it.
  DeviceArena arena(8 << 20, kAlignment, /*protect=*/false);
  std::atomic<bool> wrong{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      void* mine = arena.allocate(4096);
      for (int i = 0; i < 20000; ++i) {
        if (!arena.covers(mine, 4096) || arena.covers(mine, 4096 + kAlignment * 64)) wrong.store(true);
        void* passing = arena.allocate(kAlignment);
        if (!arena.covers(passing, kAlignment)) wrong.store(true);
        arena.release(passing);
      }
      arena.release(mine);
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_FALSE(wrong.load());
}

}  // namespace
