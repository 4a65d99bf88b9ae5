// HandlePool: freed handles' memory is reused by the next make on the thread,
// handles destroyed on another thread are fine, and the pool keeps at most Keep.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "handle_pool.h"

namespace {

struct Handle {
  int value;
  double payload[4];
};

using Pool = torch_fl::sim::HandlePool<Handle, 4>;

TEST(HandlePool, ReusesTheLastFreedBlockAndConstructsAFreshValue) {
  Handle* first = Pool::make(7);
  EXPECT_EQ(first->value, 7);
  EXPECT_EQ(first->payload[3], 0.0);  // the members not given are value-initialised
  first->payload[3] = 1.5;
  const void* block = first;
  Pool::destroy(first);
  Handle* second = Pool::make(8);
  EXPECT_EQ(static_cast<const void*>(second), block);
  EXPECT_EQ(second->value, 8);
  EXPECT_EQ(second->payload[3], 0.0);
  Pool::destroy(second);
}

TEST(HandlePool, AHandleMadeOnOneThreadMayBeDestroyedOnAnother) {
  std::vector<Handle*> handles;
  for (int i = 0; i < 16; ++i) handles.push_back(Pool::make(i));
  std::thread other([&] {
    for (Handle* h : handles) Pool::destroy(h);  // 4 kept in that thread's list, 12 returned to the heap
  });
  other.join();
  for (int i = 0; i < 16; ++i) {
    Handle* h = Pool::make(i);
    EXPECT_EQ(h->value, i);
    Pool::destroy(h);
  }
}

TEST(HandlePool, AThreadKeepsAtMostKeepBlocksAndItsExitLeavesNoneBehind) {
  const size_t kept_here = Pool::kept();
  std::thread worker([] {
    std::vector<Handle*> handles;
    for (int i = 0; i < 6; ++i) handles.push_back(Pool::make(i));
    EXPECT_EQ(Pool::kept(), 0u);
    for (Handle* h : handles) Pool::destroy(h);
    EXPECT_EQ(Pool::kept(), 4u) << "Keep is 4: two went back to the heap";
    Pool::destroy(Pool::make(9));
    EXPECT_EQ(Pool::kept(), 4u) << "a make then a destroy reuses a kept block";
  });
  worker.join();  // the 4 kept blocks are freed at the thread's exit (LeakSanitizer's builds check it)
  EXPECT_EQ(Pool::kept(), kept_here) << "another thread's list is not this one's";
}

TEST(HandlePool, DestroyingNullIsANoOp) { Pool::destroy(nullptr); }

}  // namespace
