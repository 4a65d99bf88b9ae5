"""Kernel wrappers: one per registered overload, written as named steps in the
order a careful engineer would write them by hand: placement checks, device
guard, preconditions (dtypes, guard, layouts, result dtype), operands (CPU
scalars, layouts, casts), allocation, launch."""
from __future__ import annotations

from . import cpp_text, emit_guard, emit_names, guards
from .cpp_text import string_literal
from .emit_blocks import CppBlock, comments, dtype_list, source
from .plan_model import AllocationKind, KernelKind, KernelPlan, OpOrigin, TensorArgKind
from .spec_model import DTYPES, FallbackPolicy, LayoutKind


def fallback_statement(kernel: KernelPlan, reason: str) -> str:
    if kernel.origin == OpOrigin.VENDOR:  # a vendor op has no CPU kernel to fall back to
        return f"op.reject(torch_fl::FallbackReason::{reason});"
    return f"return {fallback(kernel, reason)};"


def fallback(kernel: KernelPlan, reason: str) -> str:
    args = ", ".join(name for _, name in kernel.aten.dispatcher_arguments())
    if kernel.origin == OpOrigin.LIBRARY:  # the library's own CPU kernel, found by name
        signature = f"{kernel.aten.returns_type()}({', '.join(t for t, _ in kernel.aten.dispatcher_arguments())})"
        name = string_literal(f"{kernel.namespace}::{kernel.aten.schema.name.name}")
        overload = string_literal(kernel.aten.schema.name.overload_name)
        return (f"torch_fl::LibraryFallback<{signature}>::call(op, torch_fl::FallbackReason::{reason}, {name}, "
                f"{overload}, {args})")
    return (f"torch_fl::fallback_to_cpu<ATEN_OP({kernel.aten.cpp_name})>(op, torch_fl::FallbackReason::{reason}, "
            f"{args})")


def _unless(kernel: KernelPlan, condition: str, reason: str, comment: str = "", refuse=fallback_statement) -> list[str]:
    """Falls back (or rejects, for a vendor op) for `reason` unless `condition` holds."""
    return [f"  if (!({condition})) {{{comment}", f"    {refuse(kernel, reason)}", "  }"]


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


def _remembered_meta(kernel: KernelPlan, statement: str) -> list[str]:
    """The kernel's meta call behind the runtime's memo (elementwise_memo.h): a
    functional kernel's `expected`, or an in-place kernel's checks."""
    arguments = kernel.aten.schema.arguments.flat_non_out
    tensors = ", ".join(f"&{a.name}" for a in arguments if str(a.type) == "Tensor")
    scalars = ", ".join(f"&{a.name}" for a in arguments if str(a.type) == "Scalar")
    lines = ["  // A TensorIterator op: operands of one shape, all contiguous, reuse what meta",
             "  // decided for the last such call with their dtypes and Scalars (elementwise_memo.h).",
             "  static thread_local torch_fl::ElementwiseMemo memo;"]
    if kernel.kind == KernelKind.INPLACE:
        return lines + [f"  memo.check({{{tensors}}}, {{{scalars}}}, [&] {{",
                        "    at::Tensor self_meta = op.meta(self);",
                        f"    {statement};", "  });"]
    return lines + [f"  const torch_fl::ExpectedResult expected = memo.result({{{tensors}}}, {{{scalars}}}, [&] {{",
                    f"    return {statement};", "  });"]


def _expected(outputs: tuple[str, ...]) -> list[str]:
    return ["expected"] if len(outputs) == 1 else [f"std::get<{i}>(expected)" for i in range(len(outputs))]


def _kernel_info(kernel: KernelPlan, info: str) -> list[str]:
    """The static facts the runtime reports with every decision and error."""
    policy = "kError" if kernel.dtypes.fallback == FallbackPolicy.ERROR else "kCpu"
    return [
        f"static const torch_fl::KernelInfo {info}{{",
        f"    {string_literal(kernel.qualified_name)}, {string_literal(source(kernel))},",
        f"    torch_fl::dtype_set({{{dtype_list(kernel.dtypes.native)}}}),",
        f"    torch_fl::FallbackPolicy::{policy},",
        f"    torch_fl::dtype_set({{{dtype_list(kernel.dtypes.error_dtypes)}}})}};",
    ]


def _placement_checks(kernel: KernelPlan) -> list[str]:
    """Every tensor on this device (a CPU scalar where one may stand in), and the
    memory-overlap rules for what the kernel writes into."""
    lines = []
    private_format = kernel.private_format
    for tensor in kernel.tensor_inputs:
        name = tensor.name
        # A format-aware argument stays in its private format (when whole).
        kept = f", &{emit_names.private_format_reference(private_format.format)}" \
            if private_format and name in private_format.takes else ""
        if kernel.kind == KernelKind.INPLACE and name == "self":
            lines.append(f'  op.check_output(self, "self", /*is_operand=*/true{kept});')
        elif tensor.kind == TensorArgKind.LIST:
            lines.append(f'  op.check_input_list({name}, "{name}");')
        elif tensor.kind == TensorArgKind.OPTIONAL:
            lines.append(f'  op.check_optional_input({name}, "{name}");')
        else:
            scalar_ok = "true" if tensor.cpu_scalar_ok else "false"
            lines.append(f'  op.check_input({name}, "{name}", /*cpu_scalar_ok=*/{scalar_ok}{kept});')
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


def _preconditions(kernel: KernelPlan, refuse=fallback_statement, expected: bool = True) -> list[str]:
    """What decides native vs fallback before anything runs: the operands' dtypes,
    the guard, the layouts the chip can take, and the functional result's dtype.
    `refuse(kernel, reason)` is the statement where one fails; `expected=False`
    leaves the functional result's meta call out (a probe with no result dtype to check)."""
    decision = kernel.dtype_decision
    lines = []
    checks = [f'op.dtype_is_native({t.name}, "{t.name}")' for t in decision.operands]
    checks += [f'op.index_dtype_is_native({t.name}, "{t.name}")' for t in decision.index_like]
    checks += [f'op.result_dtype_is_native({name}, "{name}")' for name in decision.outputs]
    if checks:
        lines += _unless(kernel, " && ".join(checks), "kDtype", refuse=refuse)
    if kernel.guard is not None:
        when = cpp_text.comment(guards.to_text(kernel.guard))
        lines += [f"  if ({emit_guard.negated(kernel.guard)}) {{  // when: {when}",
                  f"    {refuse(kernel, 'kGuard')}", "  }"]
    for rule in kernel.layouts:
        if rule.kind == LayoutKind.CHANNELS_LAST:
            lines += [f"  if (!op.layout_possible({rule.argument}, torch_fl::MemoryLayout::kChannelsLast)) {{",
                      f"    {refuse(kernel, 'kLayout')}", "  }"]
    if kernel.kind == KernelKind.FUNCTIONAL and kernel.allocation.kind != AllocationKind.LIKE and expected:
        # The result's dtype (type promotion, a dtype= argument) is known from
        # meta before anything runs on the device: it must be native too.
        outputs = kernel.output_names
        if kernel.allocation.remembered:
            lines += _remembered_meta(kernel, _expected_call(kernel))
        else:
            lines.append(f"  const auto expected = {_expected_call(kernel)};")
        if decision.check_result:
            checks = [f'op.result_dtype_is_native({r}, "{name}")' for r, name in zip(_expected(outputs), outputs)
                      if name not in kernel.value_results]
            lines += _unless(kernel, " && ".join(checks), "kDtype", refuse=refuse)
    return lines


def _operands(kernel: KernelPlan) -> tuple[list[str], dict[str, str]]:
    """CPU scalars moved to the device, then each layout and cast rule applied;
    returns the lines and, per argument, the name of the tensor the SDK gets."""
    lines, moved = [], {}
    # CPU scalars (Python numbers wrapped as 0-dim CPU tensors) move to the device.
    # A Python number the SDK takes by value (kernel.scalar_form) moves only
    # when it is another CPU scalar; the launch step decides.
    by_value = kernel.scalar_form.argument if kernel.scalar_form else None
    for tensor in kernel.tensor_inputs:
        if (tensor.cpu_scalar_ok and tensor.kind == TensorArgKind.TENSOR and tensor.name in kernel.launch_arguments
                and tensor.name != by_value):
            # Borrowed when already on the device, owned when a number was moved.
            moved[tensor.name] = f"*{tensor.name}_on_device"
            lines.append(f"  const c10::MaybeOwned<at::Tensor> {tensor.name}_on_device = op.on_device({tensor.name});")
    for rule in kernel.layouts:
        current = moved.get(rule.argument, rule.argument)
        laid = f"{rule.argument}_laid"
        if rule.kind == LayoutKind.CONTIGUOUS:
            lines.append(f"  const at::Tensor {laid} = op.with_layout({current}, torch_fl::MemoryLayout::kContiguous);")
        elif rule.kind == LayoutKind.CHANNELS_LAST:
            lines.append(f"  const at::Tensor {laid} = op.with_layout({current}, torch_fl::MemoryLayout::kChannelsLast);")
        elif rule.kind == LayoutKind.ALIGNED:
            lines.append(f"  const at::Tensor {laid} = op.aligned({current}, {rule.alignment});")
        elif kernel.private_format and rule.argument in kernel.private_format.takes:
            # Its own physical tensor when already in the format, else converted.
            lines.append(f"  const at::Tensor {laid} = torch_fl::laid_out_in({current}, "
                         f"{emit_names.private_format_reference(kernel.private_format.format)});")
        elif rule.reuse:
            # Converted once and reused while the source is unchanged (same
            # storage, version and geometry) on this stream.
            lines.append(f"  const at::Tensor {laid} = op.converted({current}, {string_literal(rule.converter)}, "
                         f"&{rule.converter});")
        else:
            lines.append(f"  const at::Tensor {laid} = {rule.converter}({current});")
        moved[rule.argument] = laid
    for rule in kernel.casts:
        current = moved.get(rule.argument, rule.argument)
        cast = f"{rule.argument}_as_{rule.dtype}"
        lines.append(f"  const at::Tensor {cast} = op.cast({current}, c10::ScalarType::{DTYPES[rule.dtype]});")
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
                lines.append(f"  const at::Tensor {name} = {_allocate(kernel, name, like=like)};")
        elif len(outputs) == 1:
            lines.append(f"  const at::Tensor {outputs[0]} = {_allocate(kernel, outputs[0], expected='expected')};")
            if allocation.count:  # the SDK writes how many rows of it are filled
                lines.append(f"  const at::Tensor {allocation.count} = op.allocate_count();")
        else:
            for i, name in enumerate(outputs):
                if name in kernel.value_results:  # a number the output rule computed
                    lines.append(f"  const auto {name} = std::get<{i}>(expected);")
                    continue
                lines.append(f"  const at::Tensor {name} = "
                             f"{_allocate(kernel, name, expected=f'std::get<{i}>(expected)')};")
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
    elif allocation.kind == AllocationKind.META and allocation.remembered:
        lines += _remembered_meta(kernel, meta_call(kernel))
    elif allocation.kind == AllocationKind.META:
        # The in-place overload's own shape and dtype checks, on meta.
        lines.append("  at::Tensor self_meta = op.meta(self);")
        lines.append(f"  {meta_call(kernel)};")
    return lines


def _allocate(kernel: KernelPlan, name: str, expected: str = "", like: str = "") -> str:
    """One functional result: public, or in the kernel's private format (always
    for `makes`, when its first format-aware argument is for `keeps`)."""
    private_format = kernel.private_format
    in_format = emit_names.private_format_reference(private_format.format) if private_format else ""
    if private_format and name in private_format.makes:
        return f"op.allocate_in({expected or f'op.meta({like})'}, {in_format})"
    if private_format and name in private_format.keeps:
        source = private_format.takes[0]
        if like:
            return f"op.allocate_like_keeping({like}, {in_format})" if like == source else \
                f"op.allocate_keeping(op.meta({like}), {source}, {in_format})"
        return f"op.allocate_keeping({expected}, {source}, {in_format})"
    return f"op.allocate_like({like})" if like else f"op.allocate({expected})"


def _launch(kernel: KernelPlan, operands: dict[str, str]) -> list[str]:
    """The one SDK call (the Scalar overload's for a Python number), and the return."""
    outputs = kernel.output_names
    form = kernel.scalar_form
    if form is None:
        launch_args = ", ".join(["op"] + [operands.get(a, a) for a in kernel.launch_arguments])
        lines = [f"  {emit_names.launch(kernel.launch)}({launch_args});"]
    else:
        number = form.argument
        scalar_args = ", ".join(["op"] + [f"torch_fl::python_number({a})" if a == number else operands.get(a, a)
                                          for a in form.launch_arguments])
        tensor_args = ", ".join(["op"] + [f"*op.on_device({a})" if a == number else operands.get(a, a)
                                          for a in kernel.launch_arguments])
        lines = [f"  if (torch_fl::is_python_number({number})) {{  // by value, through {form.entry}'s call",
                 f"    {emit_names.launch(form.launch)}({scalar_args});",
                 "  } else {",
                 f"    {emit_names.launch(kernel.launch)}({tensor_args});",
                 "  }"]
    if kernel.kind == KernelKind.INPLACE:
        lines.append("  return self;")
    elif kernel.allocation.count:
        lines.append(f"  return op.trimmed_to_count({outputs[0]}, {kernel.allocation.count});")
    elif len(outputs) == 1:
        lines.append(f"  return {outputs[0]};")
    elif kernel.kind == KernelKind.FUNCTIONAL:
        lines.append(f"  return std::make_tuple({', '.join(outputs)});")
    else:
        lines.append(f"  return std::forward_as_tuple({', '.join(outputs)});")
    return lines


def registration(kernel: KernelPlan) -> str:
    """The kernel's line in its namespace's TORCH_LIBRARY_IMPL block."""
    return emit_names.registration(kernel.registration_name, emit_names.wrapper(kernel.aten))


def raising_registration(kernel: KernelPlan) -> str:
    """An entry without a call whose policy is `error`: the op always raises."""
    return emit_names.boxed_registration(kernel.registration_name, "torch_fl::unsupported_op_kernel")


def kernel_block(kernel: KernelPlan) -> CppBlock:
    """A wrapper reads as a careful engineer would write it by hand: checks, guard,
    preconditions, layouts, allocation, launch."""
    aten = kernel.aten
    info = emit_names.kernel_info(aten)
    lines = _kernel_info(kernel, info) + ["", f"{aten.dispatcher_decl(emit_names.wrapper(aten))} {{",
                                          f"  torch_fl::OpContext op({info});"]
    lines += _placement_checks(kernel)
    lines.append("  const torch_fl::DeviceGuard guard(op.device());")
    lines += _preconditions(kernel)
    operand_lines, operands = _operands(kernel)
    lines += operand_lines
    lines += _allocation(kernel)
    lines += _launch(kernel, operands)
    lines.append("}")
    comment = [f"{aten.name}: {source(kernel)}"]
    if kernel.derived_from:
        comment.append(f"{kernel.kind.value} variant derived from {kernel.derived_from}")
    return CppBlock(comments(*comment), tuple(lines))


def acceptance_block(kernel: KernelPlan, name: str) -> CppBlock:
    """`bool name(args)`: whether the kernel would run natively for these
    arguments (the wrapper's checks, answering false where it would fall back).
    For a caller that picks between ATen paths before calling the op."""
    aten = kernel.aten
    info = emit_names.kernel_info(aten)
    arguments = ", ".join(f"{cpp_type} {arg}" for cpp_type, arg in aten.dispatcher_arguments())
    lines = [f"bool {name}({arguments}) {{",
             f"  torch_fl::OpContext op({info}, torch_fl::OpContext::Purpose::kProbe);"]
    lines += [line for line in _placement_checks(kernel) if "overlap" not in line]
    # Without a result dtype to check, the expected results would serve only the allocation.
    lines += _preconditions(kernel, refuse=lambda _kernel, _reason: "return false;",
                            expected=kernel.dtype_decision.check_result)
    lines.append("  return true;")
    lines.append("}")
    return CppBlock(comments(f"{aten.name}: whether its kernel runs natively for these arguments "
                             f"(the checks of {emit_names.wrapper(aten)})", f"from {source(kernel)}"), tuple(lines))


def decomposition_block(kernel: KernelPlan) -> CppBlock:
    """AutogradPrivateUse1 kernel of a CompositeImplicitAutograd op with `autograd: decomposition`."""
    aten = kernel.aten
    names = [n for _, n in aten.dispatcher_arguments()]
    tensors = [t.name for t in kernel.tensor_inputs]
    lines = [
        f"{aten.dispatcher_decl(emit_names.autograd(aten))} {{",
        f"  if (torch_fl::grad_required({', '.join(tensors)})) {{",
        f"    return at::native::{aten.decomposition}({', '.join(names)});",
        "  }",
        "  at::AutoDispatchBelowADInplaceOrView below_autograd;",
        f"  return {emit_names.wrapper(aten)}({', '.join(names)});",
        "}",
    ]
    return CppBlock(comments(f"{aten.name}: the decomposition (and its autograd) when a gradient is needed, "
                              "the native kernel otherwise", f"from {source(kernel)}"), tuple(lines))
