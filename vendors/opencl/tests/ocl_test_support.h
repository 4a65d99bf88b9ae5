// What the OpenCL driver's tests share: the first device, a stream on it, and
// assertions that print the driver's detail on failure.
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "ocl_platform.h"
#include "ocl_queue.h"
#include "ocl_status.h"

#define ASSERT_OCL_OK(call) ASSERT_EQ((call), ::torch_fl::ocl::kSuccess) << ::torch_fl::ocl::last_detail()
#define EXPECT_OCL_OK(call) EXPECT_EQ((call), ::torch_fl::ocl::kSuccess) << ::torch_fl::ocl::last_detail()

namespace torch_fl::ocl::testing {

// Skips the test (saying why) on a machine with no OpenCL device.
class OclTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Platform* platform = nullptr;
    ASSERT_OCL_OK(Platform::get(&platform));
    if (platform->device_count() == 0) GTEST_SKIP() << "no OpenCL device on this machine";
    ASSERT_OCL_OK(platform->device(0, &device_));
    Stream* stream = nullptr;
    ASSERT_OCL_OK(Stream::create(0, &stream));
    stream_.reset(stream);
  }

  Device* device_ = nullptr;
  std::unique_ptr<Stream> stream_;
};

}  // namespace torch_fl::ocl::testing
