// SDK glue of the NPU backend: the converters specs/npu.yaml names. The NPU's
// op library takes opaque handles, so each converter returns an owner that
// destroys its handle when the generated launch function returns (after the
// operator's second phase has queued the work, which no longer needs it).
#pragma once

#include <ATen/ATen.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <torch_fl/driver_abi.h>

#include "npu_ops.h"

namespace npu_glue {

npuDataType npu_dtype(c10::ScalarType type);

template <class Handle, npuError (*Destroy)(const Handle*)>
class Owned {
 public:
  explicit Owned(Handle* handle = nullptr) : handle_(handle) {}
  Owned(Owned&& other) noexcept : handle_(other.handle_) { other.handle_ = nullptr; }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  ~Owned() {
    if (handle_) Destroy(handle_);
  }
  operator Handle*() const { return handle_; }

 private:
  Handle* handle_;
};

using TensorHandle = Owned<npuTensor, npuDestroyTensor>;
using ScalarHandle = Owned<npuScalar, npuDestroyScalar>;
using IntArrayHandle = Owned<npuIntArray, npuDestroyIntArray>;

// A list handle and the tensor handles it refers to.
class TensorListHandle {
 public:
  explicit TensorListHandle(const at::ITensorListRef& tensors);
  operator npuTensorList*() const { return list_.get(); }

 private:
  std::vector<TensorHandle> tensors_;
  std::unique_ptr<npuTensorList, npuError (*)(const npuTensorList*)> list_;
};

// ND tensors (an undefined tensor: a null handle); a tensor whose storage is in
// NC1HWC0 is described as its physical 5-D tensor, in NC1HWC0.
TensorHandle tensor(const at::Tensor& tensor);
TensorHandle optional_tensor(const std::optional<at::Tensor>& tensor);
// A 5-D tensor made by to_nc1hwc0 (or a tensor stored in NC1HWC0), declared to the SDK as NC1HWC0.
TensorHandle blocked(const at::Tensor& tensor);
TensorListHandle tensor_list(const at::ITensorListRef& tensors);

// NCHW → NC1HWC0 (N, ceil(C/16), H, W, 16), channels zero-padded, converted by
// the NPU (npunnTransData) on the current stream. The layout conversion the
// spec declares for convolution operands.
at::Tensor to_nc1hwc0(const at::Tensor& nchw);
// The NC1HWC0 format's other two functions (specs/npu.yaml `formats:`): back to
// a new contiguous NCHW tensor of `sizes`, and the physical sizes of an NCHW shape.
at::Tensor from_nc1hwc0(const at::Tensor& blocked, at::IntArrayRef sizes);
std::vector<int64_t> nc1hwc0_sizes(at::IntArrayRef nchw);

// Scalars are float32, int64 or bool on the NPU.
ScalarHandle scalar(const at::Scalar& value);
ScalarHandle optional_scalar(const std::optional<at::Scalar>& value);
IntArrayHandle int_array(at::IntArrayRef values);
IntArrayHandle optional_int_array(at::OptionalIntArrayRef values);
// One optional int as an array of one, or null.
IntArrayHandle optional_int(std::optional<int64_t> value);
// avg_pool2d's divisor_override: 0 means none.
int64_t divisor(std::optional<int64_t> value);
// An absent optional bool means "true" in the ops that take one (native_dropout's train).
bool optional_bool_true(std::optional<bool> value);

// A NUL-terminated copy of a string argument (gelu's approximate).
class CString {
 public:
  explicit CString(c10::string_view text) : text_(text) {}
  operator const char*() const { return text_.c_str(); }

 private:
  std::string text_;
};
CString c_string(c10::string_view text);

// One reservation of the device generator's counter for a random kernel.
npuRandState rand_state(const std::optional<at::Generator>& generator);
npuRandState default_rand_state();

// The Torch-FL driver stream is the NPU stream (see torch_fl_driver.cpp).
inline npurtStream stream_of(tflStream stream) { return reinterpret_cast<npurtStream>(stream); }

}  // namespace npu_glue
