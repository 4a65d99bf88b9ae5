// descriptor_arrays.h: the glue's fill of an SDK's fixed-capacity descriptor
// arrays. CPU tensors suffice: only sizes, strides and the data pointer are read.
#include <gtest/gtest.h>

#include <string>

#include <ATen/ATen.h>

#include <torch_fl/descriptor_arrays.h>

namespace {

// The usual C layout of an SDK's tensor descriptor, with room for 4 dims.
struct TinyDescriptor {
  void* data;
  int dtype;
  int32_t dim;
  int64_t shape[4];
  int64_t stride[4];
};

TEST(DescriptorArrays, ATransposedTensorKeepsItsStridesAndAnEmptyOneHasNoData) {
  const at::Tensor t = at::zeros({2, 3, 5}).transpose(0, 2);
  const auto desc = torch_fl::describe_strided<TinyDescriptor>(t, 7, "tiny", "a tensor");
  EXPECT_EQ(desc.dim, 3);
  EXPECT_EQ(desc.dtype, 7);
  EXPECT_EQ(desc.data, t.data_ptr());
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(desc.shape[i], t.size(i)) << "dim " << i;
    EXPECT_EQ(desc.stride[i], t.stride(i)) << "dim " << i;
  }
  EXPECT_EQ(torch_fl::describe_strided<TinyDescriptor>(at::zeros({0, 4}), 7, "tiny", "a tensor").data, nullptr);
  const auto scalar = torch_fl::describe_strided<TinyDescriptor>(at::zeros({}), 7, "tiny", "a tensor");
  EXPECT_EQ(scalar.dim, 0);
}

TEST(DescriptorArrays, MoreDimsThanTheCapacityAreRefusedNamingTheVendorAndWhat) {
  int64_t dims[4] = {};
  EXPECT_EQ(torch_fl::copy_dims({3, 1, 2, 0}, dims, "tiny", "a reduction"), 4);
  EXPECT_EQ(dims[0], 3);
  EXPECT_EQ(dims[3], 0);
  try {
    torch_fl::copy_dims({0, 1, 2, 3, 4}, dims, "tiny", "a reduction");
    FAIL() << "five dims fit an array of four";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what_without_backtrace()).find("[tiny] a reduction: at most 4 dims, got 5"),
              std::string::npos)
        << e.what_without_backtrace();
  }
  EXPECT_THROW(torch_fl::describe_strided<TinyDescriptor>(at::zeros({1, 1, 1, 1, 1}), 7, "tiny", "a tensor"),
               c10::Error);
}

// The usual {count, dims[]} struct of an SDK's dims argument.
struct TinyDims {
  int32_t count;
  int64_t dims[4];
};

TEST(DescriptorArrays, DimsOfAbsentValuesAreNoneAndPresentOnesAreCopied) {
  EXPECT_EQ(torch_fl::dims_of<TinyDims>(std::nullopt, "tiny", "a reduction").count, 0);
  const int64_t one = -1;
  const TinyDims dims = torch_fl::dims_of<TinyDims>(at::IntArrayRef(one), "tiny", "a reduction");
  EXPECT_EQ(dims.count, 1);
  EXPECT_EQ(dims.dims[0], -1);
  EXPECT_THROW(torch_fl::dims_of<TinyDims>(at::IntArrayRef({0, 1, 2, 3, 4}), "tiny", "a reduction"), c10::Error);
}

int tiny_dtype(c10::ScalarType type) { return 100 + static_cast<int>(type); }

TinyDescriptor describe_tiny(const at::Tensor& tensor) {
  return torch_fl::describe_operand<TinyDescriptor>(tensor, tiny_dtype, -1, "tiny", "a tensor");
}

// As a glue declares it.
TinyDescriptor describe_tiny_optional(const std::optional<at::Tensor>& tensor) {
  return torch_fl::describe_optional<TinyDescriptor, describe_tiny>(tensor);
}

TEST(DescriptorArrays, AnUndefinedTensorOrAnAbsentOptionalIsAnAbsentOperand) {
  const at::Tensor t = at::zeros({2, 3}, at::kDouble);
  const TinyDescriptor present = describe_tiny(t);
  EXPECT_EQ(present.data, t.data_ptr());
  EXPECT_EQ(present.dtype, tiny_dtype(at::kDouble));
  EXPECT_EQ(present.dim, 2);
  for (const TinyDescriptor& absent :
       {describe_tiny(at::Tensor()), describe_tiny_optional(std::nullopt), describe_tiny_optional(at::Tensor())}) {
    EXPECT_EQ(absent.data, nullptr);
    EXPECT_EQ(absent.dtype, -1);
    EXPECT_EQ(absent.dim, 0);
  }
  EXPECT_EQ(describe_tiny_optional(t).data, t.data_ptr());
}

}  // namespace
