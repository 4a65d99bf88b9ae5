// The OpenCL driver's copies: host and device round trips, interior addresses,
// and the strided, casting copy kernel (built through the program cache).
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <thread>
#include <vector>

#include "ocl_copy.h"
#include "ocl_memory.h"
#include "ocl_program_cache.h"
#include "ocl_test_support.h"

namespace torch_fl::ocl {
namespace {

using testing::OclTest;

// Device memory for `count` elements of T, released at scope exit.
template <typename T>
struct DeviceArray {
  explicit DeviceArray(size_t count) : bytes(count * sizeof(T)) { status = allocate(0, bytes, &address); }
  ~DeviceArray() {
    if (address) release(address);
  }
  T* at(size_t index) const { return static_cast<T*>(address) + index; }  // address arithmetic only
  size_t bytes;
  void* address = nullptr;
  int32_t status;
};

TEST_F(OclTest, CopiesRoundTripThroughInteriorAddresses) {
  std::vector<int32_t> in(1000);
  std::iota(in.begin(), in.end(), 0);
  DeviceArray<int32_t> a(1000), b(1000);
  ASSERT_OCL_OK(a.status);
  ASSERT_OCL_OK(write(*stream_, a.address, in.data(), a.bytes, HostSource::kStaged));
  in.assign(in.size(), -1);  // a staged write has its own copy
  ASSERT_OCL_OK(copy(*stream_, b.at(100), a.at(10), 500 * sizeof(int32_t)));
  std::vector<int32_t> out(500, 0);
  ASSERT_OCL_OK(read(*stream_, out.data(), b.at(100), 500 * sizeof(int32_t)));
  ASSERT_OCL_OK(stream_->synchronize());
  for (int32_t i = 0; i < 500; ++i) ASSERT_EQ(out[static_cast<size_t>(i)], i + 10);
  int32_t one = 42;
  ASSERT_OCL_OK(write(*stream_, a.at(999), &one, sizeof(one), HostSource::kWaited));
  ASSERT_OCL_OK(read(*stream_, &one, a.at(998), sizeof(one)));
  ASSERT_OCL_OK(stream_->synchronize());
  EXPECT_EQ(one, 998);
  EXPECT_EQ(copy(*stream_, b.at(900), a.at(0), 200 * sizeof(int32_t)), kInvalidAddress) << "runs past b's end";
}

TEST_F(OclTest, StridedCopyTransposesWithinOneDtype) {
  const int64_t rows = 3, cols = 5;
  std::vector<double> in(static_cast<size_t>(rows * cols));
  std::iota(in.begin(), in.end(), 0.0);
  DeviceArray<double> a(in.size()), t(in.size());
  ASSERT_OCL_OK(write(*stream_, a.address, in.data(), a.bytes, HostSource::kStaged));
  const int64_t sizes[] = {cols, rows}, dst_strides[] = {rows, 1}, src_strides[] = {1, cols};
  ASSERT_OCL_OK(copy_strided(*stream_, {t.address, ElementType::kF64, 2, sizes, dst_strides},
                             {a.address, ElementType::kF64, 2, sizes, src_strides}));
  std::vector<double> out(in.size());
  ASSERT_OCL_OK(read(*stream_, out.data(), t.address, t.bytes));
  ASSERT_OCL_OK(stream_->synchronize());
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) EXPECT_EQ(out[static_cast<size_t>(c * rows + r)], in[static_cast<size_t>(r * cols + c)]);
  }
}

TEST_F(OclTest, StridedCopyCastsBetweenDtypesFromAnInteriorOffset) {
  const std::vector<float> in = {-2.5f, -1.0f, 0.0f, 0.5f, 1.0f, 3.75f, 1e6f, 65504.0f};
  const int64_t n = static_cast<int64_t>(in.size()) - 2, stride = 1;
  DeviceArray<float> f(in.size());
  DeviceArray<int32_t> i32(in.size());
  DeviceArray<uint16_t> half(in.size()), bf16(in.size());
  DeviceArray<uint8_t> flags(in.size());
  ASSERT_OCL_OK(write(*stream_, f.address, in.data(), f.bytes, HostSource::kStaged));
  auto cast = [&](void* to, ElementType to_type, void* from, ElementType from_type) {
    return copy_strided(*stream_, {to, to_type, 1, &n, &stride}, {from, from_type, 1, &n, &stride});
  };
  ASSERT_OCL_OK(cast(i32.address, ElementType::kI32, f.at(2), ElementType::kF32));
  ASSERT_OCL_OK(cast(half.address, ElementType::kF16, f.at(2), ElementType::kF32));
  ASSERT_OCL_OK(cast(bf16.address, ElementType::kBF16, f.at(2), ElementType::kF32));
  ASSERT_OCL_OK(cast(flags.address, ElementType::kBool, f.at(2), ElementType::kF32));
  std::vector<int32_t> ints(static_cast<size_t>(n));
  std::vector<uint16_t> halves(static_cast<size_t>(n)), bfloats(static_cast<size_t>(n));
  std::vector<uint8_t> bools(static_cast<size_t>(n));
  ASSERT_OCL_OK(read(*stream_, ints.data(), i32.address, ints.size() * 4));
  ASSERT_OCL_OK(read(*stream_, halves.data(), half.address, halves.size() * 2));
  ASSERT_OCL_OK(read(*stream_, bfloats.data(), bf16.address, bfloats.size() * 2));
  ASSERT_OCL_OK(read(*stream_, bools.data(), flags.address, bools.size()));
  ASSERT_OCL_OK(stream_->synchronize());
  EXPECT_EQ(ints, (std::vector<int32_t>{0, 0, 1, 3, 1000000, 65504}));  // toward zero, as C and PyTorch
  EXPECT_EQ(halves, (std::vector<uint16_t>{0x0000, 0x3800, 0x3c00, 0x4380, 0x7c00, 0x7bff}));  // 1e6: inf
  EXPECT_EQ(bfloats, (std::vector<uint16_t>{0x0000, 0x3f00, 0x3f80, 0x4070, 0x4974, 0x4780}));
  EXPECT_EQ(bools, (std::vector<uint8_t>{0, 1, 1, 1, 1, 1}));
}

TEST_F(OclTest, StridedCopyCastsIntoAndOutOfComplexAsPyTorchDoes) {
  const std::vector<float> pairs = {1.5f, -2.0f, 0.0f, 4.0f};  // two complex64 values
  const int64_t n = 2, stride = 1;
  DeviceArray<float> complex(4), real(2), back(4);
  DeviceArray<uint8_t> bytes(2);
  ASSERT_OCL_OK(write(*stream_, complex.address, pairs.data(), complex.bytes, HostSource::kStaged));
  auto cast = [&](void* to, ElementType to_type, void* from, ElementType from_type) {
    return copy_strided(*stream_, {to, to_type, 1, &n, &stride}, {from, from_type, 1, &n, &stride});
  };
  ASSERT_OCL_OK(cast(real.address, ElementType::kF32, complex.address, ElementType::kC64));  // the real part
  ASSERT_OCL_OK(cast(bytes.address, ElementType::kBool, complex.address, ElementType::kC64));
  ASSERT_OCL_OK(cast(back.address, ElementType::kC64, real.address, ElementType::kF32));  // imaginary 0
  std::vector<float> reals(2), complexes(4);
  std::vector<uint8_t> small(2);
  ASSERT_OCL_OK(read(*stream_, reals.data(), real.address, real.bytes));
  ASSERT_OCL_OK(read(*stream_, small.data(), bytes.address, bytes.bytes));
  ASSERT_OCL_OK(read(*stream_, complexes.data(), back.address, back.bytes));
  ASSERT_OCL_OK(stream_->synchronize());
  EXPECT_EQ(reals, (std::vector<float>{1.5f, 0.0f}));
  EXPECT_EQ(small, (std::vector<uint8_t>{1, 1})) << "0 + 4i is true";
  EXPECT_EQ(complexes, (std::vector<float>{1.5f, 0.0f, 0.0f, 0.0f}));
}

TEST_F(OclTest, ProgramsAreBuiltOncePerProcessAndKeptOnDisk) {
  const std::string source = "__kernel void probe(__global int* x) { x[0] = " + std::to_string(getpid()) + "; }";
  const ProgramCacheStats before = program_cache_stats();
  Kernel first, second;
  ASSERT_OCL_OK(get_kernel(0, source, "", "probe", &first));
  ASSERT_OCL_OK(get_kernel(0, source, "", "probe", &second));
  const ProgramCacheStats after = program_cache_stats();
  EXPECT_EQ(after.builds + after.disk_hits - before.builds - before.disk_hits, 1u);
  EXPECT_EQ(after.memory_hits - before.memory_hits, 1u);
  EXPECT_EQ(first.get(), second.get()) << "a thread reuses its kernel object";
  Kernel other_thread;
  std::thread([&] { EXPECT_EQ(get_kernel(0, source, "", "probe", &other_thread), kSuccess) << last_detail(); }).join();
  EXPECT_NE(other_thread.get(), first.get()) << "threads never share a kernel object (arguments are its state)";
  Kernel missing;
  EXPECT_EQ(get_kernel(0, source, "", "absent", &missing), CL_INVALID_KERNEL_NAME);
  Kernel broken;
  EXPECT_EQ(get_kernel(0, "__kernel void oops( {", "", "oops", &broken), CL_BUILD_PROGRAM_FAILURE);
  EXPECT_NE(std::string(last_detail()).find("clBuildProgram"), std::string::npos) << last_detail();
}

}  // namespace
}  // namespace torch_fl::ocl
