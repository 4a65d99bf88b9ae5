// The runtime's private formats (torch_fl/private_format.h), vendor-neutral: a
// test format, "TRANSPOSED" (a 2-D tensor stored as its transpose, with a spare
// row, so a reader that ignored the format would see wrong values and a wrong
// size), over whichever vendor is built. The generated kernels' use of a real
// format (the NPU's NC1HWC0) is tested in tests/python/test_private_formats.py.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include <ATen/ATen.h>

#include <torch_fl/device.h>
#include "driver.h"
#include <torch_fl/private_format.h>
#include <torch_fl/stream.h>

namespace {

const c10::Device kDevice(c10::DeviceType::PrivateUse1, 0);

std::atomic<int> to_public_calls{0};

std::vector<int64_t> transposed_sizes(at::IntArrayRef sizes) { return {sizes[1] + 1, sizes[0]}; }

at::Tensor to_transposed(const at::Tensor& t) {
  at::Tensor physical = at::zeros(transposed_sizes(t.sizes()), t.options());
  physical.narrow(0, 0, t.size(1)).copy_(t.t());
  return physical;
}

at::Tensor from_transposed(const at::Tensor& physical, at::IntArrayRef sizes) {
  ++to_public_calls;
  return physical.narrow(0, 0, sizes[1]).t().contiguous();
}

const torch_fl::PrivateFormat kTransposed{"TRANSPOSED", "private_format_test.cpp", 2, &to_transposed,
                                          &from_transposed, &transposed_sizes};

// A private tensor holding `values` (a CPU tensor), written as a format-aware op would.
at::Tensor private_holding(const at::Tensor& values) {
  at::Tensor result = torch_fl::empty_private(values.sizes(), values.options().device(kDevice), kTransposed);
  const at::Tensor physical = torch_fl::private_physical(result);
  EXPECT_TRUE(physical.defined());
  physical.copy_(to_transposed(values.to(kDevice)));
  return result;
}

class PrivateFormat : public ::testing::Test {
 protected:
  void SetUp() override {
    if (torch_fl::device_count() < 1) {
      GTEST_SKIP() << "needs a " << torch_fl::driver().vendor << " device, this machine has none";
    }
    torch_fl::set_private_formats_enabled(true);
    torch_fl::reset_private_format_stats();
  }
  void TearDown() override { torch_fl::set_private_formats_enabled(true); }
};

TEST_F(PrivateFormat, AResultKeepsItsPublicShapeAndSize) {
  const at::Tensor values = at::arange(12, at::kFloat).view({3, 4});
  const at::Tensor t = private_holding(values);
  EXPECT_EQ(torch_fl::private_format_of(t), &kTransposed);
  EXPECT_TRUE(torch_fl::is_whole_private(t, kTransposed));
  EXPECT_EQ(t.sizes(), values.sizes());
  EXPECT_EQ(t.strides(), values.strides());
  EXPECT_EQ(t.storage().nbytes(), values.nbytes());  // the public size, not the physical one
  EXPECT_EQ(torch_fl::private_physical(t).sizes(), at::IntArrayRef({5, 3}));
  EXPECT_EQ(torch_fl::private_format_stats().created, 1);
}

TEST_F(PrivateFormat, AViewIsNotWholeAndReadsPublicValues) {
  const at::Tensor values = at::arange(12, at::kFloat).view({3, 4});
  const at::Tensor t = private_holding(values);
  const at::Tensor row = t[1];
  EXPECT_FALSE(torch_fl::is_whole_private(row, kTransposed));
  EXPECT_FALSE(torch_fl::is_whole_private(t.view(at::kInt), kTransposed)) << "another dtype over the storage";
  EXPECT_TRUE(at::equal(row.cpu(), values[1]));  // the copy converts the storage once
  EXPECT_EQ(torch_fl::private_format_of(t), nullptr) << "every tensor over the storage is public now";
  EXPECT_TRUE(at::equal(t.cpu(), values));
  EXPECT_EQ(torch_fl::private_format_stats().to_public, 1);
}

TEST_F(PrivateFormat, ANonAwareArgumentIsConvertedAndAWholeAwareOneIsNot) {
  const at::Tensor values = at::randn({4, 2});
  const at::Tensor t = private_holding(values);
  torch_fl::ensure_whole_or_public(t, kTransposed);
  EXPECT_EQ(torch_fl::private_format_of(t), &kTransposed);
  const at::Tensor laid = torch_fl::laid_out_in(t, kTransposed);
  EXPECT_TRUE(laid.is_same(torch_fl::private_physical(t))) << "a whole private tensor is passed as it is";
  EXPECT_EQ(torch_fl::private_format_stats().to_private, 0);

  const at::Tensor public_input = values.to(kDevice);
  const at::Tensor converted = torch_fl::laid_out_in(public_input, kTransposed);
  EXPECT_EQ(torch_fl::private_format_stats().to_private, 1);
  EXPECT_TRUE(at::equal(converted.cpu(), to_transposed(values)));

  torch_fl::ensure_whole_or_public(t.narrow(0, 0, 2), kTransposed);  // a view: made public
  EXPECT_EQ(torch_fl::private_format_of(t), nullptr);
  EXPECT_TRUE(at::equal(t.cpu(), values));
}

TEST_F(PrivateFormat, ThreadsConvertOneStorageOnce) {
  const at::Tensor values = at::randn({64, 48});
  const at::Tensor t = private_holding(values);
  to_public_calls = 0;
  std::vector<std::thread> threads;
  std::atomic<int> mismatches{0};
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      if (!at::equal(t.cpu(), values)) ++mismatches;
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(to_public_calls.load(), 1);
  EXPECT_EQ(torch_fl::private_format_stats().to_public, 1);
}

TEST_F(PrivateFormat, AResizeKeepsTheValues) {
  const at::Tensor values = at::randn({3, 5});
  at::Tensor t = private_holding(values);
  t.resize_({4, 5});  // grows the storage: the kept bytes must be the public ones
  EXPECT_EQ(torch_fl::private_format_of(t), nullptr);
  EXPECT_TRUE(at::equal(t.cpu().narrow(0, 0, 3), values));
}

TEST_F(PrivateFormat, AnInPlaceWriteOfAPartSeesTheRest) {
  const at::Tensor values = at::randn({3, 4});
  const at::Tensor t = private_holding(values);
  t[0].fill_(7.0);
  at::Tensor expected = values.clone();
  expected[0].fill_(7.0);
  EXPECT_TRUE(at::equal(t.cpu(), expected));
}

TEST_F(PrivateFormat, TurnedOffEveryResultIsPublic) {
  torch_fl::set_private_formats_enabled(false);
  const at::Tensor t = torch_fl::empty_private({2, 3}, at::TensorOptions().device(kDevice), kTransposed);
  EXPECT_EQ(torch_fl::private_format_of(t), nullptr);
  EXPECT_EQ(torch_fl::private_format_stats().created, 0);
}

TEST_F(PrivateFormat, StreamUsesReachThePhysicalBlock) {
  const at::Tensor t = private_holding(at::randn({2, 2}));
  const c10::Stream side = torch_fl::stream_from_pool(0, 0);
  EXPECT_TRUE(torch_fl::record_private_stream(t.storage().data_ptr(), side));
  EXPECT_FALSE(torch_fl::record_private_stream(torch_fl::private_physical(t).storage().data_ptr(), side));
}

TEST_F(PrivateFormat, TurnedOffAKeptArgumentIsMadePublicAtItsNextUse) {
  const at::Tensor values = at::randn({3, 2});
  const at::Tensor t = private_holding(values);
  torch_fl::set_private_formats_enabled(false);
  torch_fl::ensure_whole_or_public(t, kTransposed);  // a format-aware argument, with formats off
  EXPECT_EQ(torch_fl::private_format_of(t), nullptr);
  EXPECT_TRUE(at::equal(t.cpu(), values));
}

TEST_F(PrivateFormat, AConversionWithSideStreamsIsCompleteBeforeAnyStreamSeesIt) {
  const at::Tensor values = at::randn({256, 128});
  const at::Tensor t = private_holding(values);
  // The cached block the conversion will get held these very values (making
  // `t` did): fill it with something else, so reading it early shows.
  at::full({256, 128}, -1.0, at::TensorOptions().device(kDevice));
  const c10::Stream side = torch_fl::stream_from_pool(0, 0);
  ASSERT_TRUE(torch_fl::side_streams_exist(0));
  const at::Tensor busy = at::randn({1024, 1024}).to(kDevice);
  const at::Tensor queued = at::mm(busy, busy);  // the default stream is busy for a while
  torch_fl::ensure_public(t);  // queued on the default stream, behind the product
  // Read on the side stream without waiting for the default one: only correct
  // if the conversion had completed before the storage changed hands.
  const c10::Stream previous = torch_fl::exchange_stream(side);
  const at::Tensor copy = t.clone();
  torch_fl::synchronize_stream(side);
  torch_fl::exchange_stream(previous);
  EXPECT_TRUE(at::equal(copy.cpu(), values));
}

}  // namespace
