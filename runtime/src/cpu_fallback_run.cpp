#include "cpu_fallback_run.h"

#include <ATen/ATen.h>
#include <c10/util/Exception.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "copy.h"
#include <torch_fl/device.h>

namespace torch_fl {
namespace {

bool on_device(const at::Tensor& t) { return t.defined() && t.device().type() == c10::DeviceType::PrivateUse1; }

// Sparse, nested and quantized tensors move whole (.to() copies their indices,
// values or buffer, or their integers with their quantizer); the first two have no
// sizes and strides of their own over one storage.
bool moved_whole(const at::Tensor& t) { return t.is_sparse() || t.is_nested() || t.is_quantized(); }

bool writes(const c10::Argument& argument) {
  return argument.alias_info() != nullptr && argument.alias_info()->isWrite();
}

// A device tensor among the op's arguments: argument `argument` itself, or
// element `element` of it when it is a list.
struct Slot {
  size_t argument;
  std::optional<size_t> element;
  at::Tensor device;
  at::Tensor cpu;
  bool written;
  // Part of a group of arguments that share memory: a view of one CPU copy of
  // the bytes they span (read only: each written argument goes back on its own).
  bool in_span = false;
};

// The bytes of its storage that t reaches: [first, last).
std::pair<int64_t, int64_t> byte_extent(const at::Tensor& t) {
  int64_t last = t.storage_offset();
  for (int64_t d = 0; d < t.dim(); ++d) last += (t.size(d) - 1) * t.stride(d);
  return {t.storage_offset() * t.element_size(), (last + 1) * t.element_size()};
}

// True when no two elements of t can share memory: with its dims sorted by
// stride, each stride steps past everything the smaller ones reach. (ATen's
// has_internal_overlap answers "too hard" for any non-dense view, x[:, 0] too.)
bool elements_are_distinct(const at::Tensor& t) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size) of dims longer than 1
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.size(d) > 1) dims.emplace_back(t.stride(d), t.size(d));
  }
  std::sort(dims.begin(), dims.end());
  int64_t reach = 0;  // the largest offset the smaller-stride dims reach
  for (const auto& [stride, size] : dims) {
    if (stride <= reach) return false;
    reach += (size - 1) * stride;
  }
  return true;
}

std::vector<Slot> device_tensors(const c10::FunctionSchema& schema, const torch::jit::Stack& stack, size_t base) {
  std::vector<Slot> slots;
  for (size_t i = 0; i < schema.arguments().size(); ++i) {
    const c10::IValue& value = stack[base + i];
    const bool written = writes(schema.arguments()[i]);
    if (value.isTensor()) {
      if (on_device(value.toTensor())) slots.push_back({i, std::nullopt, value.toTensor(), {}, written});
    } else if (value.isTensorList()) {
      const c10::List<at::Tensor> list = value.toTensorList();
      for (size_t j = 0; j < list.size(); ++j) {
        if (on_device(list.get(j))) slots.push_back({i, j, list.get(j), {}, written});
      }
    } else if (value.isOptionalTensorList()) {
      const c10::List<std::optional<at::Tensor>> list = value.toOptionalTensorList();
      for (size_t j = 0; j < list.size(); ++j) {
        const std::optional<at::Tensor> element = list.get(j);
        if (element.has_value() && on_device(*element)) slots.push_back({i, j, *element, {}, written});
      }
    }
  }
  return slots;
}

// Slots sharing a storage with another slot, or overlapping themselves, become
// views of a span of the storage; the rest are copied densely.
void copy_to_cpu(std::vector<Slot>& slots) {
  std::map<const c10::StorageImpl*, std::vector<size_t>> by_storage;
  for (size_t i = 0; i < slots.size(); ++i) {
    if (!moved_whole(slots[i].device) && slots[i].device.numel() > 0) by_storage[slots[i].device.storage().unsafeGetStorageImpl()].push_back(i);
  }
  for (const auto& [storage, members] : by_storage) {
    if (members.size() == 1 && elements_are_distinct(slots[members[0]].device)) continue;
    // 16: every element size divides it, so each member's offset is whole in its own dtype.
    int64_t begin = std::numeric_limits<int64_t>::max(), end = 0;
    for (size_t i : members) {
      const auto [first, last] = byte_extent(slots[i].device);
      begin = std::min(begin, first - first % 16);
      end = std::max(end, last);
    }
    const at::Tensor& any = slots[members[0]].device;
    const at::Tensor device_bytes =
        at::empty({0}, any.options().dtype(at::kByte)).set_(any.storage(), begin, {end - begin}, {1});
    const at::Tensor cpu_bytes = at::empty({end - begin}, at::TensorOptions().dtype(at::kByte));
    copy_between(cpu_bytes, device_bytes, /*non_blocking=*/false);
    for (size_t i : members) {
      Slot& slot = slots[i];
      const int64_t offset = (slot.device.storage_offset() * slot.device.element_size() - begin) /
                             static_cast<int64_t>(slot.device.element_size());
      slot.cpu = at::empty({0}, at::TensorOptions().dtype(slot.device.dtype()))
                     .set_(cpu_bytes.storage(), offset, slot.device.sizes(), slot.device.strides());
      slot.cpu._set_conj(slot.device.is_conj());
      slot.cpu._set_neg(slot.device.is_neg());
      slot.in_span = true;
    }
  }
  for (Slot& slot : slots) {
    if (!slot.cpu.defined()) slot.cpu = slot.device.to(at::kCPU);
  }
}

void put_cpu_arguments(const std::vector<Slot>& slots, torch::jit::Stack& stack, size_t base) {
  std::map<size_t, std::vector<const Slot*>> lists;  // list arguments, rebuilt whole
  for (const Slot& slot : slots) {
    if (slot.element.has_value()) {
      lists[slot.argument].push_back(&slot);
    } else {
      stack[base + slot.argument] = c10::IValue(slot.cpu);
    }
  }
  for (const auto& [argument, elements] : lists) {
    c10::IValue& value = stack[base + argument];
    if (value.isTensorList()) {
      c10::List<at::Tensor> copy = value.toTensorList().copy();
      for (const Slot* slot : elements) copy.set(*slot->element, slot->cpu);
      value = c10::IValue(std::move(copy));
    } else {
      c10::List<std::optional<at::Tensor>> copy = value.toOptionalTensorList().copy();
      for (const Slot* slot : elements) copy.set(*slot->element, slot->cpu);
      value = c10::IValue(std::move(copy));
    }
  }
}

// A sparse argument the op rewrote: into its own indices and values tensors when
// their shapes held (CPU's in-place sparse ops keep them, and a values() taken
// earlier sees the change), else swapped for the new ones (as CPU's are).
void write_back_sparse(const at::Tensor& device, const at::Tensor& cpu) {
  if (device.sizes() == cpu.sizes() && device._indices().sizes() == cpu._indices().sizes() &&
      device._values().sizes() == cpu._values().sizes() && device._values().dtype() == cpu._values().dtype()) {
    device._indices().copy_(cpu._indices());
    device._values().copy_(cpu._values());
    device._coalesced_(cpu.is_coalesced());
  } else {
    device.copy_(cpu);
  }
}

// A dense argument the op resized (an out= tensor): the caller's takes the CPU
// result's sizes and, where it is dense, its strides (ATen's resize_output keeps
// an out='s memory format), then its values.
void write_back_resized(const at::Tensor& device, const at::Tensor& cpu) {
  device.resize_(cpu.sizes());
  if (cpu.is_non_overlapping_and_dense() && device.strides() != cpu.strides()) {
    device.unsafeGetTensorImpl()->set_sizes_and_strides(cpu.sizes(), cpu.strides());
  }
  copy_between(device, cpu, /*non_blocking=*/false);
}

// The bytes a grouped argument reaches, from its CPU view's storage back into its
// device storage: for an argument whose elements share memory, which no
// element-wise copy may write.
void write_back_extent(const Slot& slot) {
  const auto [first, last] = byte_extent(slot.device);
  const int64_t cpu_first = slot.cpu.storage_offset() * slot.cpu.element_size();
  const at::Tensor cpu_bytes = at::empty({0}, at::TensorOptions().dtype(at::kByte))
                                   .set_(slot.cpu.storage(), cpu_first, {last - first}, {1});
  const at::Tensor device_bytes = at::empty({0}, slot.device.options().dtype(at::kByte))
                                      .set_(slot.device.storage(), first, {last - first}, {1});
  copy_between(device_bytes, cpu_bytes, /*non_blocking=*/false);
}

// Each written argument's own elements (or, where they overlap, its own bytes),
// never the rest of a span: memory between arguments is not the op's, and
// another stream or thread may be writing it.
void write_back(const std::vector<Slot>& slots) {
  for (const Slot& slot : slots) {
    if (!slot.written) continue;
    if (moved_whole(slot.device)) {
      if (slot.device.is_sparse()) {
        write_back_sparse(slot.device, slot.cpu);
      } else {
        slot.device.copy_(slot.cpu);
      }
    } else if (slot.cpu.sizes() != slot.device.sizes()) {
      write_back_resized(slot.device, slot.cpu);
    } else if (slot.in_span && !elements_are_distinct(slot.device) && slot.cpu.strides() == slot.device.strides()) {
      write_back_extent(slot);
    } else if (!slot.in_span || slot.cpu.strides() == slot.device.strides()) {
      copy_between(slot.device, slot.cpu, /*non_blocking=*/false);
    } else {
      at::_copy_from_and_resize(slot.cpu, slot.device);  // restrided by the op (t_() is a view op: rare)
    }
  }
}

c10::IValue to_device(c10::IValue value, c10::Device device) {
  if (value.isTensor()) {
    const at::Tensor& t = value.toTensor();
    return t.defined() ? c10::IValue(t.to(device)) : value;
  }
  if (value.isTensorList()) {
    c10::List<at::Tensor> moved;
    for (const at::Tensor& t : value.toTensorList().vec()) moved.push_back(t.defined() ? t.to(device) : t);
    return c10::IValue(std::move(moved));
  }
  return value;
}

}  // namespace

void run_on_cpu(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const c10::FunctionSchema& schema = op.schema();
  const size_t base = stack->size() - schema.arguments().size();
  const std::vector<c10::IValue> arguments(stack->begin() + static_cast<std::ptrdiff_t>(base), stack->end());

  std::optional<c10::Device> target;
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (arguments[i].isDevice()) {
      if (!target.has_value()) target = arguments[i].toDevice();
      (*stack)[base + i] = c10::IValue(c10::Device(c10::DeviceType::CPU));
    }
  }
  std::vector<Slot> slots = device_tensors(schema, *stack, base);
  if (!slots.empty()) target = slots.front().device.device();
  if (!target.has_value() || !target->has_index()) target = make_device(current_device());

  copy_to_cpu(slots);
  put_cpu_arguments(slots, *stack, base);
  // CPU's kernel for the kinds of tensors given: sparse, nested and quantized ones take their own, as on CPU.
  c10::DispatchKeySet cpu_keys(c10::DispatchKey::CPU);
  for (const Slot& slot : slots) {
    if (slot.device.is_sparse()) cpu_keys = cpu_keys | c10::DispatchKeySet(c10::DispatchKey::SparseCPU);
    if (slot.device.is_nested()) cpu_keys = cpu_keys | c10::DispatchKeySet(c10::DispatchKey::NestedTensorCPU);
    if (slot.device.is_quantized()) cpu_keys = cpu_keys | c10::DispatchKeySet(c10::DispatchKey::QuantizedCPU);
  }
  op.redispatchBoxed(cpu_keys, stack);
  write_back(slots);

  const size_t returns_base = stack->size() - schema.returns().size();
  for (size_t r = 0; r < schema.returns().size(); ++r) {
    c10::IValue& result = (*stack)[returns_base + r];
    const c10::AliasInfo* alias = schema.returns()[r].alias_info();
    if (alias == nullptr) {
      result = to_device(std::move(result), *target);
      continue;
    }
    // A result that is a written argument (an in-place or out= op) is the caller's tensor.
    bool found = false;
    for (size_t i = 0; i < arguments.size() && !found; ++i) {
      const c10::AliasInfo* argument_alias = schema.arguments()[i].alias_info();
      if (argument_alias != nullptr && *argument_alias == *alias) {
        result = arguments[i];
        found = true;
      }
    }
    TORCH_CHECK(found, "torch_fl CPU fallback: ", schema.name(), " returns an alias of no argument");
  }
}

}  // namespace torch_fl
