// The simulated MLU's IPC calls through its own API: a forked process opens the
// parent's allocation, each side sees the other's writes, and misuse is refused
// with the MLU's status codes. (The sharing itself: vendors/sim/tests/shared_pages_test.cpp.)
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

#include "mlu_runtime.h"

namespace {

constexpr size_t kBytes = size_t{2} << 20;  // a caching-allocator segment

std::vector<uint8_t> read_back(void* device_ptr, mluQueue_t queue) {
  std::vector<uint8_t> host(kBytes);
  if (mluMemcpy(host.data(), device_ptr, kBytes, queue, MLU_MEMCPY_DEV_TO_HOST) != MLU_RET_SUCCESS) host.clear();
  return host;
}

// The child's exit status: 0, or the number of the step that failed.
int consumer(const mluIpcMemHandle_t& handle) {
  mluQueue_t queue = nullptr;
  if (mluQueueCreate(0, 0, &queue) != MLU_RET_SUCCESS) return 1;
  void* opened = nullptr;
  size_t bytes = 0;
  if (mluIpcOpenMemHandle(1, &opened, &bytes, handle) != MLU_RET_ERR_INVALID_VALUE) return 2;  // another device
  if (mluIpcOpenMemHandle(0, &opened, &bytes, handle) != MLU_RET_SUCCESS) return 3;
  if (bytes != kBytes || mluPointerDevice(opened) != 0) return 4;
  const std::vector<uint8_t> seen = read_back(opened, queue);
  if (seen.size() != kBytes || seen[0] != 1 || seen[kBytes - 1] != 1) return 5;
  const std::vector<uint8_t> twos(kBytes, 2);
  if (mluMemcpy(opened, twos.data(), kBytes, queue, MLU_MEMCPY_HOST_TO_DEV) != MLU_RET_SUCCESS) return 6;
  if (mluFree(opened) != MLU_RET_ERR_INVALID_ADDRESS) return 7;  // opened memory is closed, not freed
  mluIpcMemHandle_t again{};
  if (mluIpcGetMemHandle(&again, opened) != MLU_RET_ERR_INVALID_ADDRESS) return 8;  // nor shared on
  if (mluIpcCloseMemHandle(opened) != MLU_RET_SUCCESS) return 9;
  if (mluIpcCloseMemHandle(opened) != MLU_RET_ERR_INVALID_ADDRESS) return 10;
  return 0;
}

TEST(MluIpc, AForkedProcessSharesAnAllocationBothWays) {
  mluQueue_t queue = nullptr;
  ASSERT_EQ(mluQueueCreate(0, 0, &queue), MLU_RET_SUCCESS);
  void* mine = nullptr;
  ASSERT_EQ(mluMalloc(0, &mine, kBytes), MLU_RET_SUCCESS);
  const std::vector<uint8_t> ones(kBytes, 1);
  ASSERT_EQ(mluMemcpy(mine, ones.data(), kBytes, queue, MLU_MEMCPY_HOST_TO_DEV), MLU_RET_SUCCESS);
  mluIpcMemHandle_t handle{};
  ASSERT_EQ(mluIpcGetMemHandle(&handle, mine), MLU_RET_SUCCESS);
  EXPECT_EQ(read_back(mine, queue), ones) << "sharing keeps the bytes";

  const pid_t pid = fork();
  if (pid == 0) _exit(consumer(handle));
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0) << "the consumer's failed step";
  EXPECT_EQ(read_back(mine, queue), std::vector<uint8_t>(kBytes, 2)) << "the consumer's writes";
  EXPECT_EQ(mluFree(mine), MLU_RET_SUCCESS);
  EXPECT_EQ(mluQueueDestroy(queue), MLU_RET_SUCCESS);
}

TEST(MluIpc, RefusesWhatCannotBeShared) {
  void* small = nullptr;
  ASSERT_EQ(mluMalloc(0, &small, 4096), MLU_RET_SUCCESS);
  mluIpcMemHandle_t handle{};
  // The MLU's 64 KiB alignment makes every allocation whole pages of its own: even
  // a small one can be shared, but only from its start.
  EXPECT_EQ(mluIpcGetMemHandle(&handle, small), MLU_RET_SUCCESS);
  EXPECT_EQ(mluIpcGetMemHandle(&handle, static_cast<uint8_t*>(small) + 512), MLU_RET_ERR_INVALID_ADDRESS);
  EXPECT_NE(std::string(mluGetLastErrorDetail()).find("mluIpcGetMemHandle: not the start of a live device allocation"),
            std::string::npos)
      << mluGetLastErrorDetail();
  int host = 0;
  EXPECT_EQ(mluIpcGetMemHandle(&handle, &host), MLU_RET_ERR_INVALID_ADDRESS);
  EXPECT_EQ(mluFree(small), MLU_RET_SUCCESS);

  void* big = nullptr;
  ASSERT_EQ(mluMalloc(0, &big, kBytes), MLU_RET_SUCCESS);
  ASSERT_EQ(mluIpcGetMemHandle(&handle, big), MLU_RET_SUCCESS);
  void* opened = nullptr;
  size_t bytes = 0;
  EXPECT_EQ(mluIpcOpenMemHandle(0, &opened, &bytes, handle), MLU_RET_ERR_INVALID_VALUE);  // our own handle
  EXPECT_NE(std::string(mluGetLastErrorDetail()).find("this process"), std::string::npos) << mluGetLastErrorDetail();
  mluIpcMemHandle_t garbage{};
  EXPECT_EQ(mluIpcOpenMemHandle(0, &opened, &bytes, garbage), MLU_RET_ERR_INVALID_VALUE);
  EXPECT_EQ(mluFree(big), MLU_RET_SUCCESS);  // a shared allocation frees as any other
}

}  // namespace
