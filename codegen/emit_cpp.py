"""Backend plan → the C++ of generated/<vendor>/: kernels sharded by spec entry,
registrations, autocast. Pure functions: plans in, strings out.

Every line of C++ is decided in the emit_*.py modules; the Jinja templates only
lay the prepared blocks out in a file. Names from the spec were checked against
their grammar when the spec was parsed (spec_reader.Grammar); free text from it
(file names, call lines, schemas) is emitted only through cpp_text.comment and
string_literal.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass

from . import cpp_text, emit_attention, emit_names
from .emit_blocks import CppBlock, source
from .emit_kernel import decomposition_block, kernel_block, raising_registration, registration
from .emit_launch import launch_block
from .plan_model import AllocationKind, BackendPlan, OpOrigin
from .spec_model import FallbackPolicy, PrivateFormatSpec

# Shards bound the rebuild after a spec edit: the kernels of one op family
# (mul.Tensor, mul.Scalar and their variants) all land in one shard, so a kernel
# can call the launch of its Scalar overload (plan_model.ScalarForm).
SHARD_COUNT = 8

# ATen ops that exist only as hooks for out-of-tree backends: their
# CompositeExplicitAutograd kernel, which PrivateUse1 inherits, throws "not
# implemented". That kernel wins over the runtime's boxed fallback, so a spec
# without the op would leave conv2d unusable on the device. Where the spec has no
# entry for one, its registration points at the CPU fallback instead, which runs
# the core op it stands for (runtime/src/fallback.cpp, fall_back_to_core_op).
HOOK_OPS = ("convolution_overrideable", "convolution_backward_overrideable")


@dataclass(frozen=True)
class Shard:
    index: int
    blocks: tuple[CppBlock, ...]
    registrations: tuple[str, ...]
    autograd_registrations: tuple[str, ...] = ()
    native_headers: tuple[str, ...] = ()  # ATen/ops/<op>_native.h of decompositions called
    format_definitions: tuple[CppBlock, ...] = ()  # the private formats its kernels use


def shard_of(entry_name: str) -> int:
    family = entry_name.split(".")[0]
    return zlib.crc32(family.encode()) % SHARD_COUNT


def shards(plan: BackendPlan) -> list[Shard]:
    blocks: dict[int, list[CppBlock]] = {i: [] for i in range(SHARD_COUNT)}
    regs: dict[int, list[str]] = {i: [] for i in range(SHARD_COUNT)}
    autograd_regs: dict[int, list[str]] = {i: [] for i in range(SHARD_COUNT)}
    headers: dict[int, list[str]] = {i: [] for i in range(SHARD_COUNT)}
    formats: dict[int, dict[str, CppBlock]] = {i: {} for i in range(SHARD_COUNT)}
    emitted_launches: set[str] = set()
    for kernel in plan.kernels:
        if kernel.origin != OpOrigin.ATEN:  # other namespaces' kernels have their own file (emit_library)
            continue
        index = shard_of(kernel.entry)
        if kernel.launch is None:
            # An entry without a call whose policy is `error`: the op always raises.
            if kernel.dtypes.fallback == FallbackPolicy.ERROR:
                regs[index].append(raising_registration(kernel))
            continue
        launches = [(kernel.launch, source(kernel))]
        if kernel.scalar_form is not None:  # defined before the kernel that calls it
            # The pairing keeps to one family (plan_scalar_forms), so to one shard.
            assert shard_of(kernel.scalar_form.entry) == index, (kernel.aten.name, kernel.scalar_form.entry)
            launches.insert(0, (kernel.scalar_form.launch, str(kernel.scalar_form.provenance)))
        for launch, where in launches:
            if emit_names.launch(launch) not in emitted_launches:
                emitted_launches.add(emit_names.launch(launch))
                blocks[index].append(launch_block(plan, launch, where))
        if kernel.private_format is not None:
            private_format = kernel.private_format.format
            formats[index].setdefault(private_format.name, format_definition(private_format))
        blocks[index].append(kernel_block(kernel))
        regs[index].append(registration(kernel))
        if kernel.allocation.kind == AllocationKind.META and kernel.aten.direct_meta:
            headers[index].append(f"ATen/ops/{kernel.aten.name.split('.')[0].rstrip('_')}_meta_dispatch.h")
        if kernel.aten.composite_implicit:
            blocks[index].append(decomposition_block(kernel))
            autograd_regs[index].append(emit_names.registration(kernel.registration_name,
                                                                emit_names.autograd(kernel.aten)))
            headers[index].append(f"ATen/ops/{kernel.aten.name.split('.')[0]}_native.h")
    route = emit_attention.route_blocks(plan)
    if route is not None:  # after the forward's kernel, whose checks it shares
        entry, route_blocks = route
        blocks[shard_of(entry)].extend(route_blocks)
        headers[shard_of(entry)].extend(emit_attention.HEADERS)
    registered = {kernel.registration_name for kernel in plan.kernels if kernel.origin == OpOrigin.ATEN}
    for hook in HOOK_OPS:
        if hook not in registered:
            regs[shard_of(hook)].append("// " + cpp_text.comment(f"{hook}: not in the spec, and ATen's kernel for this hook "
                                                         "throws; the CPU fallback runs the core op"))
            regs[shard_of(hook)].append(emit_names.boxed_registration(hook, "torch_fl::cpu_fallback"))
    return [Shard(i, tuple(blocks[i]), tuple(regs[i]), tuple(autograd_regs[i]),
                  tuple(dict.fromkeys(headers[i])),  # each header once, in first-use order
                  tuple(formats[i].values()))
            for i in range(SHARD_COUNT)]


def format_definition(private_format: PrivateFormatSpec) -> CppBlock:
    """A private format as the runtime knows it (torch_fl/private_format.h). An
    inline variable: every shard that uses it defines it, and the program holds
    one object, so kernels of different shards agree on what "in NC1HWC0" means.
    Each shard registers it by name too (the runtime keeps one entry), for what
    names a format outside a kernel: torch.load's format tag."""
    where = f"{private_format.location.path}:{private_format.location.line}"
    name = emit_names.private_format(private_format)
    lines = (f"inline const torch_fl::PrivateFormat {name}{{",
             f"    {cpp_text.string_literal(private_format.name)}, {cpp_text.string_literal(where)}, "
             f"{private_format.rank},",
             f"    &{private_format.to_private}, &{private_format.to_public}, &{private_format.physical_sizes}}};",
             f"static const torch_fl::PrivateFormatRegistration register_{private_format.name}{{{name}}};")
    return CppBlock((cpp_text.comment(f"the {private_format.name} format: {where}"),), lines)


def autocast_kernels(plan: BackendPlan) -> list[str]:
    """One KERNEL_PRIVATEUSEONE line per autocast entry, with its source."""
    lines = []
    for entry in plan.autocast:
        name, _, overload = entry.op.partition(".")
        args = f"{name}, {overload}, {entry.policy.value}" if overload else f"{name}, {entry.policy.value}"
        source = cpp_text.comment(f"{entry.location.path}:{entry.location.line}")
        lines.append(f"KERNEL_PRIVATEUSEONE({args})  // {source}")
    return lines
