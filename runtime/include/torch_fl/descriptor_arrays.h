// Filling a vendor SDK's fixed-capacity descriptor arrays (a tensor's shape and
// strides, a list of dims) from ATen values. Every vendor whose SDK describes
// tensors with C arrays does this in its glue, and the runtime does it for the
// driver's strided views: one check against the capacity, one message.
#pragma once

#include <ATen/ATen.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace torch_fl {

// The refusal of copy_dims, out of line: the fill itself is on every native
// op's path and stays small enough to inline.
[[noreturn]] C10_NOINLINE inline void refuse_dims(size_t capacity, size_t count, const char* vendor,
                                                  const char* what) {
  TORCH_CHECK(false, "[", vendor, "] ", what, ": at most ", capacity, " dims, got ", count);
}

// Copies `values` into `out`, which holds at most N of them; returns how many.
// More than N: "[<vendor>] <what>: at most N dims, got <n>".
template <typename T, size_t N>
int32_t copy_dims(c10::IntArrayRef values, T (&out)[N], const char* vendor, const char* what) {
  if (C10_UNLIKELY(values.size() > N)) refuse_dims(N, values.size(), vendor, what);
  std::copy(values.begin(), values.end(), out);
  return static_cast<int32_t>(values.size());
}

// The same into an SDK's {count, dims[N]} struct; absent values give count 0
// (which the nvidia and opencl SDKs read as "every dim" in a reduction).
template <typename Dims>
Dims dims_of(at::OptionalIntArrayRef values, const char* vendor, const char* what) {
  Dims result{};
  if (values.has_value()) result.count = copy_dims(*values, result.dims, vendor, what);
  return result;
}

// A tensor's sizes and strides (whole arrays at once: size(i) and stride(i)
// wrap and check each index) into a descriptor's; returns its dim.
template <typename T, size_t N>
int32_t copy_geometry(const at::Tensor& tensor, T (&shape)[N], T (&stride)[N], const char* vendor,
                      const char* what) {
  const c10::IntArrayRef sizes = tensor.sizes(), strides = tensor.strides();
  if (C10_UNLIKELY(sizes.size() > N)) refuse_dims(N, sizes.size(), vendor, what);
  std::copy(sizes.begin(), sizes.end(), shape);
  std::copy(strides.begin(), strides.end(), stride);
  return static_cast<int32_t>(sizes.size());
}

// The common C descriptor of a strided tensor: `data` (null when the tensor is
// empty), `dtype` (the SDK's, given), `dim`, and the `shape` and `stride` arrays.
template <typename Descriptor, typename Dtype>
Descriptor describe_strided(const at::Tensor& tensor, Dtype dtype, const char* vendor, const char* what) {
  Descriptor desc{};
  desc.dim = copy_geometry(tensor, desc.shape, desc.stride, vendor, what);
  desc.data = tensor.numel() == 0 ? nullptr : tensor.data_ptr();
  desc.dtype = dtype;
  return desc;
}

// The same for an operand an op may lack: an undefined tensor is an absent operand,
// described with no data, no dims and the SDK's `none` dtype; a defined one has
// its dtype as the SDK's (`sdk_dtype`).
template <typename Descriptor, typename Dtype>
Descriptor describe_operand(const at::Tensor& tensor, Dtype (*sdk_dtype)(c10::ScalarType), Dtype none,
                            const char* vendor, const char* what) {
  if (!tensor.defined()) {
    Descriptor absent{};
    absent.dtype = none;
    return absent;
  }
  return describe_strided<Descriptor>(tensor, sdk_dtype(tensor.scalar_type()), vendor, what);
}

// A glue's describe_optional, from its describe (which takes an undefined tensor for
// an absent operand): an absent optional is described as an undefined tensor.
template <typename Descriptor, Descriptor (*Describe)(const at::Tensor&)>
Descriptor describe_optional(const std::optional<at::Tensor>& tensor) {
  return tensor.has_value() ? Describe(*tensor) : Describe(at::Tensor());
}

}  // namespace torch_fl
