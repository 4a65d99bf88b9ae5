"""Pairs each kernel that may receive a Python number with the spec entry that
takes that number as a Scalar (see plan_model.ScalarForm).

`x * 2.0` reaches the dispatcher as mul.Tensor with 2.0 wrapped in a 0-dim CPU
tensor; without a pairing the kernel copies that tensor to the device before
the SDK call. The pairing is made only where the result cannot differ: the
Scalar overload has the same name and arguments with that one argument a
Scalar, ATen defines it as the Tensor overload with the number wrapped, and its
spec entry accepts every dtype the Tensor kernel runs natively, with no guard
or layout rule of its own.
"""
from __future__ import annotations

import dataclasses
from typing import Optional

from torchgen.model import SchemaKind

from .aten import AtenOp
from .plan_model import KernelPlan, LaunchPlan, ScalarForm, TensorArgKind
from .plan_ops import return_names


# Families whose Scalar overload is not the Tensor one with the number wrapped:
# pow.Tensor_Scalar has kernels of its own (x ** 2 as x * x, its own rule for
# integers to negative powers), so a number there keeps the tensor path.
OWN_SCALAR_SEMANTICS = frozenset({"pow"})


def _signature(op: AtenOp, scalar_argument: Optional[str] = None) -> tuple:
    """The overload's family, kind and arguments, with `scalar_argument` typed as a Scalar."""
    arguments = tuple((a.name, "Scalar" if a.name == scalar_argument else str(a.type))
                      for a in op.schema.arguments.flat_non_out)
    return op.schema.name.name.base, op.kind, len(op.schema.returns), arguments


def _entry_outputs(op: AtenOp) -> tuple[str, ...]:
    """The names a spec entry's call uses for its outputs."""
    if op.kind == SchemaKind.out:
        return tuple(a.name for a in op.out_arguments)
    return return_names(op)


def _twin_arguments(kernel: KernelPlan, twin: LaunchPlan) -> Optional[tuple[str, ...]]:
    """This kernel's value for each parameter of the twin's launch (the number's
    own name where the twin takes it), or None when one of the twin's outputs has
    no counterpart the kernel passes."""
    assert kernel.launch is not None
    own = dict(zip((p.name for p in kernel.launch.parameters), kernel.launch_arguments))
    own_outputs, twin_outputs = _entry_outputs(kernel.launch.entry), _entry_outputs(twin.entry)
    values = []
    for parameter in twin.parameters:
        if not parameter.is_output:
            values.append(parameter.name)  # the same argument of the same name: the signatures match
            continue
        value = own.get(own_outputs[twin_outputs.index(parameter.name)])
        if value is None:
            return None
        values.append(value)
    return tuple(values)


def _accepts_everything_of(twin: KernelPlan, kernel: KernelPlan) -> bool:
    # A known vendor limit of the Scalar entry would become the Tensor kernel's unannounced failure.
    return (twin.guard is None and not twin.layouts and not twin.casts and twin.launch is not None
            and twin.known_failure is None
            and set(kernel.dtypes.native) <= set(twin.dtypes.native)
            and set(twin.dtypes.error_dtypes) <= set(kernel.dtypes.error_dtypes))


def pair_scalar_forms(kernels: tuple[KernelPlan, ...]) -> tuple[KernelPlan, ...]:
    # The spec entries' own kernels, by signature: the candidates a number may go to.
    entries = {_signature(k.aten): k for k in kernels if k.derived_from is None and k.launch is not None}
    paired = []
    for kernel in kernels:
        form = None
        if (kernel.launch is not None and kernel.namespace == "aten"
                and kernel.launch.entry.schema.name.name.base not in OWN_SCALAR_SEMANTICS):
            shaped = {rule.argument for rule in kernel.layouts} | {rule.argument for rule in kernel.casts}
            for tensor in kernel.tensor_inputs:
                if not tensor.cpu_scalar_ok or tensor.kind != TensorArgKind.TENSOR or tensor.name in shaped:
                    continue
                if tensor.name not in kernel.launch_arguments:
                    continue
                twin = entries.get(_signature(kernel.launch.entry, tensor.name))
                if twin is None or twin is kernel or not _accepts_everything_of(twin, kernel):
                    continue
                arguments = _twin_arguments(kernel, twin.launch)
                if arguments is not None:
                    form = ScalarForm(argument=tensor.name, launch=twin.launch, launch_arguments=arguments,
                                      provenance=twin.provenance, entry=twin.aten.name)
                    break
        paired.append(dataclasses.replace(kernel, scalar_form=form) if form else kernel)
    return tuple(paired)
