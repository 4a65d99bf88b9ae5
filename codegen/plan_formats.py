"""An op's `format:` rule checked against its schema and the spec's `formats:`,
and resolved for one kernel (functional, in-place; out= kernels stay public)."""
from __future__ import annotations

from typing import Optional

from .errors import ErrorSink, did_you_mean
from .plan_model import KernelFormat, KernelKind
from .spec_model import LayoutKind, OpSpec, PrivateFormatSpec


def check_rule(op_spec: OpSpec, formats: tuple[PrivateFormatSpec, ...], plain_tensors: list[str],
               entry_outputs: tuple[str, ...], entry_kind: Optional[KernelKind], errors: ErrorSink) -> Optional[PrivateFormatSpec]:
    """The rule's format when every name in it is right; errors otherwise."""
    rule = op_spec.format_rule
    if rule is None:
        return None
    declared = {f.name: f for f in formats}
    private_format = declared.get(rule.format)
    ok = True
    if private_format is None:
        errors.add(rule.location, f"'{op_spec.name}.format' names format '{rule.format}', which the spec does not "
                   "declare", did_you_mean(rule.format, list(declared),
                                           "declare it under `formats:` (rank, to_private, to_public, physical_sizes)"))
        ok = False
    if entry_kind is not None and entry_kind != KernelKind.FUNCTIONAL:
        errors.add(rule.location, f"'{op_spec.name}.format' is on an {entry_kind.value} overload: only a functional "
                   "entry's results are made in a format (its in-place variant keeps self's)",
                   "put `format:` on the functional entry, with `variants: [inplace]`")
        ok = False
    if rule.keeps and len(rule.takes) != 1:
        # Results keep one argument's format; with two, one might be private and
        # the other not, and the SDK would get mixed formats.
        errors.add(rule.location, f"'{op_spec.name}.format.keeps' follows one argument, but 'takes' names "
                   f"{len(rule.takes)}", "take only the argument whose format the results keep "
                   "(the others are then public)")
        ok = False
    for name in rule.takes:
        if name not in plain_tensors:
            errors.add(rule.location, f"'{op_spec.name}.format.takes' names '{name}', which is not a (non-optional) "
                       f"Tensor argument of '{op_spec.name}'", did_you_mean(name, plain_tensors))
            ok = False
    for key, names in (("makes", rule.makes), ("keeps", rule.keeps)):
        for name in names:
            if name not in entry_outputs:
                errors.add(rule.location, f"'{op_spec.name}.format.{key}' names '{name}', which is not a result "
                           f"of '{op_spec.name}'", did_you_mean(name, list(entry_outputs),
                                                                f"its results: {', '.join(entry_outputs)}"))
                ok = False
    for layout in op_spec.layouts:
        if layout.argument not in rule.takes or private_format is None:
            continue
        # A format-aware argument that arrives public is converted into the format,
        # by the format's own converter (so it is counted, and reused when whole).
        if layout.kind != LayoutKind.CONVERT or layout.converter != private_format.to_private:
            errors.add(layout.location, f"'{op_spec.name}.layout.{layout.argument}' must convert with the "
                       f"{private_format.name} format's to_private ({private_format.to_private}): the argument is in "
                       "the format's `takes`", f"write `{layout.argument}: {{convert: {private_format.to_private}}}`")
            ok = False
        elif layout.reuse:
            errors.add(layout.location, f"'{op_spec.name}.layout.{layout.argument}.reuse' cannot apply to an "
                       "argument in the format's `takes`", "drop `reuse: true` or the argument from `takes`")
            ok = False
    return private_format if ok else None


def for_kernel(op_spec: OpSpec, private_format: Optional[PrivateFormatSpec], kind: KernelKind,
               entry_outputs: tuple[str, ...], outputs: tuple[str, ...]) -> Optional[KernelFormat]:
    """The rule as this kernel's names: a functional kernel writes new results in
    the format; an in-place one keeps self's; an out= one is public throughout."""
    rule = op_spec.format_rule
    if rule is None or private_format is None or kind == KernelKind.OUT:
        return None
    if kind == KernelKind.INPLACE:
        return KernelFormat(private_format, ("self",), (), ()) if "self" in rule.takes else None
    renamed = dict(zip(entry_outputs, outputs))
    return KernelFormat(private_format, rule.takes, tuple(renamed[n] for n in rule.makes if n in renamed),
                        tuple(renamed[n] for n in rule.keeps if n in renamed))
