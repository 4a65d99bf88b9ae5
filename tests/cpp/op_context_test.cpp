// The spec's fallback policies as a generated kernel meets them: `fallback: error`
// for the whole op or for some dtypes raises NotImplementedError naming the op,
// the vendor, the spec line and the dtype; other non-native dtypes fall back.
// No spec in the repository declares either (the simulated chips fall back), so
// this is their test.
#include <gtest/gtest.h>

#include <string>

#include <ATen/ATen.h>

#include <torch_fl/device.h>
#include "driver.h"
#include <torch_fl/op_context.h>

namespace {

using torch_fl::FallbackPolicy;
using torch_fl::FallbackReason;
using torch_fl::KernelInfo;
using torch_fl::OpContext;

#define REQUIRE_A_DEVICE()                                                                            \
  if (torch_fl::device_count() < 1)                                                                  \
  GTEST_SKIP() << "needs a " << torch_fl::driver().vendor << " device, this machine has none"

const KernelInfo kWholeOpErrors{"mm", "specs/example.yaml:7", torch_fl::dtype_set({c10::ScalarType::Float}),
                                FallbackPolicy::kError, torch_fl::dtype_set({})};
const KernelInfo kFloat64Errors{"mm", "specs/example.yaml:9", torch_fl::dtype_set({c10::ScalarType::Float}),
                                FallbackPolicy::kCpu, torch_fl::dtype_set({c10::ScalarType::Double})};

at::Tensor on_device(c10::ScalarType dtype) {
  return at::ones({2, 2}, at::TensorOptions().dtype(dtype).device(c10::DeviceType::PrivateUse1, 0));
}

// The message of prepare_fallback's NotImplementedError, or "" when it lets the fallback run.
std::string refusal(const KernelInfo& info, c10::ScalarType dtype) {
  OpContext op(info);
  const at::Tensor self = on_device(dtype);
  op.check_input(self, "self", /*cpu_scalar_ok=*/false);
  EXPECT_FALSE(op.dtype_is_native(self, "self")) << "the test needs a dtype the kernel does not run natively";
  try {
    op.prepare_fallback(FallbackReason::kDtype);
  } catch (const c10::NotImplementedError& error) {
    return error.what_without_backtrace();
  }
  return "";
}

TEST(FallbackPolicy, ErrorForTheWholeOpRaisesNamingTheOpVendorAndSpecLine) {
  REQUIRE_A_DEVICE();
  const std::string message = refusal(kWholeOpErrors, c10::ScalarType::Int);
  const std::string vendor = std::string("[") + torch_fl::driver().vendor + "] mm";
  EXPECT_NE(message.find(vendor), std::string::npos) << message;
  EXPECT_NE(message.find("dtype not native"), std::string::npos) << message;
  EXPECT_NE(message.find("specs/example.yaml:7"), std::string::npos) << message;
  EXPECT_NE(message.find("declares `fallback: error` for this op"), std::string::npos) << message;
}

TEST(FallbackPolicy, ErrorForOneDtypeRaisesForItAndLetsTheOthersFallBack) {
  REQUIRE_A_DEVICE();
  const std::string message = refusal(kFloat64Errors, c10::ScalarType::Double);
  EXPECT_NE(message.find("('self' is Double)"), std::string::npos) << message;
  EXPECT_NE(message.find("specs/example.yaml:9"), std::string::npos) << message;
  EXPECT_NE(message.find("declares `fallback: error` for Double"), std::string::npos) << message;
  EXPECT_EQ(refusal(kFloat64Errors, c10::ScalarType::Int), "") << "int32 is not an error dtype: it falls back";
}

}  // namespace
