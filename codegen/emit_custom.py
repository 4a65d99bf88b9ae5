"""Vendor ops (torch.ops.<vendor>.*): their schemas, kernels and autograd."""
from __future__ import annotations

from dataclasses import dataclass

from torchgen.model import BaseTy

from . import emit_names
from .cpp_text import string_literal
from .emit_blocks import CppBlock, comments, source
from .emit_kernel import kernel_block, registration
from .emit_launch import launch_block
from .plan_model import AllocationKind, BackendPlan, GradOutput, KernelPlan, SavedTensor, SavedValue


@dataclass(frozen=True)
class CustomOpsFile:
    namespace: str
    definitions: tuple[str, ...]  # schemas for TORCH_LIBRARY, as C++ string literals
    blocks: tuple[CppBlock, ...]
    registrations: tuple[str, ...]  # PrivateUse1 kernels
    autograd_registrations: tuple[str, ...]  # AutogradPrivateUse1 kernels
    meta_registrations: tuple[str, ...] = ()  # Meta kernels: shapes for torch.compile's fake tensors


def _typed_signature(op) -> str:
    return f"{op.returns_type()}({', '.join(t for t, _ in op.dispatcher_arguments())})"


def _handle(kernel: KernelPlan) -> str:
    name = string_literal(f"{kernel.namespace}::{kernel.aten.name}")
    return f'c10::Dispatcher::singleton().findSchemaOrThrow({name}, "").typed<{_typed_signature(kernel.aten)}>()'


# How a saved non-tensor argument comes back out of its IValue.
# (One per plan_model.SAVED_VALUE_TYPES.)
_IVALUE_ACCESSOR = {BaseTy.float: "toDouble", BaseTy.int: "toInt", BaseTy.bool: "toBool"}


def _backward_argument(argument) -> str:
    if isinstance(argument, GradOutput):
        return f"grad_outputs[{argument.index}]"
    if isinstance(argument, SavedTensor):
        return f"saved[{argument.index}]"
    assert isinstance(argument, SavedValue)
    return f'ctx->saved_data["{argument.name}"].{_IVALUE_ACCESSOR[argument.type]}()'


def autograd_block(custom) -> CppBlock:
    autograd = custom.autograd
    forward, backward = autograd.forward, autograd.backward
    name = forward.aten.name
    params = [f"{t} {n}" for t, n in forward.aten.dispatcher_arguments()]
    names = [n for _, n in forward.aten.dispatcher_arguments()]
    returns = forward.aten.returns_type()
    cls = f"{name}_autograd"
    lines = [
        f"class {cls} final : public torch::autograd::Function<{cls}> {{",
        " public:",
        f"  static {returns} forward(torch::autograd::AutogradContext* ctx, {', '.join(params)}) {{",
    ]
    if autograd.saved_tensors:
        lines.append(f"    ctx->save_for_backward({{{', '.join(autograd.saved_tensors)}}});")
    for value in autograd.saved_values:
        lines.append(f'    ctx->saved_data["{value.name}"] = {value.name};')
    lines += [
        "    at::AutoDispatchBelowADInplaceOrView below_autograd;",
        f"    static const auto op = {_handle(forward)};",
        f"    return op.call({', '.join(names)});",
        "  }",
        "",
        "  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,",
        "                                                 torch::autograd::variable_list grad_outputs) {",
        "    const auto saved = ctx->get_saved_variables();",
        f"    static const auto backward_op = {_handle(backward)};",
        f"    const auto grads = backward_op.call({', '.join(_backward_argument(a) for a in autograd.backward_arguments)});",
    ]
    single = len(backward.aten.schema.returns) == 1
    results = []
    for index in autograd.gradient_of:
        if index is None:
            results.append("at::Tensor()")
        else:
            results.append("grads" if single else f"std::get<{index}>(grads)")
    lines += [f"    return {{{', '.join(results)}}};", "  }", "};", ""]
    lines.append(f"{returns} {emit_names.autograd(forward.aten)}({', '.join(params)}) {{")
    lines.append(f"  return {cls}::apply({', '.join(names)});")
    lines.append("}")
    return CppBlock(comments(f"autograd of {forward.namespace}::{name}: gradients by "
                              f"{backward.namespace}::{backward.aten.name}", f"from {source(forward)}"), tuple(lines))


def meta_block(kernel: KernelPlan) -> CppBlock:
    """The op on the meta device: its results' shapes and dtypes by the spec's output
    rule, no data. torch.compile traces a vendor op with fake tensors through it."""
    name = kernel.aten.name
    params = ", ".join(f"{t} {n}" for t, n in kernel.aten.dispatcher_arguments())
    allocation = kernel.allocation
    if allocation.kind == AllocationKind.LIKE:
        results = [f"at::empty_like({x}, at::MemoryFormat::Contiguous)" for x in allocation.like]
        value = results[0] if len(results) == 1 else f"std::make_tuple({', '.join(results)})"
    else:
        value = f"{allocation.rule}({', '.join(allocation.inputs)})"
    lines = (f"{kernel.aten.returns_type()} {emit_names.meta(kernel.aten)}({params}) {{", f"  return {value};", "}")
    return CppBlock(comments(f"{kernel.namespace}::{name} on the meta device (shapes only)",
                             f"from {source(kernel)}"), lines)


def custom_ops_file(plan: BackendPlan) -> CustomOpsFile:
    definitions, blocks, registrations, autograd_regs, meta_regs = [], [], [], [], []
    for custom in plan.custom_ops:
        definitions.append(string_literal(custom.schema))
        kernels = [custom.forward] + ([custom.backward] if custom.backward else [])
        if custom.backward_schema:
            definitions.append(string_literal(custom.backward_schema))
        for kernel in kernels:
            blocks.append(launch_block(plan, kernel.launch, source(kernel)))
            blocks.append(kernel_block(kernel))
            registrations.append(registration(kernel))
            if kernel.allocation.kind in (AllocationKind.LIKE, AllocationKind.RULE):
                blocks.append(meta_block(kernel))
                meta_regs.append(emit_names.registration(kernel.aten.name, emit_names.meta(kernel.aten)))
        if custom.autograd:
            blocks.append(autograd_block(custom))
            forward = custom.forward.aten
            autograd_regs.append(emit_names.registration(forward.name, emit_names.autograd(forward)))
    return CustomOpsFile(plan.vendor, tuple(definitions), tuple(blocks), tuple(registrations),
                         tuple(autograd_regs), tuple(meta_regs))
