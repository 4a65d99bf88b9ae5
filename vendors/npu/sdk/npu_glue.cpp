#include "npu_glue.h"

#include <c10/util/Exception.h>

#include <torch_fl/generator.h>
#include <torch_fl/private_format.h>
#include <torch_fl/sdk_dtypes.h>
#include <torch_fl/stream.h>

namespace npu_glue {
namespace {

constexpr torch_fl::SdkDtypes<npuDataType> kDtypes(NPU_BOOL, NPU_UINT8, NPU_INT8, NPU_INT16, NPU_INT32, NPU_INT64,
                                                   NPU_FLOAT16, NPU_BF16, NPU_FLOAT, NPU_DOUBLE, NPU_COMPLEX64,
                                                   NPU_COMPLEX128);

TensorHandle make_tensor(const at::Tensor& tensor, npuFormat format) {
  if (!tensor.defined()) return TensorHandle();
  const npuDataType dtype = npu_dtype(tensor.scalar_type());
  TORCH_CHECK(dtype != NPU_DT_UNDEFINED, "[npu] dtype ", tensor.scalar_type(), " has no NPU equivalent");
  TORCH_CHECK(tensor.dim() <= 8, "[npu] tensors of more than 8 dims are not supported, got ", tensor.dim());
  // The handle points at the storage's start; the view's offset is passed apart.
  void* base = tensor.numel() == 0 ? nullptr : tensor.storage().mutable_data();
  npuTensor* handle = npuCreateTensor(tensor.sizes().data(), tensor.dim(), dtype, tensor.strides().data(),
                                      tensor.storage_offset(), format, base);
  TORCH_CHECK(handle, "[npu] npuCreateTensor failed for a tensor of shape ", tensor.sizes());
  return TensorHandle(handle);
}

}  // namespace

npuDataType npu_dtype(c10::ScalarType type) { return kDtypes.sdk_dtype(type).value_or(NPU_DT_UNDEFINED); }

TensorHandle tensor(const at::Tensor& t) {
  // A tensor whose storage is in NC1HWC0 (the spec's `formats:`) reaches the SDK
  // as its physical tensor: only a format-aware argument can be one (the
  // runtime makes every other argument public first).
  if (const at::Tensor physical = torch_fl::private_physical(t); physical.defined()) {
    return make_tensor(physical, NPU_FORMAT_NC1HWC0);
  }
  return make_tensor(t, NPU_FORMAT_ND);
}

TensorHandle optional_tensor(const std::optional<at::Tensor>& t) {
  return t.has_value() ? tensor(*t) : TensorHandle();
}

TensorHandle blocked(const at::Tensor& t) {
  if (const at::Tensor physical = torch_fl::private_physical(t); physical.defined()) {
    return make_tensor(physical, NPU_FORMAT_NC1HWC0);
  }
  TORCH_CHECK(t.dim() == 5 && t.size(4) == NPU_C0, "[npu] an NC1HWC0 operand must be 5-D with C0 = ", NPU_C0,
              ", got shape ", t.sizes());
  return make_tensor(t, NPU_FORMAT_NC1HWC0);
}

TensorListHandle::TensorListHandle(const at::ITensorListRef& tensors) : list_(nullptr, npuDestroyTensorList) {
  std::vector<const npuTensor*> handles;
  for (const at::Tensor& t : tensors) {
    tensors_.push_back(tensor(t));
    handles.push_back(tensors_.back());
  }
  list_.reset(npuCreateTensorList(handles.data(), handles.size()));
}

TensorListHandle tensor_list(const at::ITensorListRef& tensors) { return TensorListHandle(tensors); }

namespace {

// One npunnTransData on the current stream, either direction.
void trans_data(const at::Tensor& src, npuFormat src_format, const at::Tensor& dst, npuFormat dst_format,
                const char* what) {
  const TensorHandle from = make_tensor(src, src_format);
  const TensorHandle to = make_tensor(dst, dst_format);
  uint64_t workspace_bytes = 0;
  npunnExecutor* executor = nullptr;
  npuError error = npunnTransDataGetWorkspaceSize(from, to, &workspace_bytes, &executor);
  if (error == NPU_SUCCESS) {
    const tflStream stream = torch_fl::current_driver_stream(src.device().index());
    error = npunnTransData(nullptr, workspace_bytes, executor, stream_of(stream));
  }
  TORCH_CHECK(error == NPU_SUCCESS, "[npu] npunnTransData (", what, ") failed with status ", error, ": ",
              npurtGetErrorName(error), " (", npurtGetRecentErrMsg(), ")");
}

}  // namespace

std::vector<int64_t> nc1hwc0_sizes(at::IntArrayRef nchw) {
  TORCH_CHECK(nchw.size() == 4, "[npu] NC1HWC0 holds 4-D NCHW tensors, got ", nchw.size(), " dims");
  return {nchw[0], (nchw[1] + NPU_C0 - 1) / NPU_C0, nchw[2], nchw[3], NPU_C0};
}

at::Tensor to_nc1hwc0(const at::Tensor& nchw) {
  TORCH_CHECK(nchw.dim() == 4, "[npu] NC1HWC0 conversion takes a 4-D NCHW tensor, got ", nchw.dim(), " dims");
  at::Tensor blocked_out = at::empty(nc1hwc0_sizes(nchw.sizes()), nchw.options());
  trans_data(nchw, NPU_FORMAT_ND, blocked_out, NPU_FORMAT_NC1HWC0, "NCHW to NC1HWC0");
  return blocked_out;
}

at::Tensor from_nc1hwc0(const at::Tensor& blocked_in, at::IntArrayRef sizes) {
  at::Tensor nchw = at::empty(sizes, blocked_in.options());
  trans_data(blocked_in, NPU_FORMAT_NC1HWC0, nchw, NPU_FORMAT_ND, "NC1HWC0 to NCHW");
  return nchw;
}

ScalarHandle scalar(const at::Scalar& value) {
  if (value.isBoolean()) {
    const bool b = value.toBool();
    return ScalarHandle(npuCreateScalar(&b, NPU_BOOL));
  }
  if (value.isIntegral(/*includeBool=*/false)) {
    const int64_t i = value.toLong();
    return ScalarHandle(npuCreateScalar(&i, NPU_INT64));
  }
  TORCH_CHECK(!value.isComplex(), "[npu] complex scalars are not supported by the NPU");
  const float f = value.toFloat();
  return ScalarHandle(npuCreateScalar(&f, NPU_FLOAT));
}

ScalarHandle optional_scalar(const std::optional<at::Scalar>& value) {
  return value.has_value() ? scalar(*value) : ScalarHandle();
}

IntArrayHandle int_array(at::IntArrayRef values) {
  return IntArrayHandle(npuCreateIntArray(values.data(), values.size()));
}

IntArrayHandle optional_int_array(at::OptionalIntArrayRef values) {
  return values.has_value() ? int_array(*values) : IntArrayHandle();
}

IntArrayHandle optional_int(std::optional<int64_t> value) {
  return value.has_value() ? int_array(at::IntArrayRef(*value)) : IntArrayHandle();
}

int64_t divisor(std::optional<int64_t> value) { return value.value_or(0); }

bool optional_bool_true(std::optional<bool> value) { return value.value_or(true); }

CString c_string(c10::string_view text) { return CString(text); }

npuRandState rand_state(const std::optional<at::Generator>& generator) {
  const torch_fl::RngState state = torch_fl::next_rng_state(generator);
  return npuRandState{state.seed, state.offset};
}

npuRandState default_rand_state() { return rand_state(std::nullopt); }

}  // namespace npu_glue
