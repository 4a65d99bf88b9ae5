#include <torch_fl/fallback.h>

#include <c10/util/Exception.h>
#include <torch/library.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <tuple>

#include "cpu_fallback_run.h"

#include "device_decompositions.h"
#include <torch_fl/device.h>
#include "driver.h"
#include <torch_fl/generator.h>
#include "logging.h"
#include "op_calls.h"
#include <torch_fl/profiler_range.h>

namespace torch_fl {
namespace {

thread_local FallbackReason tls_reason = FallbackReason::kNotInSpec;
thread_local c10::ScalarType tls_dtype = c10::ScalarType::Undefined;

struct Counters {
  std::mutex mutex;  // guards both maps
  std::map<std::tuple<std::string, std::string, std::string>, int64_t> counts;  // (op, dtype, reason)
  std::set<std::string> warned;
};

Counters& counters() {
  static auto* c = new Counters();  // never destroyed: ops may run during static destruction
  return *c;
}

std::string op_name(const c10::OperatorHandle& op) {
  const auto& name = op.schema().operator_name();
  return name.overload_name.empty() ? name.name : name.name + "." + name.overload_name;
}

// The dtype a fallback is filed under: that of the first tensor argument.
std::string first_tensor_dtype(const c10::OperatorHandle& op, const torch::jit::Stack* stack) {
  const size_t n = op.schema().arguments().size();
  for (size_t i = stack->size() - n; i < stack->size(); ++i) {
    const c10::IValue& v = (*stack)[i];
    if (v.isTensor() && v.toTensor().defined()) return c10::toString(v.toTensor().scalar_type());
    if (v.isTensorList()) {
      for (const at::Tensor& t : v.toTensorList().vec()) {
        if (t.defined()) return c10::toString(t.scalar_type());
      }
    }
  }
  return "none";
}

// Ops that exist only as hooks for out-of-tree backends (their CPU "kernel"
// throws) fall back to the core op they stand for, with the arguments adapted.
bool fall_back_to_core_op(const std::string& name, torch::jit::Stack* stack) {
  if (name == "aten::convolution_overrideable") {
    // Same arguments as aten::convolution.
    static const auto core = c10::Dispatcher::singleton().findSchemaOrThrow("aten::convolution", "");
    run_on_cpu(core, stack);
    return true;
  }
  if (name == "aten::convolution_backward_overrideable") {
    // aten::convolution_backward takes bias_sizes after weight.
    static const auto core = c10::Dispatcher::singleton().findSchemaOrThrow("aten::convolution_backward", "");
    const size_t base = stack->size() - 10;  // (grad_output, input, weight, stride, padding, dilation,
                                             //  transposed, output_padding, groups, output_mask)
    const at::Tensor weight = (*stack)[base + 2].toTensor();
    const bool transposed = (*stack)[base + 6].toBool();
    const int64_t groups = (*stack)[base + 8].toInt();
    const int64_t bias_size = transposed ? weight.size(1) * groups : weight.size(0);
    stack->insert(stack->begin() + static_cast<std::ptrdiff_t>(base + 3), c10::IValue(std::vector<int64_t>{bias_size}));
    run_on_cpu(core, stack);
    return true;
  }
  return false;
}

// The device the op's tensors (or its device= argument) are on, for its default
// generator; none when every tensor is on CPU.
std::optional<c10::DeviceIndex> argument_device(const c10::OperatorHandle& op, const torch::jit::Stack* stack) {
  const size_t n = op.schema().arguments().size();
  for (size_t i = stack->size() - n; i < stack->size(); ++i) {
    const c10::IValue& v = (*stack)[i];
    if (v.isTensor() && v.toTensor().defined() && v.toTensor().device().type() == c10::DeviceType::PrivateUse1) {
      return v.toTensor().device().index();
    }
    if (v.isDevice() && v.toDevice().type() == c10::DeviceType::PrivateUse1) {
      return v.toDevice().has_index() ? v.toDevice().index() : current_device();
    }
  }
  return std::nullopt;
}

// A random op's Generator argument, None or the device's, becomes a CPU
// generator drawn from the device's one (ATen's CPU kernels refuse a device
// generator, and None would draw from CPU's, which the device's seed does not
// reach). Not for an op on CPU tensors that was given a device generator (it
// reaches this backend through the generator alone): CPU's kernel refuses it,
// as it refuses a CUDA one.
void use_device_generators(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const std::optional<c10::DeviceIndex> device = argument_device(op, stack);
  if (!device.has_value()) return;
  const auto& arguments = op.schema().arguments();
  const size_t base = stack->size() - arguments.size();
  for (size_t i = 0; i < arguments.size(); ++i) {
    c10::TypePtr type = arguments[i].type();
    if (const auto optional = type->cast<c10::OptionalType>()) type = optional->getElementType();
    if (type->kind() != c10::TypeKind::GeneratorType) continue;
    c10::IValue& value = (*stack)[base + i];
    if (!value.isNone() && value.toGenerator().device().type() != c10::DeviceType::PrivateUse1) continue;
    const at::Generator device_generator = value.isNone() ? default_generator(*device) : value.toGenerator();
    value = c10::IValue(cpu_generator_from(device_generator));
  }
}

// A view op (a result that aliases an argument without writing it) run on CPU
// would return a copy: writes through it would be lost without a word.
bool returns_a_view(const c10::OperatorHandle& op) {
  for (const c10::Argument& result : op.schema().returns()) {
    if (result.alias_info() != nullptr && !result.alias_info()->isWrite()) return true;
  }
  return false;
}

}  // namespace

const char* to_string(FallbackReason reason) {
  switch (reason) {
    case FallbackReason::kNotInSpec: return "not in spec";
    case FallbackReason::kDtype: return "dtype not native";
    case FallbackReason::kGuard: return "guard not met";
    case FallbackReason::kLayout: return "layout not supported";
    case FallbackReason::kForced: return "forced";
  }
  return "unknown";
}

FallbackMode fallback_mode() {
  // Read on every fallback (not cached): tests switch modes within one process.
  const char* text = std::getenv("TORCH_FL_FALLBACK");
  if (!text || std::strcmp(text, "warn") == 0 || !*text) return FallbackMode::kWarn;
  if (std::strcmp(text, "silent") == 0) return FallbackMode::kSilent;
  if (std::strcmp(text, "strict") == 0) return FallbackMode::kStrict;
  TORCH_CHECK_VALUE(false, "TORCH_FL_FALLBACK must be warn, silent or strict, got '", text, "'");
}

FallbackReasonScope::FallbackReasonScope(FallbackReason reason, c10::ScalarType dtype)
    : previous_(tls_reason), previous_dtype_(tls_dtype) {
  tls_reason = reason;
  tls_dtype = dtype;
}
FallbackReasonScope::~FallbackReasonScope() {
  tls_reason = previous_;
  tls_dtype = previous_dtype_;
}

void cpu_fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const std::string name = op_name(op);
  // An op PyTorch sends only to accelerators, or another op under another name,
  // runs as ATen ops on the device: not a CPU fallback (each op it is made of
  // takes its own path), so strict mode allows it and it is not counted.
  if (const DeviceDecomposition decomposition = find_device_decomposition(name)) {
    if (debug_logging()) log_line(name + ": decomposed into ATen ops on the device");
    decomposition(stack);
    return;
  }
  const std::string dtype = tls_dtype != c10::ScalarType::Undefined ? c10::toString(tls_dtype)
                                                                     : first_tensor_dtype(op, stack);
  const FallbackReason reason = tls_reason;
  // The reason applies to this call only, not to ops the CPU kernel runs.
  const FallbackReasonScope reset(FallbackReason::kNotInSpec);
  // Without this check the user of an mlu tensor reads "Could not run ... from
  // the 'CPU' backend", which names neither the device nor a way out.
  TORCH_CHECK_NOT_IMPLEMENTED(op.hasComputedKernelForDispatchKey(c10::DispatchKey::CPU) ||
                                  op.hasComputedKernelForDispatchKey(c10::DispatchKey::SparseCPU) ||
                                  op.hasComputedKernelForDispatchKey(c10::DispatchKey::NestedTensorCPU) ||
                                  op.hasComputedKernelForDispatchKey(c10::DispatchKey::QuantizedCPU),
                              "[", driver().vendor, "] ",
                              name, " (", dtype, ") has no native kernel (", to_string(reason),
                              ") and cannot fall back to the CPU: PyTorch has no CPU kernel for it (it exists "
                              "only for accelerators). Declare it in the vendor's spec, or give it a device "
                              "decomposition in runtime/src/device_decompositions.cpp.");
  TORCH_CHECK_NOT_IMPLEMENTED(!returns_a_view(op), "[", driver().vendor, "] ", name, " (", dtype,
                              ") is a view operator without a device kernel (", to_string(reason),
                              "): on the CPU fallback it would return a copy, and writes through it would be "
                              "lost. Register ATen's kernel for it in runtime/aten_kernels.yaml (a view needs no device work).");
  const FallbackMode mode = fallback_mode();
  if (debug_logging()) {
    log_line(name + " [" + dtype + "]: CPU fallback (" + to_string(reason) + ")");
  }
  TORCH_CHECK_NOT_IMPLEMENTED(mode != FallbackMode::kStrict, "[", driver().vendor, "] ", name, " (", dtype,
                              ") has no native kernel (", to_string(reason),
                              ") and TORCH_FL_FALLBACK=strict forbids the CPU fallback");
  bool first = false;
  {
    Counters& c = counters();
    std::lock_guard<std::mutex> lock(c.mutex);
    c.counts[{name, dtype, to_string(reason)}] += 1;
    first = c.warned.insert(name).second;
  }
  if (first && mode == FallbackMode::kWarn) {
    TORCH_WARN("[", driver().vendor, "] ", name, " (", dtype, ") runs on CPU: ", to_string(reason),
               ". Set TORCH_FL_FALLBACK=silent to hide this warning or strict to make it an error.");
  }
  const ProfilerRange range(std::string("CPU fallback: ") + to_string(reason));
  count_fallback_call(argument_device(op, stack).value_or(current_device()));
  use_device_generators(op, stack);
  if (fall_back_to_core_op(name, stack)) return;
  run_on_cpu(op, stack);
}

void unsupported_op_kernel(const c10::OperatorHandle& op, torch::jit::Stack*) {
  TORCH_CHECK_NOT_IMPLEMENTED(false, "[", driver().vendor, "] ", op_name(op),
                              " is not supported on this device (the vendor spec declares `fallback: error`)");
}

std::vector<FallbackRecord> fallback_records() {
  Counters& c = counters();
  std::lock_guard<std::mutex> lock(c.mutex);
  std::vector<FallbackRecord> records;
  for (const auto& [key, count] : c.counts) {
    records.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), count});
  }
  return records;
}

void reset_fallback_records() {
  Counters& c = counters();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.counts.clear();
  c.warned.clear();
}

TORCH_LIBRARY_IMPL(_, PrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&cpu_fallback>());
}
// Sparse COO, nested and quantized device tensors (runtime/aten_kernels.yaml,
// quantized_ops.cpp): their other ops run on CPU's kernels for them the same way.
TORCH_LIBRARY_IMPL(_, SparsePrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&cpu_fallback>());
}
TORCH_LIBRARY_IMPL(_, NestedTensorPrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&cpu_fallback>());
}
TORCH_LIBRARY_IMPL(_, QuantizedPrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&cpu_fallback>());
}

}  // namespace torch_fl
