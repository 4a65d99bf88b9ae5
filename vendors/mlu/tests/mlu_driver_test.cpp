// The simulated MLU runtime alone: memory, alignment, capacity, protection,
// queue order and notifiers. CTest runs it with TORCH_FL_MLU_MEMORY_MB=64.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <csignal>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "mlu_device.h"
#include "mlu_runtime.h"

namespace {

constexpr size_t kCapacity = size_t{64} << 20;

TEST(MluDriver, ReportsTwoDevicesByDefault) {
  int count = 0;
  ASSERT_EQ(mluGetDeviceCount(&count), MLU_RET_SUCCESS);
  EXPECT_EQ(count, 2);
}

TEST(MluDriver, AllocationsAreAlignedTo64KiB) {
  std::vector<void*> ptrs;
  for (size_t bytes : {1, 100, 65536, 65537, 300000}) {
    void* p = nullptr;
    ASSERT_EQ(mluMalloc(0, &p, bytes), MLU_RET_SUCCESS);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % MLU_MEMORY_ALIGNMENT, 0u) << bytes;
    ptrs.push_back(p);
  }
  for (void* p : ptrs) EXPECT_EQ(mluFree(p), MLU_RET_SUCCESS);
}

TEST(MluDriver, CapacityIsEnforcedAndFreeingRestoresIt) {
  size_t free_before = 0, total = 0;
  ASSERT_EQ(mluMemGetInfo(1, &free_before, &total), MLU_RET_SUCCESS);
  EXPECT_EQ(total, kCapacity);
  void* big = nullptr;
  EXPECT_EQ(mluMalloc(1, &big, kCapacity + 1), MLU_RET_ERR_NO_MEMORY);
  EXPECT_NE(std::string(mluGetLastErrorDetail()).find("requested"), std::string::npos);
  ASSERT_EQ(mluMalloc(1, &big, kCapacity / 2), MLU_RET_SUCCESS);
  size_t free_during = 0;
  ASSERT_EQ(mluMemGetInfo(1, &free_during, &total), MLU_RET_SUCCESS);
  EXPECT_EQ(free_during, free_before - kCapacity / 2);
  ASSERT_EQ(mluFree(big), MLU_RET_SUCCESS);
  size_t free_after = 0;
  ASSERT_EQ(mluMemGetInfo(1, &free_after, &total), MLU_RET_SUCCESS);
  EXPECT_EQ(free_after, free_before);
}

TEST(MluDriver, FreedNeighboursCoalesceIntoOneRange) {
  void *a = nullptr, *b = nullptr, *whole = nullptr;
  ASSERT_EQ(mluMalloc(1, &a, kCapacity / 2), MLU_RET_SUCCESS);
  ASSERT_EQ(mluMalloc(1, &b, kCapacity / 2), MLU_RET_SUCCESS);
  ASSERT_EQ(mluFree(a), MLU_RET_SUCCESS);
  ASSERT_EQ(mluFree(b), MLU_RET_SUCCESS);
  ASSERT_EQ(mluMalloc(1, &whole, kCapacity), MLU_RET_SUCCESS);
  ASSERT_EQ(mluFree(whole), MLU_RET_SUCCESS);
}

TEST(MluDriver, RejectsForeignPointersAndDoubleFree) {
  int host = 0;
  EXPECT_EQ(mluFree(&host), MLU_RET_ERR_INVALID_ADDRESS);
  void* p = nullptr;
  ASSERT_EQ(mluMalloc(0, &p, 128), MLU_RET_SUCCESS);
  EXPECT_EQ(mluPointerDevice(p), 0);
  EXPECT_EQ(mluPointerDevice(&host), -1);
  ASSERT_EQ(mluFree(p), MLU_RET_SUCCESS);
  EXPECT_EQ(mluFree(p), MLU_RET_ERR_INVALID_ADDRESS);
  EXPECT_EQ(mluMalloc(7, &p, 128), MLU_RET_ERR_INVALID_DEVICE);
}

TEST(MluDriver, CopiesRoundTripThroughDeviceMemory) {
  mluQueue_t q = nullptr;
  ASSERT_EQ(mluQueueCreate(0, 0, &q), MLU_RET_SUCCESS);
  std::vector<float> in(1000), out(1000, -1.f);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i) * 0.5f;
  void *a = nullptr, *b = nullptr;
  ASSERT_EQ(mluMalloc(0, &a, 4000), MLU_RET_SUCCESS);
  ASSERT_EQ(mluMalloc(1, &b, 4000), MLU_RET_SUCCESS);
  ASSERT_EQ(mluMemcpyAsync(a, in.data(), 4000, q, MLU_MEMCPY_HOST_TO_DEV), MLU_RET_SUCCESS);
  std::fill(in.begin(), in.end(), 0.f);  // the driver staged the bytes: reuse is allowed
  ASSERT_EQ(mluMemcpyAsync(b, a, 4000, q, MLU_MEMCPY_DEV_TO_DEV), MLU_RET_SUCCESS);
  ASSERT_EQ(mluMemcpyAsync(out.data(), b, 4000, q, MLU_MEMCPY_DEV_TO_HOST), MLU_RET_SUCCESS);
  ASSERT_EQ(mluQueueSync(q), MLU_RET_SUCCESS);
  for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], static_cast<float>(i) * 0.5f);
  // Allocations are whole 64 KiB units; a copy past the unit's end is refused.
  std::vector<uint8_t> large(2 * MLU_MEMORY_ALIGNMENT);
  EXPECT_EQ(mluMemcpyAsync(a, large.data(), MLU_MEMORY_ALIGNMENT + 1, q, MLU_MEMCPY_HOST_TO_DEV),
            MLU_RET_ERR_INVALID_ADDRESS)
      << "a copy past the end of an allocation must be refused";
  mluFree(a);
  mluFree(b);
  mluQueueDestroy(q);
}

TEST(MluDriver, QueueRunsWorkInOrderAsynchronously) {
  mluQueue_t q = nullptr;
  ASSERT_EQ(mluQueueCreate(0, 0, &q), MLU_RET_SUCCESS);
  std::atomic<bool> release{false};
  std::vector<int> order;
  mlu_sim::enqueue(q, [&]() -> std::string {
    while (!release) std::this_thread::yield();
    order.push_back(1);
    return "";
  });
  mlu_sim::enqueue(q, [&]() -> std::string {
    order.push_back(2);
    return "";
  });
  // The host is not blocked by queued work.
  EXPECT_EQ(mluQueueQuery(q), MLU_RET_ERR_NOT_READY);
  release = true;
  ASSERT_EQ(mluQueueSync(q), MLU_RET_SUCCESS);
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  EXPECT_EQ(mluQueueQuery(q), MLU_RET_SUCCESS);
  mluQueueDestroy(q);
}

TEST(MluDriver, FailedWorkIsReportedAtTheNextSyncOnly) {
  mluQueue_t q = nullptr;
  ASSERT_EQ(mluQueueCreate(0, 0, &q), MLU_RET_SUCCESS);
  mlu_sim::enqueue(q, []() -> std::string { return "kernel exploded"; });
  EXPECT_EQ(mluQueueSync(q), MLU_RET_ERR_EXECUTION);
  EXPECT_STREQ(mluGetLastErrorDetail(), "kernel exploded");
  EXPECT_EQ(mluQueueSync(q), MLU_RET_SUCCESS) << "the error is reported once, then the queue is usable";
  mluQueueDestroy(q);
}

TEST(MluDriver, NotifierOrdersWorkAcrossQueues) {
  mluQueue_t producer = nullptr, consumer = nullptr;
  ASSERT_EQ(mluQueueCreate(0, 0, &producer), MLU_RET_SUCCESS);
  ASSERT_EQ(mluQueueCreate(0, 0, &consumer), MLU_RET_SUCCESS);
  mluNotifier_t done = nullptr;
  ASSERT_EQ(mluNotifierCreate(0, &done), MLU_RET_SUCCESS);
  std::atomic<int> value{0};
  int seen = -1;
  mlu_sim::enqueue(producer, [&]() -> std::string {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    value = 42;
    return "";
  });
  ASSERT_EQ(mluPlaceNotifier(done, producer), MLU_RET_SUCCESS);
  ASSERT_EQ(mluQueueWaitNotifier(consumer, done), MLU_RET_SUCCESS);
  mlu_sim::enqueue(consumer, [&]() -> std::string {
    seen = value;
    return "";
  });
  ASSERT_EQ(mluQueueSync(consumer), MLU_RET_SUCCESS);
  EXPECT_EQ(seen, 42);
  EXPECT_EQ(mluNotifierQuery(done), MLU_RET_SUCCESS);
  mluNotifierDestroy(done);
  mluQueueDestroy(producer);
  mluQueueDestroy(consumer);
}

TEST(MluDriver, NotifiersMeasureElapsedTime) {
  mluQueue_t q = nullptr;
  ASSERT_EQ(mluQueueCreate(0, 0, &q), MLU_RET_SUCCESS);
  mluNotifier_t start = nullptr, end = nullptr;
  ASSERT_EQ(mluNotifierCreate(0, &start), MLU_RET_SUCCESS);
  ASSERT_EQ(mluNotifierCreate(0, &end), MLU_RET_SUCCESS);
  ASSERT_EQ(mluPlaceNotifier(start, q), MLU_RET_SUCCESS);
  mlu_sim::enqueue(q, []() -> std::string {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return "";
  });
  ASSERT_EQ(mluPlaceNotifier(end, q), MLU_RET_SUCCESS);
  ASSERT_EQ(mluNotifierWait(end), MLU_RET_SUCCESS);
  float ms = 0;
  ASSERT_EQ(mluNotifierElapsedTime(start, end, &ms), MLU_RET_SUCCESS);
  EXPECT_GE(ms, 19.0f);
  mluNotifierDestroy(start);
  mluNotifierDestroy(end);
  mluQueueDestroy(q);
}

// Busy time is the union of the device's queues' work: two queues holding work
// through the same 80 ms count 80 ms, not 160; an idle device does not count;
// another device's work is not this one's.
TEST(MluDriver, BusyTimeCountsOverlappingQueuesOnce) {
  mluQueue_t first = nullptr, second = nullptr;
  ASSERT_EQ(mluQueueCreate(0, 0, &first), MLU_RET_SUCCESS);
  ASSERT_EQ(mluQueueCreate(0, 0, &second), MLU_RET_SUCCESS);
  uint64_t busy0 = 0, uptime0 = 0, other_busy0 = 0, other_uptime0 = 0;
  ASSERT_EQ(mluDeviceGetBusyTime(0, &busy0, &uptime0), MLU_RET_SUCCESS);
  ASSERT_EQ(mluDeviceGetBusyTime(1, &other_busy0, &other_uptime0), MLU_RET_SUCCESS);
  std::atomic<bool> release{false};
  // When the first held task began: on a loaded machine a queue's worker may start it
  // a few ms after the enqueue, and only from then is the device busy.
  std::atomic<int64_t> first_start_us{INT64_MAX};
  const auto now_us = [] {
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  };
  const auto window_start = std::chrono::steady_clock::now();
  for (mluQueue_t q : {first, second}) {
    mlu_sim::enqueue(q, [&]() -> std::string {
      int64_t started = now_us(), earliest = first_start_us.load();
      while (started < earliest && !first_start_us.compare_exchange_weak(earliest, started)) {
      }
      while (!release) std::this_thread::sleep_for(std::chrono::microseconds(200));
      return "";
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(80));
  const int64_t released_us = now_us();
  release = true;
  ASSERT_EQ(mluQueueSync(first), MLU_RET_SUCCESS);
  ASSERT_EQ(mluQueueSync(second), MLU_RET_SUCCESS);
  uint64_t busy1 = 0, uptime1 = 0;
  ASSERT_EQ(mluDeviceGetBusyTime(0, &busy1, &uptime1), MLU_RET_SUCCESS);
  const auto window_us = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - window_start).count());
  ASSERT_LT(first_start_us.load(), released_us) << "the held tasks never started before their release";
  const auto held_us = static_cast<uint64_t>(released_us - first_start_us.load());
  EXPECT_GE(held_us, 40'000u) << "a queue's worker took over 40 ms to start its task";
  EXPECT_GE(busy1 - busy0 + 1'000u, held_us) << "busy time shorter than the span a task was held";
  EXPECT_LE(busy1 - busy0, window_us + 1'000u) << "overlapping queues were counted twice";
  EXPECT_GE(uptime1 - uptime0, busy1 - busy0);

  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  uint64_t busy2 = 0, uptime2 = 0, other_busy1 = 0, other_uptime1 = 0;
  ASSERT_EQ(mluDeviceGetBusyTime(0, &busy2, &uptime2), MLU_RET_SUCCESS);
  EXPECT_LT(busy2 - busy1, 5'000u) << "an idle device counted as busy";
  EXPECT_GE(uptime2 - uptime1, 50'000u);
  ASSERT_EQ(mluDeviceGetBusyTime(1, &other_busy1, &other_uptime1), MLU_RET_SUCCESS);
  EXPECT_EQ(other_busy1, other_busy0) << "device 0's work counted on device 1";
  EXPECT_EQ(mluDeviceGetBusyTime(7, &busy2, &uptime2), MLU_RET_ERR_INVALID_DEVICE);
  mluQueueDestroy(first);
  mluQueueDestroy(second);
}

// Protection mode: a host read of device memory must crash, not pass. Run in
// a child process (death test) with protection switched on before the devices exist.
// The fault a protected page gives a host read; any other end (the allocation
// failing and aborting, an exit) fails the test. Under AddressSanitizer
// (make test-sanitize) the fault becomes its SEGV/BUS report and exit code 1.
#if defined(__SANITIZE_ADDRESS__)
bool killed_by_a_memory_fault(int status) { return WIFEXITED(status) && WEXITSTATUS(status) == 1; }
constexpr const char* kFaultMessage = "AddressSanitizer: (SEGV|BUS)";
#else
bool killed_by_a_memory_fault(int status) {
  return WIFSIGNALED(status) && (WTERMSIG(status) == SIGSEGV || WTERMSIG(status) == SIGBUS);
}
constexpr const char* kFaultMessage = "";  // the signal decides
#endif

TEST(MluDriverDeathTest, HostAccessToProtectedDeviceMemoryCrashes) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("TORCH_FL_MLU_PROTECT", "1", 1);
        // The devices were created by earlier tests in the parent; the
        // threadsafe style re-executes the binary, so this child creates them
        // anew with protection.
        void* p = nullptr;
        if (mluMalloc(0, &p, 4096) != MLU_RET_SUCCESS) std::abort();
        volatile int value = *static_cast<volatile int*>(p);
        (void)value;
        std::fprintf(stderr, "host read of device memory did not fault\n");
        std::exit(0);
      },
      killed_by_a_memory_fault, kFaultMessage);
}

}  // namespace
