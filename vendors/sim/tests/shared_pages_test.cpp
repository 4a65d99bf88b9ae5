// Device memory shared between processes (shared_pages.h): a forked process maps
// the parent's shared allocation into its own arena, and writes go both ways.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "device_arena.h"
#include "shared_pages.h"

namespace {

using torch_fl::sim::DeviceArena;
using torch_fl::sim::SharedPages;
using torch_fl::sim::SharedPagesHandle;

constexpr size_t kArena = 64 << 20;
constexpr size_t kAlignment = 512;
constexpr size_t kBytes = 2 << 20;  // a caching-allocator segment
constexpr uint64_t kChip = 7;

uint8_t* bytes_of(void* ptr) { return static_cast<uint8_t*>(ptr); }

// Runs `body` in a forked child with an arena of its own (the consumer); its exit
// status is body's result: 0 for success, anything else names the failed step.
template <class Body>
int in_a_child(Body body, bool protect = false) {
  const pid_t pid = fork();
  if (pid == 0) {
    DeviceArena arena(kArena, kAlignment, protect);
    SharedPages shared(arena, kChip, 0);
    _exit(body(arena, shared));
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

TEST(SharedPages, AnotherProcessReadsAndWritesTheSameBytes) {
  DeviceArena arena(kArena, kAlignment, /*protect=*/false);
  SharedPages shared(arena, kChip, 0);
  uint8_t* mine = bytes_of(arena.allocate_pages(kBytes));
  ASSERT_NE(mine, nullptr);
  for (size_t i = 0; i < kBytes; ++i) mine[i] = static_cast<uint8_t>(i % 251);
  SharedPagesHandle handle{};
  ASSERT_EQ(shared.share(mine, &handle), "");
  for (size_t i = 0; i < kBytes; i += 4099) ASSERT_EQ(mine[i], i % 251) << "sharing changed the bytes at " << i;
  mine[0] = 200;  // written after sharing: seen by the consumer

  const int child = in_a_child([&](DeviceArena& own, SharedPages& theirs) {
    void* ptr = nullptr;
    size_t bytes = 0;
    SharedPagesHandle stale = handle;  // the same fd of a live producer, another memfd
    stale.inode += 1;
    if (theirs.open(stale, &ptr, &bytes).find("is gone") == std::string::npos) return 5;
    if (!theirs.open(handle, &ptr, &bytes).empty()) return 1;
    if (bytes != kBytes || !own.covers(ptr, bytes)) return 2;  // a live allocation of the consumer's arena
    if (bytes_of(ptr)[0] != 200 || bytes_of(ptr)[kBytes - 1] != (kBytes - 1) % 251) return 3;
    std::memset(bytes_of(ptr) + 1, 0x5a, 100);
    if (!theirs.close(ptr).empty() || own.covers(ptr, 1)) return 4;
    return 0;
  });
  EXPECT_EQ(child, 0);
  for (size_t i = 1; i <= 100; ++i) ASSERT_EQ(mine[i], 0x5a) << "the consumer's write is not seen at " << i;
  EXPECT_EQ(mine[101], 101 % 251);
  EXPECT_TRUE(arena.release(mine));
}

// Whether this process may read the byte at ptr: the kernel reads it for write(2),
// which fails with EFAULT on a page the process cannot read, where a load would fault.
bool readable(const void* ptr) {
  int fds[2];
  if (pipe(fds) != 0) return false;
  const bool read_it = write(fds[1], ptr, 1) == 1;
  close(fds[0]);
  close(fds[1]);
  return read_it;
}

// Page protection is per process: each side's protected mode guards its own view,
// probed before and inside an access scope.
TEST(SharedPages, ProtectedArenasKeepTheirRulesOnSharedPages) {
  DeviceArena arena(kArena, kAlignment, /*protect=*/true);
  SharedPages shared(arena, kChip, 0);
  uint8_t* mine = bytes_of(arena.allocate_pages(kBytes));
  ASSERT_NE(mine, nullptr);
  {
    DeviceArena::AccessScope access(arena);
    std::memset(mine, 0x33, kBytes);
  }
  SharedPagesHandle handle{};
  ASSERT_EQ(shared.share(mine, &handle), "");
  EXPECT_FALSE(readable(mine)) << "the producer's shared pages lost its protection";
  {
    DeviceArena::AccessScope access(arena);
    EXPECT_TRUE(readable(mine));
  }
  const int child = in_a_child([&](DeviceArena& own, SharedPages& theirs) {
    void* ptr = nullptr;
    size_t bytes = 0;
    if (!theirs.open(handle, &ptr, &bytes).empty()) return 1;
    if (readable(ptr)) return 2;  // opened outside any access scope: protected
    DeviceArena::AccessScope access(own);
    if (!readable(ptr) || bytes_of(ptr)[kBytes / 2] != 0x33) return 3;
    return 0;
  }, /*protect=*/true);
  EXPECT_EQ(child, 0);
}

// Pages for sharing keep the arena's own alignment when it is coarser than a page
// (the MLU's is 64 KiB), for them and for every allocation after them.
TEST(SharedPages, PageAllocationsKeepTheArenasAlignment) {
  constexpr size_t kCoarse = 64 << 10;
  DeviceArena arena(kArena, kCoarse, /*protect=*/false);
  void* first = arena.allocate(100);  // moves the free space off a page boundary
  void* pages = arena.allocate_pages((1 << 20) + 1);
  void* after = arena.allocate(100);
  ASSERT_NE(pages, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(pages) % kCoarse, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(after) % kCoarse, 0u);
  EXPECT_EQ(arena.allocation_size(pages), (1 << 20) + kCoarse);
  for (void* ptr : {first, pages, after}) EXPECT_TRUE(arena.release(ptr));
  EXPECT_EQ(arena.used(), 0u);
  EXPECT_EQ(arena.largest_free_block(), kArena) << "the free space did not coalesce back";
}

TEST(SharedPages, WhatCannotBeSharedOrOpenedSaysWhy) {
  DeviceArena arena(kArena, kAlignment, /*protect=*/false);
  SharedPages shared(arena, kChip, 0);
  SharedPagesHandle handle{};
  void* small = arena.allocate(1000);
  EXPECT_NE(shared.share(static_cast<uint8_t*>(small) + 512, &handle).find("not the start"), std::string::npos);
  EXPECT_EQ(shared.share(arena.allocate(1000), &handle), "") << "any allocation is shared, with its pages";
  void* segment = arena.allocate_pages(kBytes);
  ASSERT_NE(segment, nullptr);
  ASSERT_EQ(shared.share(segment, &handle), "");
  SharedPagesHandle again{};
  ASSERT_EQ(shared.share(segment, &again), "");
  EXPECT_EQ(std::memcmp(&again, &handle, sizeof handle), 0) << "a second share names something else";
  void* ptr = nullptr;
  size_t bytes = 0;
  EXPECT_NE(shared.open(handle, &ptr, &bytes).find("this process"), std::string::npos);
  SharedPagesHandle other_chip = handle;
  other_chip.chip = kChip + 1;
  EXPECT_NE(shared.open(other_chip, &ptr, &bytes).find("not a handle of this chip"), std::string::npos);
  SharedPages device1(arena, kChip, 1);
  EXPECT_NE(device1.open(handle, &ptr, &bytes).find("device 0"), std::string::npos);
  EXPECT_NE(shared.close(segment).find("not memory opened"), std::string::npos);
}

TEST(SharedPages, AHandleOfAProcessThatExitedIsRefused) {
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const pid_t producer = fork();
  if (producer == 0) {
    DeviceArena arena(kArena, kAlignment, /*protect=*/false);
    SharedPages shared(arena, kChip, 0);
    SharedPagesHandle handle{};
    const bool ok = shared.share(arena.allocate_pages(kBytes), &handle).empty();
    const bool written = write(pipe_fds[1], &handle, sizeof handle) == static_cast<ssize_t>(sizeof handle);
    _exit(ok && written ? 0 : 1);
  }
  SharedPagesHandle handle{};
  ASSERT_EQ(read(pipe_fds[0], &handle, sizeof handle), static_cast<ssize_t>(sizeof handle));
  int status = 0;
  waitpid(producer, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  DeviceArena arena(kArena, kAlignment, /*protect=*/false);
  SharedPages shared(arena, kChip, 0);
  void* ptr = nullptr;
  size_t bytes = 0;
  EXPECT_NE(shared.open(handle, &ptr, &bytes).find("is gone"), std::string::npos);
  close(pipe_fds[0]);
  close(pipe_fds[1]);
}

// The consumer's mapping keeps the producer's memory: it reads and writes it after
// the producer has exited.
TEST(SharedPages, TheConsumerKeepsItsMappingAfterTheProducerExits) {
  int handle_pipe[2], go_pipe[2];
  ASSERT_EQ(pipe(handle_pipe), 0);
  ASSERT_EQ(pipe(go_pipe), 0);
  const pid_t producer = fork();
  if (producer == 0) {
    DeviceArena arena(kArena, kAlignment, /*protect=*/false);
    SharedPages shared(arena, kChip, 0);
    uint8_t* mine = bytes_of(arena.allocate_pages(kBytes));
    std::memset(mine, 0x11, kBytes);
    SharedPagesHandle handle{};
    char go = 0;
    const bool ok = shared.share(mine, &handle).empty() &&
                    write(handle_pipe[1], &handle, sizeof handle) == static_cast<ssize_t>(sizeof handle) &&
                    read(go_pipe[0], &go, 1) == 1;  // the consumer has opened it
    _exit(ok ? 0 : 1);
  }
  SharedPagesHandle handle{};
  ASSERT_EQ(read(handle_pipe[0], &handle, sizeof handle), static_cast<ssize_t>(sizeof handle));
  DeviceArena arena(kArena, kAlignment, /*protect=*/false);
  SharedPages shared(arena, kChip, 0);
  void* ptr = nullptr;
  size_t bytes = 0;
  ASSERT_EQ(shared.open(handle, &ptr, &bytes), "");
  char go = 'o';
  ASSERT_EQ(write(go_pipe[1], &go, 1), 1);
  int status = 0;
  ASSERT_EQ(waitpid(producer, &status, 0), producer);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(bytes_of(ptr)[0], 0x11);
  EXPECT_EQ(bytes_of(ptr)[kBytes - 1], 0x11);
  bytes_of(ptr)[1] = 0x22;
  EXPECT_EQ(bytes_of(ptr)[1], 0x22);
  EXPECT_EQ(shared.close(ptr), "");
  for (int fd : {handle_pipe[0], handle_pipe[1], go_pipe[0], go_pipe[1]}) close(fd);
}

}  // namespace
