// copy_over_lanes copies every byte, whatever the size (below the split, at it, with a
// last piece shorter than the others), copies from several threads at once share the
// lanes without mixing their pieces or waiting forever, and a forked child copies.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#include "copy_lanes.h"

namespace torch_fl::sim {
namespace {

std::vector<uint8_t> pattern(size_t bytes, uint8_t seed) {
  std::vector<uint8_t> data(bytes);
  for (size_t i = 0; i < bytes; ++i) data[i] = static_cast<uint8_t>(i * 131 + seed);
  return data;
}

TEST(CopyLanes, EverySizeIsCopiedExactly) {
  for (const size_t bytes : {size_t{0}, size_t{1}, kSplitBytes - 1, kSplitBytes, kSplitBytes + 1,
                             3 * kSplitBytes + 4097, size_t{64} << 20}) {
    const auto source = pattern(bytes, 7);
    std::vector<uint8_t> target(bytes + 2, 0xEE);  // a guard byte on each side
    copy_over_lanes(target.data() + 1, source.data(), bytes);
    EXPECT_EQ(target.front(), 0xEE) << bytes;
    EXPECT_EQ(target.back(), 0xEE) << bytes;
    EXPECT_TRUE(std::equal(source.begin(), source.end(), target.begin() + 1)) << bytes;
  }
}

TEST(CopyLanes, ConcurrentCopiesShareTheLanes) {
  constexpr int kThreads = 6;
  constexpr int kRounds = 20;
  const size_t bytes = 2 * kSplitBytes + 123;
  std::vector<std::vector<uint8_t>> sources, targets;
  for (int t = 0; t < kThreads; ++t) {
    sources.push_back(pattern(bytes, static_cast<uint8_t>(t)));
    targets.emplace_back(bytes, 0);
  }
  std::vector<std::thread> threads;
  std::vector<int> mismatches(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < kRounds; ++round) {
        std::fill(targets[t].begin(), targets[t].end(), 0);
        copy_over_lanes(targets[t].data(), sources[t].data(), bytes);
        mismatches[t] += targets[t] != sources[t];
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
}

TEST(CopyLanes, AForkedChildCopiesWithoutTheParentsHelpers) {
  const size_t bytes = 4 * kSplitBytes;
  const auto source = pattern(bytes, 3);
  std::vector<uint8_t> target(bytes, 0);
  copy_over_lanes(target.data(), source.data(), bytes);  // the lanes and their helpers exist now
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    alarm(20);  // a hang fails the test rather than the run
    std::fill(target.begin(), target.end(), 0);
    copy_over_lanes(target.data(), source.data(), bytes);
    _exit(target == source ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
}

}  // namespace
}  // namespace torch_fl::sim
