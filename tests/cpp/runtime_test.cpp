// The runtime over the vendor's driver: device guard, caching allocator,
// copies and streams, through the backend library as PyTorch uses it. On a
// machine without the vendor's devices (a GPU vendor built on a CPU machine)
// every test is skipped, saying so.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <string>

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/impl/VirtualGuardImpl.h>

#include "allocator.h"
#include "allocator_config.h"
#include <torch_fl/device.h>
#include "device_decompositions.h"
#include "driver.h"
#include <torch_fl/stream.h>

namespace {

// Each test starts with one of these: skipped, with the reason, without the devices it
// needs. Only tests that use a second device need two (a real GPU machine may have one).
#define REQUIRE_A_DEVICE()                                                                            \
  if (torch_fl::device_count() < 1)                                                                  \
  GTEST_SKIP() << "needs a " << torch_fl::driver().vendor << " device, this machine has none"

#define REQUIRE_TWO_DEVICES()                                                                        \
  if (torch_fl::device_count() < 2)                                                                  \
  GTEST_SKIP() << "needs 2 " << torch_fl::driver().vendor << " devices, this machine has "          \
               << static_cast<int>(torch_fl::device_count())

const c10::Device kDevice0(c10::DeviceType::PrivateUse1, 0);
const c10::Device kDevice1(c10::DeviceType::PrivateUse1, 1);

TEST(DeviceGuard, SwitchesAndRestoresTheCurrentDevice) {
  REQUIRE_TWO_DEVICES();
  ASSERT_GE(torch_fl::device_count(), 2);
  torch_fl::set_current_device(0);
  {
    c10::DeviceGuard guard(kDevice1);
    EXPECT_EQ(torch_fl::current_device(), 1);
  }
  EXPECT_EQ(torch_fl::current_device(), 0);
}

TEST(DeviceGuard, RejectsAnInvalidIndexAsCudaDoes) {
  REQUIRE_A_DEVICE();
  try {
    torch_fl::set_current_device(9);
    FAIL() << "set_current_device(9) did not throw";
  } catch (const c10::IndexError&) {
    FAIL() << "an invalid ordinal is a RuntimeError (c10::Error), as in CUDA, not an IndexError";
  } catch (const c10::Error& error) {
    EXPECT_NE(std::string(error.what()).find("invalid device ordinal 9"), std::string::npos) << error.what();
  }
}

TEST(Driver, ReportsDevicePropertiesThroughTheAbi) {
  REQUIRE_A_DEVICE();
  tflDeviceProperties properties{};
  const int32_t last = torch_fl::device_count() - 1;  // the second device where there are two
  ASSERT_EQ(torch_fl::driver().device_properties(last, &properties), TFL_SUCCESS);
  EXPECT_GT(std::strlen(properties.name), 0u);
  size_t free_bytes = 0, total_bytes = 0;
  ASSERT_EQ(torch_fl::driver().memory_info(last, &free_bytes, &total_bytes), TFL_SUCCESS);
  EXPECT_EQ(properties.total_memory, total_bytes);
  EXPECT_NE(torch_fl::driver().device_properties(torch_fl::device_count(), &properties), TFL_SUCCESS);
}

// "aten::name.overload" in the dispatcher.
std::optional<c10::OperatorHandle> find_op(const std::string& name) {
  const auto dot = name.find('.');
  return c10::Dispatcher::singleton().findSchema(
      {name.substr(0, dot), dot == std::string::npos ? "" : name.substr(dot + 1)});
}

// The table is keyed by name: a misspelt or renamed op would never be found.
TEST(DeviceDecompositions, EachNamesAnAtenOpWithoutACpuKernel) {
  ASSERT_FALSE(torch_fl::device_decomposition_names().empty());
  for (const std::string& name : torch_fl::device_decomposition_names()) {
    const auto op = find_op(name);
    ASSERT_TRUE(op.has_value()) << name;
    EXPECT_FALSE(op->hasComputedKernelForDispatchKey(c10::DispatchKey::CPU)) << name << " has a CPU kernel now";
    EXPECT_NE(torch_fl::find_device_decomposition(name), nullptr) << name;
  }
  EXPECT_EQ(torch_fl::find_device_decomposition("aten::add.Tensor"), nullptr);
}

// A renamed op has its CPU kernel: without the table it would take the CPU fallback.
TEST(DeviceDecompositions, EachRenamedOpIsAnAtenOpWithACpuKernel) {
  ASSERT_FALSE(torch_fl::renamed_op_names().empty());
  for (const std::string& name : torch_fl::renamed_op_names()) {
    const auto op = find_op(name);
    ASSERT_TRUE(op.has_value()) << name;
    EXPECT_TRUE(op->hasComputedKernelForDispatchKey(c10::DispatchKey::CPU)) << name;
    EXPECT_NE(torch_fl::find_device_decomposition(name), nullptr) << name;
  }
}

TEST(Allocator, ReusesAFreedBlockWithoutCallingTheDriver) {
  REQUIRE_A_DEVICE();
  torch_fl::empty_cache();
  const auto before = torch_fl::memory_stats(0);
  { at::Tensor t = at::empty({1024}, at::TensorOptions().device(kDevice0)); }
  const auto after_first = torch_fl::memory_stats(0);
  EXPECT_EQ(after_first.driver_allocations, before.driver_allocations + 1);
  EXPECT_EQ(after_first.allocated_bytes, before.allocated_bytes);
  { at::Tensor t = at::empty({1024}, at::TensorOptions().device(kDevice0)); }
  const auto after_second = torch_fl::memory_stats(0);
  EXPECT_EQ(after_second.driver_allocations, after_first.driver_allocations) << "the cached block was not reused";
  EXPECT_GT(after_second.reserved_bytes, 0);
  torch_fl::empty_cache();
  EXPECT_EQ(torch_fl::memory_stats(0).reserved_bytes, 0);
}

TEST(Allocator, SmallTensorsShareOneSegmentAndFreedNeighboursMerge) {
  REQUIRE_A_DEVICE();
  torch_fl::empty_cache();
  const auto before = torch_fl::memory_stats(0);
  at::Tensor a = at::empty({1000}, at::TensorOptions().device(kDevice0));
  at::Tensor b = at::empty({3000}, at::TensorOptions().device(kDevice0));
  at::Tensor c = at::empty({10}, at::TensorOptions().device(kDevice0));
  EXPECT_EQ(torch_fl::memory_stats(0).driver_allocations, before.driver_allocations + 1) << "one segment, split";
  auto segments = torch_fl::memory_snapshot(0);
  ASSERT_EQ(segments.size(), 1u);
  ASSERT_EQ(segments[0].blocks.size(), 4u);  // a, b, c and the free rest
  EXPECT_EQ(segments[0].blocks[1].address, segments[0].blocks[0].address + 4096);  // a rounded to 512 B
  b.reset();
  a.reset();  // a's block merges with b's, freed before it
  segments = torch_fl::memory_snapshot(0);
  ASSERT_EQ(segments[0].blocks.size(), 3u);
  EXPECT_EQ(segments[0].blocks[0].size, 4096u + 12288u);
  EXPECT_EQ(segments[0].blocks[0].state, torch_fl::BlockState::kFree);
  c.reset();  // now the whole segment is one free block, and goes back to the driver
  segments = torch_fl::memory_snapshot(0);
  ASSERT_EQ(segments[0].blocks.size(), 1u);
  torch_fl::empty_cache();
  EXPECT_TRUE(torch_fl::memory_snapshot(0).empty());
  EXPECT_EQ(torch_fl::memory_stats(0).reserved_bytes, 0);
}

TEST(Allocator, ABigCachedBlockIsSplitForASmallerLargeRequest) {
  REQUIRE_A_DEVICE();
  torch_fl::empty_cache();
  { at::Tensor big = at::empty({8 << 20}, at::TensorOptions().device(kDevice0)); }  // 32 MiB, cached
  const auto cached = torch_fl::memory_stats(0);
  at::Tensor part = at::empty({1 << 20}, at::TensorOptions().device(kDevice0));  // 4 MiB from it
  at::Tensor other = at::empty({1 << 20}, at::TensorOptions().device(kDevice0));  // and the next 4 MiB
  EXPECT_EQ(torch_fl::memory_stats(0).driver_allocations, cached.driver_allocations);
  part.reset();
  other.reset();
  torch_fl::empty_cache();
  EXPECT_EQ(torch_fl::memory_stats(0).reserved_bytes, 0);
}

TEST(AllocatorConfig, ParsesKeysAndRejectsMistakesByName) {
  const auto config = torch_fl::parse_allocator_config("max_split_size_mb:64,garbage_collection_threshold:0.75");
  EXPECT_EQ(config.max_split_size, size_t{64} << 20);
  EXPECT_DOUBLE_EQ(config.garbage_collection_threshold, 0.75);
  EXPECT_EQ(torch_fl::parse_allocator_config("").max_split_size, std::numeric_limits<size_t>::max());
  try {
    torch_fl::parse_allocator_config("max_split_size_mb:64,gc_threshold:0.5");
    FAIL() << "an unknown key must be refused";
  } catch (const c10::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown key 'gc_threshold'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(torch_fl::parse_allocator_config("garbage_collection_threshold:1.5"), c10::ValueError);
  EXPECT_THROW(torch_fl::parse_allocator_config("max_split_size_mb:lots"), c10::ValueError);
}

TEST(Allocator, OutOfMemoryRaisesAndTheDeviceStaysUsable) {
  REQUIRE_A_DEVICE();
  // 1 TiB: more than any device here has (the simulators run with 4 GiB each; PoCL
  // reports most of the host's RAM, and may allow one 8 GiB buffer).
  EXPECT_THROW(at::empty({int64_t{1} << 40}, at::TensorOptions().device(kDevice0).dtype(at::kByte)),
               c10::OutOfMemoryError);
  at::Tensor t = at::ones({4}, at::TensorOptions().device(kDevice0));
  EXPECT_EQ(t.cpu().sum().item<float>(), 4.0f);
}

TEST(Copy, HostDeviceRoundTripPreservesValues) {
  REQUIRE_A_DEVICE();
  const at::Tensor host = at::randn({7, 5});
  const at::Tensor back = host.to(kDevice0).cpu();
  EXPECT_TRUE(at::equal(host, back));
}

TEST(Copy, NonContiguousAndCastingCopies) {
  REQUIRE_A_DEVICE();
  const at::Tensor host = at::arange(24, at::kFloat).reshape({4, 6});
  const at::Tensor dev = host.to(kDevice0);
  EXPECT_TRUE(at::equal(dev.t().cpu(), host.t()));
  EXPECT_TRUE(at::equal(dev.t().contiguous().cpu(), host.t().contiguous()));
  EXPECT_TRUE(at::equal(dev.to(at::kInt).cpu(), host.to(at::kInt)));
  at::Tensor strided_dst = at::zeros({6, 4}, at::TensorOptions().device(kDevice0)).t();
  strided_dst.copy_(host);
  EXPECT_TRUE(at::equal(strided_dst.cpu(), host));
}

TEST(Copy, CrossDeviceCopy) {
  REQUIRE_TWO_DEVICES();
  const at::Tensor host = at::randn({3, 3});
  const at::Tensor on1 = host.to(kDevice0).to(kDevice1);
  EXPECT_EQ(on1.device(), kDevice1);
  EXPECT_TRUE(at::equal(on1.cpu(), host));
}

TEST(Streams, PoolStreamsAreDistinctFromTheDefaultStream) {
  REQUIRE_A_DEVICE();
  const c10::Stream pooled = torch_fl::stream_from_pool(0, 0);
  EXPECT_NE(pooled, torch_fl::default_stream(0));
  const c10::Stream previous = torch_fl::exchange_stream(pooled);
  EXPECT_EQ(torch_fl::current_stream(0), pooled);
  torch_fl::exchange_stream(previous);
  EXPECT_EQ(torch_fl::current_stream(0), torch_fl::default_stream(0));
}

TEST(Streams, EventRecordedOnAStreamCompletes) {
  REQUIRE_A_DEVICE();
  c10::impl::VirtualGuardImpl impl(c10::DeviceType::PrivateUse1);
  void* event = nullptr;
  const c10::Stream stream = torch_fl::current_stream(0);
  at::Tensor t = at::ones({256}, at::TensorOptions().device(kDevice0));
  impl.record(&event, stream, 0, c10::EventFlag::PYTORCH_DEFAULT);
  impl.synchronizeEvent(event);
  EXPECT_TRUE(impl.queryEvent(event));
  impl.destroyEvent(event, 0);
}

}  // namespace
