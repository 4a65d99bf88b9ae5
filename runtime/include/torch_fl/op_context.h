// What a generated kernel needs from the runtime: device and dtype checks,
// output allocation from meta results, the current stream, error reporting.
// Every message names the op and the vendor.
#pragma once

#include <ATen/ATen.h>
#include <c10/util/MaybeOwned.h>

#include <cstdint>
#include <initializer_list>
#include <optional>

#include <torch_fl/device.h>
#include <torch_fl/driver_abi.h>
#include <torch_fl/elementwise_memo.h>
#include <torch_fl/fallback.h>
#include <torch_fl/memory_overlap.h>
#include <torch_fl/private_format.h>

namespace torch_fl {

enum class FallbackPolicy { kCpu, kError };
enum class MemoryLayout { kContiguous, kChannelsLast };

constexpr uint64_t dtype_set(std::initializer_list<c10::ScalarType> dtypes) {
  uint64_t mask = 0;
  for (auto t : dtypes) mask |= uint64_t{1} << static_cast<int>(t);
  return mask;
}

// Static facts about one generated kernel (one per registered overload).
struct KernelInfo {
  const char* name;    // "add.Tensor"
  const char* source;  // "specs/mlu.yaml:31"
  uint64_t native_dtypes;
  FallbackPolicy policy;
  uint64_t error_dtypes;  // dtypes the spec makes raise instead of falling back
};

class OpContext {
 public:
  // kProbe: the checks only answer whether the kernel would run natively (SDPA's
  // choice asks before calling the op); its log lines say so, and nothing is recorded.
  enum class Purpose { kRun, kProbe };
  explicit OpContext(const KernelInfo& info, Purpose purpose = Purpose::kRun);
  OpContext(const OpContext&) = delete;
  OpContext& operator=(const OpContext&) = delete;

  // Each tensor must be on the op's device; the first one fixes it. With
  // cpu_scalar_ok, a 0-dim CPU tensor (a Python number) is accepted too.
  // A tensor in a private format is converted back to the public layout here,
  // unless the spec makes this argument format-aware (`kept_format`) and the
  // tensor is whole in that format.
  void check_input(const at::Tensor& tensor, const char* name, bool cpu_scalar_ok,
                   const PrivateFormat* kept_format = nullptr);
  void check_optional_input(const std::optional<at::Tensor>& tensor, const char* name);
  void check_input_list(const at::ITensorListRef& tensors, const char* name);
  // is_operand: the tensor is also an input of the computation (self of an
  // in-place op) and takes part in type promotion; an out= tensor does not.
  void check_output(const at::Tensor& tensor, const char* name, bool is_operand,
                    const PrivateFormat* kept_format = nullptr);
  c10::Device device() const;

  // The dtype decision, one computation operand at a time: false when its dtype
  // is not native for this op (the caller falls back). CPU scalars (Python
  // numbers) take the op's common dtype and are not checked themselves; every
  // tensor of a list is.
  bool dtype_is_native(const at::Tensor& tensor, const char* name) const;
  bool dtype_is_native(const std::optional<at::Tensor>& tensor, const char* name) const;
  bool dtype_is_native(const at::ITensorListRef& tensors, const char* name) const;
  // An argument that may hold indices or masks (index, target, mask, ...): an
  // integral or bool one is not a computation operand; a floating one is.
  bool index_dtype_is_native(const at::Tensor& tensor, const char* name) const;
  bool index_dtype_is_native(const std::optional<at::Tensor>& tensor, const char* name) const;
  bool index_dtype_is_native(const at::ITensorListRef& tensors, const char* name) const;
  // A result (an out= tensor, or the dtype meta computed): native, or bool or
  // int64, the dtypes ATen gives results of a fixed type (comparisons, indices).
  bool result_dtype_is_native(const at::Tensor& result, const char* name) const;
  bool result_dtype_is_native(const ExpectedResult& result, const char* name) const;
  bool result_dtype_is_native(c10::ScalarType result, const char* name) const;
  // The dtype that failed the decision (Undefined when none did).
  c10::ScalarType non_native_dtype() const { return checked_dtype_; }
  // The spec's native dtypes (1 << ScalarType) that the op's device also computes.
  uint64_t native_dtypes() const;

  // A CPU scalar moved to the device in the dtype the op computes in; a device
  // tensor borrowed as it is (a copy of an at::Tensor that Python holds would
  // take the GIL twice, to raise and lower its PyObject's count).
  c10::MaybeOwned<at::Tensor> on_device(const at::Tensor& tensor) const;
  // A meta tensor with the same sizes, strides and dtype; CPU scalars are returned as is.
  static at::Tensor meta(const at::Tensor& tensor);
  static std::optional<at::Tensor> meta(const std::optional<at::Tensor>& tensor);
  static std::vector<at::Tensor> meta(const at::ITensorListRef& tensors);

  // Layout rules of the spec: a copy in the layout the SDK needs (or the tensor itself).
  bool layout_possible(const at::Tensor& tensor, MemoryLayout layout) const;
  at::Tensor with_layout(const at::Tensor& tensor, MemoryLayout layout) const;
  at::Tensor aligned(const at::Tensor& tensor, int64_t alignment) const;

  // A layout conversion reused while the source is unchanged (see conversion_cache.h).
  at::Tensor converted(const at::Tensor& tensor, const char* converter_name,
                       at::Tensor (*convert)(const at::Tensor&)) const;
  // The tensor in the one dtype the SDK takes for this argument (a device-side cast, or itself).
  at::Tensor cast(const at::Tensor& tensor, c10::ScalarType dtype) const;

  // Scratch device memory for a two-phase SDK call, from the caching allocator on
  // the current stream (freed in stream order when the launch returns).
  at::Tensor workspace(size_t bytes) const;
  static void* data(const at::Tensor& tensor) { return tensor.defined() ? tensor.data_ptr() : nullptr; }

  at::Tensor allocate(const at::Tensor& expected) const;
  at::Tensor allocate(const ExpectedResult& expected) const;  // a meta result, or the memo's (elementwise_memo.h)
  at::Tensor allocate_like(const at::Tensor& tensor) const;
  // A result a format-aware op writes in `format` (`format: {makes: [...]}`);
  // public when its shape or strides cannot be (not of the format's rank, not contiguous).
  at::Tensor allocate_in(const at::Tensor& expected, const PrivateFormat& format) const;
  // A result that keeps `source`'s format (`format: {keeps: [...]}`): private
  // when source is whole in `format`, public otherwise.
  at::Tensor allocate_keeping(const at::Tensor& expected, const at::Tensor& source, const PrivateFormat& format) const;
  at::Tensor allocate_like_keeping(const at::Tensor& like, const PrivateFormat& format) const;
  // A data-dependent result (`output: {rule: ..., count: c}`): the SDK writes
  // how many leading rows of `largest` it filled into a one-element int64
  // device tensor; the host waits for that count, as PyTorch's CUDA nonzero
  // does, and the result is `largest` shortened to it (no copy).
  at::Tensor allocate_count() const;
  at::Tensor trimmed_to_count(const at::Tensor& largest, const at::Tensor& count) const;
  // An empty meta tensor of an out= tensor's dtype, for the out= overload's meta function.
  static at::Tensor meta_output(const at::Tensor& out);
  // Resizes an out= tensor to the shape its meta function computed (with PyTorch's resize warning).
  void resize_output(const at::Tensor& out, const at::Tensor& expected) const;

  tflStream stream() const;
  // `detail`: the op library's own account of the failure (the spec's sdk.status.detail);
  // null: the driver's last_error_detail.
  [[noreturn]] void raise_vendor_error(int64_t status, const char* message, const char* detail = nullptr) const;
  // Applies the entry's fallback policy, then marks why the fallback happens.
  void prepare_fallback(FallbackReason reason) const;
  // For vendor ops, which have no CPU kernel: always raises NotImplementedError.
  [[noreturn]] void reject(FallbackReason reason) const;

  const KernelInfo& info() const { return info_; }

 private:
  static constexpr int kMaxOperands = 12;
  void check_on_device(const at::Tensor& tensor, const char* name);
  void record_operand(const at::Tensor& tensor);

  const KernelInfo& info_;
  const Purpose purpose_;
  c10::DeviceIndex device_ = -1;
  const char* device_arg_ = nullptr;
  // Device tensors seen by the checks: they decide a CPU scalar's dtype.
  const at::Tensor* operands_[kMaxOperands] = {};
  int operand_count_ = 0;
  bool decide(c10::ScalarType dtype, bool native, const char* name) const;
  // The dtype (and the argument) that failed the decision: the fallback's
  // policy and its record depend on it.
  mutable c10::ScalarType checked_dtype_ = c10::ScalarType::Undefined;
  mutable const char* checked_arg_ = nullptr;
};

// A Python number PyTorch wrapped as a tensor (`x * 2.0` calls mul.Tensor with
// 2.0 as a 0-dim CPU tensor) that an SDK scalar carries as it is: a float, an
// int64 or a bool. A kernel with a Scalar form passes its value; other numbers
// (an int from 2**63 up, which PyTorch wraps as uint64; a complex) keep the tensor path.
inline bool is_python_number(const at::Tensor& t) {
  if (!t.defined() || !t.unsafeGetTensorImpl()->is_wrapped_number() || !t.device().is_cpu()) return false;
  const c10::ScalarType type = t.scalar_type();
  return type == c10::ScalarType::Double || type == c10::ScalarType::Long || type == c10::ScalarType::Bool;
}
// Its value, read on the host (no dispatch).
at::Scalar python_number(const at::Tensor& t);

// True when autograd must record this call: grad mode on and an input requires grad.
inline bool requires_grad_of(const at::Tensor& t) { return t.defined() && t.requires_grad(); }
inline bool requires_grad_of(const std::optional<at::Tensor>& t) { return t.has_value() && requires_grad_of(*t); }
inline bool requires_grad_of(const at::ITensorListRef& ts) {
  for (const at::Tensor& t : ts) {
    if (requires_grad_of(t)) return true;
  }
  return false;
}
template <class... Tensors>
bool grad_required(const Tensors&... tensors) {
  return at::GradMode::is_enabled() && (requires_grad_of(tensors) || ...);
}

// Redirects one call to the CPU fallback, honouring the spec's policy.
template <class Op, class... Args>
decltype(auto) fallback_to_cpu(const OpContext& op, FallbackReason reason, Args&&... args) {
  op.prepare_fallback(reason);
  const FallbackReasonScope scope(reason, op.non_native_dtype());
  return at::native::call_fallback_fn<&cpu_fallback, Op>::call(std::forward<Args>(args)...);
}

// The same for an op of another library (torchvision::nms): its CPU kernel is
// that library's, found through the dispatcher by name.
template <class Signature>
struct LibraryFallback;
template <class Return, class... Args>
struct LibraryFallback<Return(Args...)> {
  static Return call(const OpContext& op, FallbackReason reason, const char* name, const char* overload,
                     Args... args) {
    op.prepare_fallback(reason);
    const FallbackReasonScope scope(reason, op.non_native_dtype());
    const c10::OperatorHandle handle = c10::Dispatcher::singleton().findSchemaOrThrow(name, overload);
    return c10::KernelFunction::makeFromBoxedFunction<&cpu_fallback>().call<Return, Args...>(
        handle, c10::DispatchKeySet(c10::DispatchKey::PrivateUse1), std::forward<Args>(args)...);
  }
};

}  // namespace torch_fl
