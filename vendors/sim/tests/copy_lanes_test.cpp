// copy_over_lanes copies every byte, whatever the size (below the split, at it, with a
// last piece shorter than the others), and copies from several threads at once share
// the lanes without mixing their pieces or waiting forever.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace torch_fl::sim
