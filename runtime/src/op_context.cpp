#include <torch_fl/op_context.h>


#include <ATen/Dispatch.h>
#include <ATen/EmptyTensor.h>
#include <ATen/native/Resize.h>
#include <ATen/native/TypeProperties.h>
#include <c10/util/Exception.h>

#include <limits>

#include "allocator.h"
#include "driver.h"
#include "logging.h"
#include "native_runs.h"
#include "op_calls.h"
#include <torch_fl/stream.h>
#include "conversion_cache.h"

namespace torch_fl {
namespace {

bool is_ours(const at::Tensor& t) { return t.device().type() == c10::DeviceType::PrivateUse1; }

bool is_cpu_scalar(const at::Tensor& t) { return t.device().is_cpu() && t.dim() == 0; }

// A per-tensor check over an optional argument (an absent one passes) or a list (each must pass).
template <class Check>
bool each_given(const std::optional<at::Tensor>& tensor, Check check) {
  return !tensor.has_value() || check(*tensor);
}

template <class Check>
bool each_given(const at::ITensorListRef& tensors, Check check) {
  for (const at::Tensor& tensor : tensors) {
    if (!check(tensor)) return false;
  }
  return true;
}

// The dtype TensorIterator gives the op's operands: the device tensors' and the CPU scalar's.
c10::ScalarType common_dtype(const at::Tensor* const* operands, int count, const at::Tensor& scalar) {
  at::native::ResultTypeState state;
  for (int i = 0; i < count; ++i) state = at::native::update_result_type_state(*operands[i], state);
  state = at::native::update_result_type_state(scalar, state);
  return at::native::result_type(state);
}

// Whether an integer CPU scalar keeps its value in the integral dtype `common`.
bool integer_fits(const at::Tensor& scalar, c10::ScalarType common) {
  if (!at::isIntegralType(common, /*includeBool=*/true) || c10::isBarebonesUnsignedType(common)) return true;
  if (scalar.scalar_type() == c10::ScalarType::UInt64) {
    const uint64_t value = *static_cast<const uint64_t*>(scalar.const_data_ptr());
    if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
  }
  const int64_t value = scalar.item<int64_t>();
  bool fits = true;
  AT_DISPATCH_INTEGRAL_TYPES_AND(c10::ScalarType::Bool, common, "integer_fits", [&] {
    fits = value >= static_cast<int64_t>(std::numeric_limits<scalar_t>::lowest()) &&
           value <= static_cast<int64_t>(std::numeric_limits<scalar_t>::max());
  });
  return fits;
}

}  // namespace

void OpContext::record_operand(const at::Tensor& tensor) {
  if (operand_count_ < kMaxOperands) operands_[operand_count_++] = &tensor;
}

OpContext::OpContext(const KernelInfo& info, Purpose purpose) : info_(info), purpose_(purpose) {
  check_not_forked();
  if (purpose_ == Purpose::kRun && recording_native_runs()) native_runs_detail::new_context(this);
}

namespace {
// What a kernel reads is public, except a whole tensor in the format the spec
// lets this argument keep.
void keep_or_make_public(const at::Tensor& tensor, const PrivateFormat* kept_format) {
  if (kept_format != nullptr) {
    ensure_whole_or_public(tensor, *kept_format);
  } else {
    ensure_public(tensor);
  }
}
}  // namespace

void OpContext::check_input(const at::Tensor& tensor, const char* name, bool cpu_scalar_ok,
                            const PrivateFormat* kept_format) {
  if (!tensor.defined()) return;
  if (cpu_scalar_ok && is_cpu_scalar(tensor)) return;
  check_on_device(tensor, name);
  keep_or_make_public(tensor, kept_format);
  record_operand(tensor);
}

void OpContext::check_on_device(const at::Tensor& tensor, const char* name) {
  if (is_ours(tensor) && (device_ < 0 || tensor.device().index() == device_)) {
    if (device_ < 0) {
      device_ = tensor.device().index();
      device_arg_ = name;
    }
    return;
  }
  TORCH_CHECK(false, "[", driver().vendor, "] ", info_.name,
              ": expected all tensors to be on the same device, but '", name, "' is on ", tensor.device(),
              device_ >= 0 ? " and '" : "", device_ >= 0 ? device_arg_ : "", device_ >= 0 ? "' is on " : "",
              device_ >= 0 ? c10::str(make_device(device_)) : std::string(""),
              device_ < 0 ? " (the op runs natively only on the device)" : "");
}

void OpContext::check_optional_input(const std::optional<at::Tensor>& tensor, const char* name) {
  if (tensor.has_value()) check_input(*tensor, name, /*cpu_scalar_ok=*/false);
}

void OpContext::check_output(const at::Tensor& tensor, const char* name, bool is_operand,
                             const PrivateFormat* kept_format) {
  check_on_device(tensor, name);
  keep_or_make_public(tensor, kept_format);
  if (is_operand) record_operand(tensor);
}

void OpContext::check_input_list(const at::ITensorListRef& tensors, const char* name) {
  for (const at::Tensor& tensor : tensors) check_input(tensor, name, /*cpu_scalar_ok=*/false);
}

c10::Device OpContext::device() const {
  TORCH_INTERNAL_ASSERT(device_ >= 0, info_.name, ": no tensor argument fixed the device");
  return make_device(device_);
}

bool OpContext::decide(c10::ScalarType dtype, bool native, const char* name) const {
  if (debug_logging()) {
    log_line(std::string(info_.name) + " [" + name + ": " + c10::toString(dtype) + "]: " +
             (purpose_ == Purpose::kProbe ? "asked, not run: " : "") + (native ? "native" : "dtype not native") +
             " (" + info_.source + ")");
  }
  if (purpose_ == Purpose::kRun && native && recording_native_runs()) {
    native_runs_detail::dtype_decided_native(this, dtype);
  }
  if (!native) {
    checked_dtype_ = dtype;
    checked_arg_ = name;
  }
  return native;
}

bool OpContext::dtype_is_native(const at::Tensor& tensor, const char* name) const {
  if (!tensor.defined()) return true;
  if (is_cpu_scalar(tensor)) {
    // It moves to the device in the op's common dtype (on_device). An integer that
    // an integral common dtype cannot hold (int32 x / 2**40, any int from 2**63 up)
    // would wrap there, where CPU computes with its value (a true division gives a
    // float): such a call runs on CPU.
    if (!at::isIntegralType(tensor.scalar_type(), /*includeBool=*/false)) return true;
    const c10::ScalarType common = common_dtype(operands_, operand_count_, tensor);
    if (integer_fits(tensor, common)) return true;
    return decide(tensor.scalar_type(), false, name);
  }
  const c10::ScalarType dtype = tensor.scalar_type();
  return decide(dtype, (native_dtypes() >> static_cast<int>(dtype)) & 1, name);
}

uint64_t OpContext::native_dtypes() const {
  // The spec's dtypes that this device computes (driver_abi.h, device_dtypes).
  return device_ >= 0 ? info_.native_dtypes & device_scalar_types(device_) : info_.native_dtypes;
}

bool OpContext::dtype_is_native(const std::optional<at::Tensor>& tensor, const char* name) const {
  return each_given(tensor, [&](const at::Tensor& t) { return dtype_is_native(t, name); });
}

bool OpContext::dtype_is_native(const at::ITensorListRef& tensors, const char* name) const {
  return each_given(tensors, [&](const at::Tensor& t) { return dtype_is_native(t, name); });
}

bool OpContext::index_dtype_is_native(const at::Tensor& tensor, const char* name) const {
  if (!tensor.defined() || !(at::isFloatingType(tensor.scalar_type()) || at::isComplexType(tensor.scalar_type()))) {
    return true;
  }
  return dtype_is_native(tensor, name);
}

bool OpContext::index_dtype_is_native(const std::optional<at::Tensor>& tensor, const char* name) const {
  return each_given(tensor, [&](const at::Tensor& t) { return index_dtype_is_native(t, name); });
}

bool OpContext::index_dtype_is_native(const at::ITensorListRef& tensors, const char* name) const {
  return each_given(tensors, [&](const at::Tensor& t) { return index_dtype_is_native(t, name); });
}

bool OpContext::result_dtype_is_native(const at::Tensor& result, const char* name) const {
  if (!result.defined()) return true;  // an output the caller did not ask for (an output_mask)
  return result_dtype_is_native(result.scalar_type(), name);
}

bool OpContext::result_dtype_is_native(const ExpectedResult& result, const char* name) const {
  return result_dtype_is_native(result.scalar_type(), name);
}

bool OpContext::result_dtype_is_native(c10::ScalarType dtype, const char* name) const {
  const bool fixed_result_type = dtype == c10::ScalarType::Bool || dtype == c10::ScalarType::Long;
  return decide(dtype, fixed_result_type || ((native_dtypes() >> static_cast<int>(dtype)) & 1), name);
}

c10::MaybeOwned<at::Tensor> OpContext::on_device(const at::Tensor& tensor) const {
  if (!tensor.defined() || is_ours(tensor)) return c10::MaybeOwned<at::Tensor>::borrowed(tensor);
  // A Python number: TensorIterator would cast it to the op's common dtype, so
  // it moves to the device already in that dtype (dtype_is_native sent the
  // integers that dtype cannot hold to CPU).
  const c10::ScalarType common = common_dtype(operands_, operand_count_, tensor);
  // Asynchronous: the copy stages the number's bytes before it returns and runs
  // in stream order before the op. A blocking copy would wait for everything
  // queued before it, so each `x * 2.0` would drain the device queue.
  return c10::MaybeOwned<at::Tensor>::owned(tensor.to(device(), common, /*non_blocking=*/true));
}

at::Scalar python_number(const at::Tensor& t) {
  TORCH_INTERNAL_ASSERT(is_python_number(t));
  const void* data = t.const_data_ptr();
  switch (t.scalar_type()) {
    case c10::ScalarType::Double: return at::Scalar(*static_cast<const double*>(data));
    case c10::ScalarType::Long: return at::Scalar(*static_cast<const int64_t*>(data));
    default: return at::Scalar(*static_cast<const bool*>(data));  // Bool: is_python_number admits no other
  }
}

at::Tensor OpContext::meta(const at::Tensor& tensor) {
  // CPU scalars stay as they are: meta functions accept them next to meta
  // tensors, exactly as device kernels accept them next to device tensors.
  if (!tensor.defined() || is_cpu_scalar(tensor)) return tensor;
  // Straight to the meta allocation: through the dispatcher (at::empty_strided)
  // it cost a third of what a tiny op adds to CPU's path.
  return at::detail::empty_strided_meta(tensor.sizes(), tensor.strides(), tensor.scalar_type());
}

std::optional<at::Tensor> OpContext::meta(const std::optional<at::Tensor>& tensor) {
  if (!tensor.has_value()) return std::nullopt;
  return meta(*tensor);
}

std::vector<at::Tensor> OpContext::meta(const at::ITensorListRef& tensors) {
  std::vector<at::Tensor> result;
  for (const at::Tensor& tensor : tensors) result.push_back(meta(tensor));
  return result;
}

at::Tensor OpContext::converted(const at::Tensor& tensor, const char* converter_name,
                                at::Tensor (*convert)(const at::Tensor&)) const {
  return reuse_conversion(tensor, converter_name, convert, stream());
}

at::Tensor OpContext::cast(const at::Tensor& tensor, c10::ScalarType dtype) const {
  return tensor.scalar_type() == dtype ? tensor : tensor.to(dtype);
}

at::Tensor OpContext::workspace(size_t bytes) const {
  if (bytes == 0) return at::Tensor();
  return at::empty({static_cast<int64_t>(bytes)}, at::TensorOptions().dtype(at::kByte).device(device()));
}

at::Tensor OpContext::allocate(const at::Tensor& expected) const {
  if (!expected.defined()) return expected;  // an output the op does not produce (e.g. masked off)
  // What the device's empty_strided kernel does, without the dispatcher in front:
  // the kernel's DeviceGuard has already made op.device() current.
  return at::detail::empty_strided_generic(expected.sizes(), expected.strides(), device_allocator(),
                                           c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
                                           expected.scalar_type());
}

at::Tensor OpContext::allocate(const ExpectedResult& expected) const {
  if (expected.meta.defined()) return allocate(expected.meta);
  return at::detail::empty_generic(expected.sizes, device_allocator(), c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
                                   expected.dtype, std::nullopt);
}

at::Tensor OpContext::allocate_like(const at::Tensor& tensor) const {
  // empty_like's preserve rule, as the CPU kernel would allocate. A dense
  // tensor's strides are kept as they are (empty_like's first case), without
  // the two dispatcher calls in front of the device's empty_strided.
  // (Under deterministic algorithms new memory must read as NaN: the device's
  // empty_strided kernel fills it, so that case keeps the dispatcher path.)
  const at::Context& context = at::globalContext();
  if (tensor.is_non_overlapping_and_dense() &&
      !(context.deterministicAlgorithms() && context.deterministicFillUninitializedMemory())) {
    return at::detail::empty_strided_generic(tensor.sizes(), tensor.strides(), device_allocator(),
                                             c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
                                             tensor.scalar_type());
  }
  return at::empty_like(tensor, tensor.options().device(device()), at::MemoryFormat::Preserve);
}

at::Tensor OpContext::allocate_in(const at::Tensor& expected, const PrivateFormat& format) const {
  if (!expected.defined() || expected.dim() != format.rank || !expected.is_contiguous() || expected.numel() == 0 ||
      !private_formats_enabled()) {
    return allocate(expected);
  }
  return empty_private(expected.sizes(), at::TensorOptions().dtype(expected.scalar_type()).device(device()), format);
}

at::Tensor OpContext::allocate_keeping(const at::Tensor& expected, const at::Tensor& source,
                                       const PrivateFormat& format) const {
  return is_whole_private(source, format) ? allocate_in(expected, format) : allocate(expected);
}

at::Tensor OpContext::allocate_like_keeping(const at::Tensor& like, const PrivateFormat& format) const {
  if (!is_whole_private(like, format)) return allocate_like(like);
  return empty_private(like.sizes(), at::TensorOptions().dtype(like.scalar_type()).device(device()), format);
}

at::Tensor OpContext::allocate_count() const {
  return at::detail::empty_strided_generic({1}, {1}, device_allocator(),
                                           c10::DispatchKeySet(c10::DispatchKey::PrivateUse1), at::kLong);
}

at::Tensor OpContext::trimmed_to_count(const at::Tensor& largest, const at::Tensor& count) const {
  TORCH_CHECK(largest.dim() > 0 && largest.is_contiguous(), "[", driver().vendor, "] ", info_.name,
              ": a counted result must be a contiguous tensor of rows [kernel from ", info_.source, "]");
  const int64_t rows = count.item<int64_t>();  // a device-to-host copy on the current stream
  const int64_t most = largest.size(0);
  TORCH_CHECK(rows >= 0 && rows <= most, "[", driver().vendor, "] ", info_.name, ": the SDK reported ", rows,
              " rows of a result that has room for ", most, " [kernel from ", info_.source, "]");
  std::vector<int64_t> sizes = largest.sizes().vec();
  sizes[0] = rows;
  // The leading rows of a contiguous tensor are a contiguous tensor: shrink it in place.
  largest.unsafeGetTensorImpl()->set_sizes_contiguous(sizes);
  return largest;
}

at::Tensor OpContext::meta_output(const at::Tensor& out) {
  return at::empty({0}, out.options().device(c10::DeviceType::Meta));
}

void OpContext::resize_output(const at::Tensor& out, const at::Tensor& expected) const {
  const bool resized = at::native::resize_output(out, expected.sizes());
  // As ATen's structured out= kernels do, an out= tensor resized here (with
  // PyTorch's resize warning) takes the strides the meta function chose: cat of
  // channels-last inputs is channels-last on CPU. One that already had the right
  // size keeps its own.
  if (resized && !out.strides().equals(expected.strides())) {
    out.as_strided_(expected.sizes(), expected.strides());
  }
}

// Every native launch asks for its stream (the SDK call's stream argument): the one
// place that knows a kernel is about to run natively, whatever reached it.
tflStream OpContext::stream() const {
  count_native_call(device_);
  if (recording_native_runs()) {
    native_runs_detail::launching(this, info_.name,
                                  operand_count_ > 0 ? operands_[0]->scalar_type() : c10::ScalarType::Undefined);
  }
  return current_driver_stream(device_);
}

void OpContext::raise_vendor_error(int64_t status, const char* message, const char* detail) const {
  if (detail == nullptr) detail = driver().last_error_detail ? driver().last_error_detail() : "";
  TORCH_CHECK(false, "[", driver().vendor, "] ", info_.name, " failed with status ", status, ": ", message,
              (detail && *detail) ? " (" : "", detail ? detail : "", (detail && *detail) ? ")" : "",
              " [kernel from ", info_.source, "]");
}

void OpContext::reject(FallbackReason reason) const {
  TORCH_CHECK_NOT_IMPLEMENTED(false, "[", driver().vendor, "] ", info_.name, ": ", to_string(reason),
                              " (", info_.source, "), and a vendor op has no CPU fallback");
}

void OpContext::prepare_fallback(FallbackReason reason) const {
  TORCH_CHECK_NOT_IMPLEMENTED(info_.policy != FallbackPolicy::kError, "[", driver().vendor, "] ", info_.name, ": ",
                              to_string(reason), " and the spec (", info_.source,
                              ") declares `fallback: error` for this op");
  const bool dtype_errors = checked_dtype_ != c10::ScalarType::Undefined &&
                            ((info_.error_dtypes >> static_cast<int>(checked_dtype_)) & 1);
  TORCH_CHECK_NOT_IMPLEMENTED(!dtype_errors, "[", driver().vendor, "] ", info_.name, ": ", to_string(reason),
                              " ('", checked_arg_ ? checked_arg_ : "?", "' is ", checked_dtype_, ") and the spec (",
                              info_.source, ") declares `fallback: error` for ", checked_dtype_);
}

bool OpContext::layout_possible(const at::Tensor& tensor, MemoryLayout layout) const {
  return layout != MemoryLayout::kChannelsLast || tensor.dim() == 4;
}

at::Tensor OpContext::with_layout(const at::Tensor& tensor, MemoryLayout layout) const {
  if (!tensor.defined()) return tensor;
  return layout == MemoryLayout::kChannelsLast ? tensor.contiguous(at::MemoryFormat::ChannelsLast)
                                               : tensor.contiguous();
}

at::Tensor OpContext::aligned(const at::Tensor& tensor, int64_t alignment) const {
  if (!tensor.defined() || reinterpret_cast<uintptr_t>(tensor.data_ptr()) % alignment == 0) return tensor;
  // A fresh allocation starts a block, which the allocator aligns to the chip's alignment.
  return tensor.clone(at::MemoryFormat::Contiguous);
}

}  // namespace torch_fl
