#include "cpu_fallback_run.h"

#include <ATen/ATen.h>
#include <c10/util/Exception.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include <torch_fl/copy.h>
#include <torch_fl/device.h>

namespace torch_fl {
namespace {

bool on_device(const at::Tensor& t) { return t.defined() && t.device().type() == c10::DeviceType::PrivateUse1; }

// Sparse and nested tensors move whole (.to() copies their indices, values or
// buffer); they have no sizes and strides of their own over one storage.
bool moved_whole(const at::Tensor& t) { return t.is_sparse() || t.is_nested(); }

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
  std::optional<size_t> group;  // its SpanGroup; none: copied densely
};

// Arguments on one storage that the CPU must see sharing memory: the bytes they
// reach, copied once.
struct SpanGroup {
  at::Tensor device_bytes;  // uint8 view of the device storage over [begin, end)
  at::Tensor cpu_bytes;
  bool written = false;
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
      if (on_device(value.toTensor())) slots.push_back({i, std::nullopt, value.toTensor(), {}, written, {}});
    } else if (value.isTensorList()) {
      const c10::List<at::Tensor> list = value.toTensorList();
      for (size_t j = 0; j < list.size(); ++j) {
        if (on_device(list.get(j))) slots.push_back({i, j, list.get(j), {}, written, {}});
      }
    } else if (value.isOptionalTensorList()) {
      const c10::List<std::optional<at::Tensor>> list = value.toOptionalTensorList();
      for (size_t j = 0; j < list.size(); ++j) {
        const std::optional<at::Tensor> element = list.get(j);
        if (element.has_value() && on_device(*element)) slots.push_back({i, j, *element, {}, written, {}});
      }
    }
  }
  return slots;
}

// Slots sharing a storage with another slot, or overlapping themselves, get a
// span group; the rest are copied densely.
std::vector<SpanGroup> copy_to_cpu(std::vector<Slot>& slots) {
  std::map<const c10::StorageImpl*, std::vector<size_t>> by_storage;
  for (size_t i = 0; i < slots.size(); ++i) {
    if (!moved_whole(slots[i].device) && slots[i].device.numel() > 0) by_storage[slots[i].device.storage().unsafeGetStorageImpl()].push_back(i);
  }
  std::vector<SpanGroup> groups;
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
    SpanGroup group;
    group.device_bytes = at::empty({0}, any.options().dtype(at::kByte)).set_(any.storage(), begin, {end - begin}, {1});
    group.cpu_bytes = at::empty({end - begin}, at::TensorOptions().dtype(at::kByte));
    copy_between(group.cpu_bytes, group.device_bytes, /*non_blocking=*/false);
    for (size_t i : members) {
      Slot& slot = slots[i];
      const int64_t offset = (slot.device.storage_offset() * slot.device.element_size() - begin) /
                             static_cast<int64_t>(slot.device.element_size());
      slot.cpu = at::empty({0}, at::TensorOptions().dtype(slot.device.dtype()))
                     .set_(group.cpu_bytes.storage(), offset, slot.device.sizes(), slot.device.strides());
      slot.cpu._set_conj(slot.device.is_conj());
      slot.cpu._set_neg(slot.device.is_neg());
      slot.group = groups.size();
      group.written = group.written || slot.written;
    }
    groups.push_back(std::move(group));
  }
  for (Slot& slot : slots) {
    if (!slot.cpu.defined()) slot.cpu = slot.device.to(at::kCPU);
  }
  return groups;
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

void write_back(const std::vector<Slot>& slots, const std::vector<SpanGroup>& groups) {
  for (const SpanGroup& group : groups) {
    if (group.written) copy_between(group.device_bytes, group.cpu_bytes, /*non_blocking=*/false);
  }
  for (const Slot& slot : slots) {
    if (!slot.written) continue;
    // A grouped tensor the op left where it was came back with its group's bytes.
    const bool in_place = slot.group.has_value() && slot.cpu.sizes() == slot.device.sizes() &&
                          slot.cpu.storage().is_alias_of(groups[*slot.group].cpu_bytes.storage());
    if (moved_whole(slot.device)) {
      slot.device.copy_(slot.cpu);
    } else if (!in_place) {
      at::_copy_from_and_resize(slot.cpu, slot.device);
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

  const std::vector<SpanGroup> groups = copy_to_cpu(slots);
  put_cpu_arguments(slots, *stack, base);
  // CPU's kernel for the kinds of tensors given: sparse and nested ones take their own, as on CPU.
  c10::DispatchKeySet cpu_keys(c10::DispatchKey::CPU);
  for (const Slot& slot : slots) {
    if (slot.device.is_sparse()) cpu_keys = cpu_keys | c10::DispatchKeySet(c10::DispatchKey::SparseCPU);
    if (slot.device.is_nested()) cpu_keys = cpu_keys | c10::DispatchKeySet(c10::DispatchKey::NestedTensorCPU);
  }
  op.redispatchBoxed(cpu_keys, stack);
  write_back(slots, groups);

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
