// The OpenCL driver's memory, streams, events and fork safety. CTest runs it
// with TORCH_FL_OPENCL_MEMORY_MB=64.
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <string>
#include <vector>

#include "ocl_copy.h"
#include "ocl_memory.h"
#include "ocl_test_support.h"

namespace torch_fl::ocl {
namespace {

using testing::OclTest;
constexpr size_t kCap = size_t{64} << 20;

TEST_F(OclTest, CapacityIsTheCapBelowGlobalMemory) {
  EXPECT_EQ(device_->capacity, std::min<uint64_t>(kCap, device_->global_memory));
  size_t free_bytes = 0, total = 0;
  ASSERT_OCL_OK(memory_info(0, &free_bytes, &total));
  EXPECT_EQ(total, device_->capacity);
  EXPECT_EQ(free_bytes, total);
}

TEST_F(OclTest, AddressesArePageAlignedAndFaultOnHostAccess) {
  void* address = nullptr;
  ASSERT_OCL_OK(allocate(0, 1000, &address));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(address) % 4096, 0u);
  const pid_t child = fork();
  if (child == 0) {  // the child touches no OpenCL: only the reserved range
    volatile char value = *static_cast<volatile char*>(address);
    (void)value;
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) << "a host read of device memory must fault";
  EXPECT_OCL_OK(release(address));
}

TEST_F(OclTest, InteriorAddressesResolveToTheirBufferAndOffset) {
  void *a = nullptr, *b = nullptr;
  ASSERT_OCL_OK(allocate(0, 4096 * 3, &a));
  ASSERT_OCL_OK(allocate(0, 100, &b));
  Resolved start, interior, other;
  ASSERT_OCL_OK(resolve(a, 4096 * 3, &start));
  ASSERT_OCL_OK(resolve(static_cast<char*>(a) + 5000, 16, &interior));
  ASSERT_OCL_OK(resolve(b, 100, &other));
  EXPECT_EQ(start.offset, 0u);
  EXPECT_EQ(interior.buffer, start.buffer);
  EXPECT_EQ(interior.offset, 5000u);
  EXPECT_EQ(interior.available, 4096u * 3 - 5000);
  EXPECT_NE(other.buffer, start.buffer);
  EXPECT_EQ(interior.device, 0);
  // Past the end, and a range that runs over it, belong to no allocation.
  EXPECT_EQ(resolve(static_cast<char*>(b) + 100, 1, &other), kInvalidAddress);
  EXPECT_EQ(resolve(static_cast<char*>(b) + 50, 51, &other), kInvalidAddress);
  EXPECT_OCL_OK(release(a));
  EXPECT_OCL_OK(release(b));
}

TEST_F(OclTest, ForeignInteriorAndFreedAddressesAreRejected) {
  int host = 0;
  EXPECT_EQ(release(&host), kInvalidAddress);
  void* address = nullptr;
  ASSERT_OCL_OK(allocate(0, 256, &address));
  EXPECT_EQ(release(static_cast<char*>(address) + 8), kInvalidAddress);
  EXPECT_NE(std::string(last_detail()).find("not the start"), std::string::npos) << last_detail();
  ASSERT_OCL_OK(release(address));
  EXPECT_EQ(release(address), kInvalidAddress);
  Resolved resolved;
  EXPECT_FALSE(address_space().resolve(address, &resolved));
  EXPECT_EQ(allocate(7, 256, &address), kInvalidDevice);
}

TEST_F(OclTest, OutOfMemoryPastTheCapNamesSizesAndDeviceAndRecovers) {
  void *big = nullptr, *more = nullptr;
  ASSERT_OCL_OK(allocate(0, kCap / 2 + kCap / 4, &big));
  EXPECT_EQ(allocate(0, kCap / 2, &more), kOutOfMemory);
  const std::string detail = last_detail();
  EXPECT_NE(detail.find(std::to_string(kCap / 2) + " bytes"), std::string::npos) << detail;
  EXPECT_NE(detail.find("device 0"), std::string::npos) << detail;
  EXPECT_NE(detail.find(std::to_string(kCap)), std::string::npos) << detail;
  ASSERT_OCL_OK(release(big));
  ASSERT_OCL_OK(allocate(0, kCap / 2, &more));  // nothing leaked: the space is back
  ASSERT_OCL_OK(release(more));
  size_t free_bytes = 0, total = 0;
  ASSERT_OCL_OK(memory_info(0, &free_bytes, &total));
  EXPECT_EQ(free_bytes, total);
}

TEST_F(OclTest, AboveTheLargestSingleAllocationIsOutOfMemory) {
  void* address = nullptr;
  EXPECT_EQ(allocate(0, device_->max_allocation + 1, &address), kOutOfMemory);
  EXPECT_NE(std::string(last_detail()).find("CL_DEVICE_MAX_MEM_ALLOC_SIZE"), std::string::npos) << last_detail();
  EXPECT_EQ(address, nullptr);
}

TEST_F(OclTest, EventsTimeTheWorkBetweenThem) {
  const size_t bytes = size_t{16} << 20;
  std::vector<char> host(bytes, 1);
  void* address = nullptr;
  ASSERT_OCL_OK(allocate(0, bytes, &address));
  Event start(0), end(0);
  bool completed = false;
  ASSERT_OCL_OK(start.query(&completed));
  EXPECT_TRUE(completed) << "an event never recorded counts as completed";
  ASSERT_OCL_OK(start.record(*stream_));
  for (int i = 0; i < 4; ++i) ASSERT_OCL_OK(write(*stream_, address, host.data(), bytes, HostSource::kBorrowed));
  ASSERT_OCL_OK(end.record(*stream_));
  ASSERT_OCL_OK(end.synchronize());
  ASSERT_OCL_OK(end.query(&completed));
  EXPECT_TRUE(completed);
  float ms = -1;
  ASSERT_OCL_OK(Event::elapsed_ms(start, end, &ms));
  EXPECT_GT(ms, 0.0f);
  EXPECT_LT(ms, 60000.0f);
  Event never(0);
  EXPECT_NE(Event::elapsed_ms(never, end, &ms), kSuccess);
  ASSERT_OCL_OK(release(address));
}

TEST_F(OclTest, AStreamWaitsForAnotherStreamsEvent) {
  Stream* raw = nullptr;
  ASSERT_OCL_OK(Stream::create(0, &raw));
  std::unique_ptr<Stream> second(raw);
  const size_t bytes = size_t{8} << 20;
  std::vector<char> in(bytes, 7), out(bytes, 0);
  void *a = nullptr, *b = nullptr;
  ASSERT_OCL_OK(allocate(0, bytes, &a));
  ASSERT_OCL_OK(allocate(0, bytes, &b));
  Event written(0);
  ASSERT_OCL_OK(write(*stream_, a, in.data(), bytes, HostSource::kStaged));
  ASSERT_OCL_OK(written.record(*stream_));
  ASSERT_OCL_OK(written.block(*second));
  ASSERT_OCL_OK(copy(*second, b, a, bytes));
  ASSERT_OCL_OK(read(*second, out.data(), b, bytes));
  ASSERT_OCL_OK(second->synchronize());
  EXPECT_EQ(out, in);
  bool idle = false;
  ASSERT_OCL_OK(second->query(&idle));
  EXPECT_TRUE(idle);
  uint64_t busy = 0, elapsed = 0;
  busy_clock(0).read(&busy, &elapsed);
  EXPECT_GT(elapsed, 0u);
  ASSERT_OCL_OK(release(a));
  ASSERT_OCL_OK(release(b));
}

TEST_F(OclTest, AChildForkedAfterInitialisationGetsBadForkInsteadOfHanging) {
  void* address = nullptr;
  ASSERT_OCL_OK(allocate(0, 64, &address));
  const pid_t child = fork();
  if (child == 0) {
    alarm(30);  // a hang fails the test instead of stalling it
    void* in_child = nullptr;
    const bool refused = allocate(0, 64, &in_child) == kBadFork && stream_->synchronize() == kBadFork &&
                         std::string(last_detail()).find("spawn") != std::string::npos;
    _exit(refused ? 0 : 1);
  }
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  ASSERT_OCL_OK(release(address));
}

}  // namespace
}  // namespace torch_fl::ocl
