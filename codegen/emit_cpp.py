"""Kernel plans → C++ source text. Pure functions: plans in, strings out.

Every line of C++ is decided here; the Jinja templates only lay the prepared
blocks out in a file. Names from the spec were checked against their grammar
when the spec was parsed (spec.Grammar); free text from it (file names, call
lines, schemas) is emitted only through cpp_text.comment and string_literal.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass

from . import cpp_text, emit_guard, guards
from .cpp_text import string_literal
from .plan import (STREAM_ARGUMENT, WORKSPACE_ARGUMENT, AllocationKind, BackendPlan, GradOutput, KernelKind, KernelPlan,
                   LaunchParameter, LaunchPlan, SavedTensor, SavedValue, SavedValueType, TensorArgKind)
from .spec import DTYPES, FallbackPolicy, LayoutKind, PassBy, SdkSpec

# Shards bound the rebuild after a spec edit: one entry's kernels all land in one shard.
SHARD_COUNT = 8


@dataclass(frozen=True)
class CppBlock:
    comment: tuple[str, ...]  # escaped: each follows `//` on its own line
    lines: tuple[str, ...]


def _comments(*lines: str) -> tuple[str, ...]:
    return tuple(cpp_text.comment(line) for line in lines)


@dataclass(frozen=True)
class Shard:
    index: int
    blocks: tuple[CppBlock, ...]
    registrations: tuple[str, ...]
    autograd_registrations: tuple[str, ...] = ()
    native_headers: tuple[str, ...] = ()  # ATen/ops/<op>_native.h of decompositions called


def shard_of(entry_name: str) -> int:
    return zlib.crc32(entry_name.encode()) % SHARD_COUNT


def _source(kernel: KernelPlan) -> str:
    return str(kernel.provenance)


def dtype_list(dtypes: tuple[str, ...]) -> str:
    return ", ".join(f"c10::ScalarType::{DTYPES[d]}" for d in dtypes)


def _status_check(sdk: SdkSpec, status: str, call: str) -> list[str]:
    """`const <status type> <status> = <call>;` and the check that raises the vendor's
    error (the op, the vendor, its code and message) when it is not `ok`."""
    return [f"  const {sdk.status.type} {status} = {call};",
            f"  if ({status} != {sdk.status.ok}) {{",
            f"    op.raise_vendor_error(static_cast<int64_t>({status}), {sdk.status.message}({status}));",
            "  }"]


def _launch_parameter_type(launch: LaunchPlan, parameter: LaunchParameter) -> str:
    """How the launch function takes a value: as the dispatcher passes it, never
    mutably (a launch writes through the SDK, not through its parameters)."""
    if parameter.is_output:
        return "const at::Tensor&"
    for cpp_type, name in launch.entry.dispatcher_arguments():
        if name == parameter.name:
            return "const at::Tensor &" if cpp_type.strip() == "at::Tensor &" else cpp_type
    raise KeyError(parameter.name)


def launch_block(plan: BackendPlan, launch: LaunchPlan, source: str) -> CppBlock:
    sdk = plan.sdk
    params = ", ".join(["const torch_fl::OpContext& op"] +
                       [f"{_launch_parameter_type(launch, p)} {p.name}" for p in launch.parameters])
    lines = [f"static void {launch.function_name}({params}) {{"]
    by_name = {p.name: p for p in launch.parameters}
    call_args = []
    for index, arg in enumerate(launch.call_arguments):
        name = arg.name
        if name == STREAM_ARGUMENT:
            lines.append(f"  const auto stream_arg = {sdk.stream}(op.stream());")
            call_args.append("stream_arg")
            continue
        if name == WORKSPACE_ARGUMENT:  # filled in below, once its size is known
            call_args.append(WORKSPACE_ARGUMENT)
            continue
        if name is None:  # computed by the glue
            lines.append(f"  const auto computed_arg{index} = {arg.converter}();")
            call_args.append(f"computed_arg{index}")
            continue
        if arg.converter is not None:  # explicit converter: passed by value
            lines.append(f"  const auto {name}_arg{index} = {arg.converter}({name});")
            call_args.append(f"{name}_arg{index}")
            continue
        param = by_name[name]
        if param.converter is None:
            call_args.append(name)
            continue
        lines.append(f"  const auto {name}_arg = {param.converter.function}({name});")
        call_args.append(f"&{name}_arg" if param.converter.pass_by == PassBy.POINTER else f"{name}_arg")
    if WORKSPACE_ARGUMENT in call_args:
        # Two-phase call: ask the SDK how much scratch memory the call needs, take
        # it from the caching allocator on this stream, then run with it.
        query_args = [a for a in call_args if a not in ("stream_arg", WORKSPACE_ARGUMENT)]
        query = sdk.workspace_query.format(function=launch.sdk_function)
        lines.append("  size_t workspace_bytes = 0;")
        lines += _status_check(sdk, "query_status", f"{query}({', '.join(query_args + ['&workspace_bytes'])})")
        lines.append("  const at::Tensor workspace = op.workspace(workspace_bytes);")
        call_args = [a if a != WORKSPACE_ARGUMENT else "op.data(workspace), workspace_bytes" for a in call_args]
    if sdk.two_phase is not None:
        # Every call of this SDK is two-phase: the query validates the arguments,
        # sizes the scratch memory and returns an executor; the execute call
        # consumes the executor on the stream with the workspace.
        query = sdk.two_phase.query.format(function=launch.sdk_function)
        lines.append("  uint64_t workspace_bytes = 0;")
        lines.append(f"  {sdk.two_phase.executor} executor = nullptr;")
        lines += _status_check(sdk, "query_status",
                               f"{query}({', '.join(call_args + ['&workspace_bytes', '&executor'])})")
        lines.append("  const at::Tensor workspace = op.workspace(workspace_bytes);")
        call_args = ["op.data(workspace)", "workspace_bytes", "executor", f"{sdk.stream}(op.stream())"]
    lines += _status_check(sdk, "status", f"{launch.sdk_function}({', '.join(call_args)})")
    lines.append("}")
    return CppBlock(_comments(launch.call_text, f"from {source}"), tuple(lines))


def fallback_statement(kernel: KernelPlan, reason: str) -> str:
    if kernel.namespace != "aten":  # a vendor op has no CPU kernel to fall back to
        return f"op.reject(torch_fl::FallbackReason::{reason});"
    return f"return {fallback(kernel, reason)};"


def fallback(kernel: KernelPlan, reason: str) -> str:
    args = ", ".join(name for _, name in kernel.aten.dispatcher_arguments())
    return (f"torch_fl::fallback_to_cpu<ATEN_OP({kernel.aten.cpp_name})>(op, torch_fl::FallbackReason::{reason}, "
            f"{args})")


def _unless(kernel: KernelPlan, condition: str, reason: str, comment: str = "") -> list[str]:
    """Falls back (or rejects, for a vendor op) for `reason` unless `condition` holds."""
    return [f"  if (!({condition})) {{{comment}", f"    {fallback_statement(kernel, reason)}", "  }"]


def meta_call(kernel: KernelPlan) -> str:
    """The overload itself, run on meta tensors: PyTorch's own shape, dtype and
    argument checks for exactly this form (functional, out= or in-place).

    functional: at::<name>(meta args...)
    out=:       at::<name>_outf(meta args..., <out>_meta...)  (the caller declares the meta outs)
    in-place:   at::<name>_(self_meta, meta args...) or self_meta.<name>_(...)  (the caller declares self_meta)
    """
    op = kernel.aten
    tensors = {t.name for t in kernel.tensor_inputs}
    args = [f"op.meta({a.name})" if a.name in tensors else a.name for a in op.schema.arguments.flat_non_out]
    name = str(op.schema.name.name)
    # at::meta:: calls the C++ Meta kernel directly; otherwise the dispatcher runs
    # whatever Meta kernel is registered (possibly a decomposition).
    namespace = "at::meta" if op.direct_meta else "at"
    if kernel.kind == KernelKind.OUT:
        outs = [f"{a.name}_meta" for a in op.out_arguments]
        return f"{namespace}::{name}_outf({', '.join(args + outs)})"
    if kernel.kind == KernelKind.INPLACE:
        if op.function_variant or op.direct_meta:
            return f"{namespace}::{name}({', '.join(['self_meta'] + args[1:])})"
        return f"self_meta.{name}({', '.join(args[1:])})"
    if op.function_variant or op.direct_meta:
        return f"{namespace}::{name}({', '.join(args)})"
    return f"{args[0]}.{name}({', '.join(args[1:])})"


def _expected_call(kernel: KernelPlan) -> str:
    """The expression computing the expected outputs on meta (META or RULE allocation)."""
    allocation = kernel.allocation
    if allocation.kind == AllocationKind.RULE:
        return f"{allocation.rule}({', '.join(allocation.inputs)})"
    return meta_call(kernel)


def _expected(outputs: tuple[str, ...]) -> list[str]:
    return ["expected"] if len(outputs) == 1 else [f"std::get<{i}>(expected)" for i in range(len(outputs))]


def _kernel_info(kernel: KernelPlan, info: str) -> list[str]:
    """The static facts the runtime reports with every decision and error."""
    policy = "kError" if kernel.dtypes.fallback == FallbackPolicy.ERROR else "kCpu"
    return [
        f"static const torch_fl::OpInfo {info}{{",
        f"    {string_literal(kernel.aten.name)}, {string_literal(_source(kernel))},",
        f"    torch_fl::dtype_set({{{dtype_list(kernel.dtypes.native)}}}),",
        f"    torch_fl::FallbackPolicy::{policy},",
        f"    torch_fl::dtype_set({{{dtype_list(kernel.dtypes.error_dtypes)}}})}};",
    ]


def _placement_checks(kernel: KernelPlan) -> list[str]:
    """Every tensor on this device (a CPU scalar where one may stand in), and the
    memory-overlap rules for what the kernel writes into."""
    lines = []
    for tensor in kernel.tensor_inputs:
        name = tensor.name
        if kernel.kind == KernelKind.INPLACE and name == "self":
            lines.append('  op.check_output(self, "self", /*is_operand=*/true);')
        elif tensor.kind == TensorArgKind.LIST:
            lines.append(f'  op.check_input_list({name}, "{name}");')
        elif tensor.kind == TensorArgKind.OPTIONAL:
            lines.append(f'  op.check_optional_input({name}, "{name}");')
        else:
            scalar_ok = "true" if tensor.cpu_scalar_ok else "false"
            lines.append(f'  op.check_input({name}, "{name}", /*cpu_scalar_ok=*/{scalar_ok});')
    if kernel.kind == KernelKind.OUT:
        for name in kernel.output_names:
            lines.append(f'  op.check_output({name}, "{name}", /*is_operand=*/false);')
    overlap = kernel.overlap
    if overlap is not None:
        for written in overlap.written:
            if not overlap.internal_allowed:
                lines.append(f"  torch_fl::check_no_internal_overlap({written});")
            for tensor in overlap.inputs:
                lines.append(f"  torch_fl::check_no_partial_overlap({written}, {tensor.name});")
    return lines


def _preconditions(kernel: KernelPlan) -> list[str]:
    """What decides native vs fallback before anything runs: the operands' dtypes,
    the guard, the layouts the chip can take, and the functional result's dtype."""
    decision = kernel.dtype_decision
    lines = []
    checks = [f'op.dtype_is_native({t.name}, "{t.name}")' for t in decision.operands]
    checks += [f'op.index_dtype_is_native({t.name}, "{t.name}")' for t in decision.index_like]
    checks += [f'op.result_dtype_is_native({name}, "{name}")' for name in decision.outputs]
    if checks:
        lines += _unless(kernel, " && ".join(checks), "kDtype")
    if kernel.guard is not None:
        when = cpp_text.comment(guards.to_text(kernel.guard))
        lines += [f"  if ({emit_guard.negated(kernel.guard)}) {{  // when: {when}",
                  f"    {fallback_statement(kernel, 'kGuard')}", "  }"]
    for rule in kernel.layouts:
        if rule.kind == LayoutKind.CHANNELS_LAST:
            lines += [f"  if (!op.layout_possible({rule.argument}, torch_fl::MemoryLayout::kChannelsLast)) {{",
                      f"    {fallback_statement(kernel, 'kLayout')}", "  }"]
    if kernel.kind == KernelKind.FUNCTIONAL and kernel.allocation.kind != AllocationKind.LIKE:
        # The result's dtype (type promotion, a dtype= argument) is known from
        # meta before anything runs on the device: it must be native too.
        outputs = kernel.output_names
        lines.append(f"  const auto expected = {_expected_call(kernel)};")
        if decision.check_result:
            checks = [f'op.result_dtype_is_native({r}, "{name}")' for r, name in zip(_expected(outputs), outputs)]
            lines += _unless(kernel, " && ".join(checks), "kDtype")
    return lines


def _operands(kernel: KernelPlan) -> tuple[list[str], dict[str, str]]:
    """CPU scalars moved to the device, then each layout and cast rule applied;
    returns the lines and, per argument, the name of the tensor the SDK gets."""
    lines, moved = [], {}
    # CPU scalars (Python numbers wrapped as 0-dim CPU tensors) move to the device.
    for tensor in kernel.tensor_inputs:
        if tensor.cpu_scalar_ok and tensor.kind == TensorArgKind.TENSOR and tensor.name in kernel.launch_arguments:
            moved[tensor.name] = f"{tensor.name}_on_device"
            lines.append(f"  const at::Tensor {tensor.name}_on_device = op.on_device({tensor.name});")
    for rule in kernel.layouts:
        source = moved.get(rule.argument, rule.argument)
        laid = f"{rule.argument}_laid"
        if rule.kind == LayoutKind.CONTIGUOUS:
            lines.append(f"  const at::Tensor {laid} = op.with_layout({source}, torch_fl::MemoryLayout::kContiguous);")
        elif rule.kind == LayoutKind.CHANNELS_LAST:
            lines.append(f"  const at::Tensor {laid} = op.with_layout({source}, torch_fl::MemoryLayout::kChannelsLast);")
        elif rule.kind == LayoutKind.ALIGNED:
            lines.append(f"  const at::Tensor {laid} = op.aligned({source}, {rule.alignment});")
        elif rule.reuse:
            # Converted once and reused while the source is unchanged (same
            # storage, version and geometry) on this stream.
            lines.append(f"  const at::Tensor {laid} = op.converted({source}, {string_literal(rule.converter)}, "
                         f"&{rule.converter});")
        else:
            lines.append(f"  const at::Tensor {laid} = {rule.converter}({source});")
        moved[rule.argument] = laid
    for rule in kernel.casts:
        source = moved.get(rule.argument, rule.argument)
        cast = f"{rule.argument}_as_{rule.dtype}"
        lines.append(f"  const at::Tensor {cast} = op.cast({source}, c10::ScalarType::{DTYPES[rule.dtype]});")
        moved[rule.argument] = cast
    return lines, moved


def _allocation(kernel: KernelPlan) -> list[str]:
    """The outputs: allocated (functional), checked and resized (out=), or checked
    on meta (in-place)."""
    outputs, allocation = kernel.output_names, kernel.allocation
    lines = []
    if kernel.kind == KernelKind.FUNCTIONAL:
        if allocation.kind == AllocationKind.LIKE:
            for name, like in zip(outputs, allocation.like):
                lines.append(f"  const at::Tensor {name} = op.allocate_like({like});")
        elif len(outputs) == 1:
            lines.append(f"  const at::Tensor {outputs[0]} = op.allocate(expected);")
        else:
            for i, name in enumerate(outputs):
                lines.append(f"  const at::Tensor {name} = op.allocate(std::get<{i}>(expected));")
    elif kernel.kind == KernelKind.OUT:
        # The out= overload runs on meta outs of the caller's dtypes, so its own
        # rules apply (e.g. a reduction accumulates in the out= dtype).
        if allocation.kind == AllocationKind.RULE:
            lines.append(f"  const auto expected = {_expected_call(kernel)};")
            expected = _expected(outputs)
            # A rule computes no out= dtype checks of its own: an out= tensor of
            # another dtype goes to CPU, whose kernel casts or raises as ATen does.
            same = [f"{name}.scalar_type() == {e}.scalar_type()" for name, e in zip(outputs, expected)]
            lines += _unless(kernel, " && ".join(same), "kDtype")
            for name, e in zip(outputs, expected):
                lines.append(f"  op.resize_output({name}, {e});")
        else:
            for name in outputs:
                lines.append(f"  at::Tensor {name}_meta = op.meta_output({name});")
            lines.append(f"  {meta_call(kernel)};")
            for name in outputs:
                lines.append(f'  op.resize_output({name}, {name}_meta);')
    elif allocation.kind == AllocationKind.META:
        # The in-place overload's own shape and dtype checks, on meta.
        lines.append("  at::Tensor self_meta = op.meta(self);")
        lines.append(f"  {meta_call(kernel)};")
    return lines


def _launch(kernel: KernelPlan, operands: dict[str, str]) -> list[str]:
    """The one SDK call, and the return."""
    outputs = kernel.output_names
    launch_args = ", ".join(["op"] + [operands.get(a, a) for a in kernel.launch_arguments])
    lines = [f"  {kernel.launch.function_name}({launch_args});"]
    if kernel.kind == KernelKind.INPLACE:
        lines.append("  return self;")
    elif len(outputs) == 1:
        lines.append(f"  return {outputs[0]};")
    elif kernel.kind == KernelKind.FUNCTIONAL:
        lines.append(f"  return std::make_tuple({', '.join(outputs)});")
    else:
        lines.append(f"  return std::forward_as_tuple({', '.join(outputs)});")
    return lines


def kernel_block(kernel: KernelPlan) -> CppBlock:
    """A wrapper reads as a careful engineer would write it by hand: checks, guard,
    preconditions, layouts, allocation, launch."""
    aten = kernel.aten
    info = f"kOp_{aten.cpp_name}"
    lines = _kernel_info(kernel, info) + ["", f"{aten.dispatcher_decl(kernel.wrapper_name)} {{",
                                          f"  torch_fl::OpContext op({info});"]
    lines += _placement_checks(kernel)
    lines.append("  const torch_fl::DeviceGuard guard(op.device());")
    lines += _preconditions(kernel)
    operand_lines, operands = _operands(kernel)
    lines += operand_lines
    lines += _allocation(kernel)
    lines += _launch(kernel, operands)
    lines.append("}")
    comment = [f"{aten.name}: {_source(kernel)}"]
    if kernel.derived_from:
        comment.append(f"{kernel.kind.value} variant derived from {kernel.derived_from}")
    return CppBlock(_comments(*comment), tuple(lines))


def decomposition_block(kernel: KernelPlan) -> CppBlock:
    """AutogradPrivateUse1 kernel of a CompositeImplicitAutograd op with `autograd: decomposition`."""
    aten = kernel.aten
    names = [n for _, n in aten.dispatcher_arguments()]
    tensors = [t.name for t in kernel.tensor_inputs]
    lines = [
        f"{aten.dispatcher_decl('autograd_' + aten.cpp_name)} {{",
        f"  if (torch_fl::grad_required({', '.join(tensors)})) {{",
        f"    return at::native::{aten.decomposition}({', '.join(names)});",
        "  }",
        "  at::AutoDispatchBelowADInplaceOrView below_autograd;",
        f"  return {kernel.wrapper_name}({', '.join(names)});",
        "}",
    ]
    return CppBlock(_comments(f"{aten.name}: the decomposition (and its autograd) when a gradient is needed, "
                              "the native kernel otherwise", f"from {_source(kernel)}"), tuple(lines))


def shards(plan: BackendPlan) -> list[Shard]:
    blocks: dict[int, list[CppBlock]] = {i: [] for i in range(SHARD_COUNT)}
    regs: dict[int, list[str]] = {i: [] for i in range(SHARD_COUNT)}
    autograd_regs: dict[int, list[str]] = {i: [] for i in range(SHARD_COUNT)}
    headers: dict[int, list[str]] = {i: [] for i in range(SHARD_COUNT)}
    launch_by_name = {l.function_name: l for l in plan.launches}
    emitted_launches: set[str] = set()
    for kernel in plan.kernels:
        index = shard_of(kernel.entry)
        if kernel.launch is None:
            # An entry without a call whose policy is `error`: the op always raises.
            if kernel.dtypes.fallback == FallbackPolicy.ERROR:
                regs[index].append(f'm.impl("{kernel.registration_name}", '
                                   f"torch::CppFunction::makeFromBoxedFunction<&torch_fl::unsupported_op_kernel>());")
            continue
        if kernel.launch.function_name not in emitted_launches:
            emitted_launches.add(kernel.launch.function_name)
            blocks[index].append(launch_block(plan, launch_by_name[kernel.launch.function_name], _source(kernel)))
        blocks[index].append(kernel_block(kernel))
        regs[index].append(f'm.impl("{kernel.registration_name}", TORCH_FN({kernel.wrapper_name}));')
        if kernel.allocation.kind == AllocationKind.META and kernel.aten.direct_meta:
            headers[index].append(f"ATen/ops/{kernel.aten.name.split('.')[0].rstrip('_')}_meta_dispatch.h")
        if kernel.aten.composite_implicit:
            blocks[index].append(decomposition_block(kernel))
            autograd_regs[index].append(f'm.impl("{kernel.registration_name}", '
                                        f'TORCH_FN(autograd_{kernel.aten.cpp_name}));')
            headers[index].append(f"ATen/ops/{kernel.aten.name.split('.')[0]}_native.h")
    return [Shard(i, tuple(blocks[i]), tuple(regs[i]), tuple(autograd_regs[i]),
                  tuple(dict.fromkeys(headers[i])))  # each header once, in first-use order
            for i in range(SHARD_COUNT)]


@dataclass(frozen=True)
class CustomOpsFile:
    namespace: str
    definitions: tuple[str, ...]  # schemas for TORCH_LIBRARY, as C++ string literals
    blocks: tuple[CppBlock, ...]
    registrations: tuple[str, ...]  # PrivateUse1 kernels
    autograd_registrations: tuple[str, ...]  # AutogradPrivateUse1 kernels


def _typed_signature(op) -> str:
    return f"{op.returns_type()}({', '.join(t for t, _ in op.dispatcher_arguments())})"


def _handle(kernel: KernelPlan) -> str:
    name = string_literal(f"{kernel.namespace}::{kernel.aten.name}")
    return f'c10::Dispatcher::singleton().findSchemaOrThrow({name}, "").typed<{_typed_signature(kernel.aten)}>()'


# How a saved non-tensor argument comes back out of its IValue.
_IVALUE_ACCESSOR = {SavedValueType.FLOAT: "toDouble", SavedValueType.INT: "toInt", SavedValueType.BOOL: "toBool"}


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
    lines.append(f"{returns} autograd_{name}({', '.join(params)}) {{")
    lines.append(f"  return {cls}::apply({', '.join(names)});")
    lines.append("}")
    return CppBlock(_comments(f"autograd of {forward.namespace}::{name}: gradients by "
                              f"{backward.namespace}::{backward.aten.name}", f"from {_source(forward)}"), tuple(lines))


def custom_ops_file(plan: BackendPlan) -> CustomOpsFile:
    launch_by_name = {l.function_name: l for l in plan.launches}
    definitions, blocks, registrations, autograd_regs = [], [], [], []
    for custom in plan.custom_ops:
        definitions.append(string_literal(custom.schema))
        kernels = [custom.forward] + ([custom.backward] if custom.backward else [])
        if custom.backward_schema:
            definitions.append(string_literal(custom.backward_schema))
        for kernel in kernels:
            blocks.append(launch_block(plan, launch_by_name[kernel.launch.function_name], _source(kernel)))
            blocks.append(kernel_block(kernel))
            registrations.append(f'm.impl("{kernel.aten.name}", TORCH_FN({kernel.wrapper_name}));')
        if custom.autograd:
            blocks.append(autograd_block(custom))
            autograd_regs.append(f'm.impl("{custom.forward.aten.name}", TORCH_FN(autograd_{custom.forward.aten.name}));')
    return CustomOpsFile(plan.vendor, tuple(definitions), tuple(blocks), tuple(registrations),
                         tuple(autograd_regs))


def autocast_kernels(plan: BackendPlan) -> list[str]:
    """One KERNEL_PRIVATEUSEONE line per autocast entry, with its source."""
    lines = []
    for entry in plan.autocast:
        name, _, overload = entry.op.partition(".")
        args = f"{name}, {overload}, {entry.policy.value}" if overload else f"{name}, {entry.policy.value}"
        source = cpp_text.comment(f"{entry.location.path}:{entry.location.line}")
        lines.append(f"KERNEL_PRIVATEUSEONE({args})  // {source}")
    return lines
