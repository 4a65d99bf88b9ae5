"""One op entry (`ops:`, `namespaces:`, and the forward and backward of a
`custom:` op): its call, variants, dtypes, fallback policy, output rule, guard,
version gate and autograd policy. Per-argument rules are spec_argument_rules.py's,
the `format:` rule spec_formats.py's.

Structure only: whether the overload and the names it uses exist in ATen is
checked by the planner, which has the schemas.
"""
from __future__ import annotations

import re
from typing import Optional

from . import spec_formats
from .errors import Location, did_you_mean
from .source import Mapping, Node, Scalar, Sequence
from .spec_argument_rules import parse_casts, parse_layouts
from .spec_call import parse_call
from .spec_model import DTYPES, FallbackPolicy, Guard, OpSpec, OutputRule, Variant, VersionGate
from .spec_reader import FUNCTION, IDENTIFIER, Reader

_OP_KEYS = ("call", "variants", "dtypes", "fallback", "output", "known_failure", "dtype_from", "when", "layout",
            "torch", "autograd", "cast", "format")
_AUTOGRAD_POLICIES = ("decomposition",)
_VERSION = re.compile(r"^\d{1,9}\.\d{1,9}(\.\d{1,9})?$")  # bounded: int() refuses over 4,300 digits


def parse_op(reader: Reader, name: str, where: Location, node: Node,
             default_dtypes: tuple[str, ...], default_fallback: FallbackPolicy) -> Optional[OpSpec]:
    if not isinstance(node, Mapping):
        reader.errors.add(where, f"op '{name}' must map to a mapping with a 'call' or a 'fallback'")
        return None
    reader.check_keys(node, _OP_KEYS, f"op '{name}'")
    call = parse_call(reader, node.get("call"))
    variants, narrowed = _parse_variants(reader, name, node.get("variants"))
    dtypes = reader.dtypes(node.get("dtypes"), f"{name}.dtypes")
    op_dtypes = dtypes if dtypes is not None else default_dtypes
    for variant, (variant_dtypes, loc) in narrowed.items():
        wider = [d for d in variant_dtypes if d not in op_dtypes]
        if wider:
            reader.errors.add(loc, f"'{name}.variants.{variant.value}' lists {', '.join(wider)}, which "
                              f"'{name}' does not declare", "a variant may narrow its overload's dtypes, not widen them")
    fallback, error_dtypes = _parse_fallback(reader, node.get("fallback"), default_fallback)
    if call is None and node.get("fallback") is None and node.get("call") is None:
        reader.errors.add(where, f"op '{name}' has neither 'call' nor 'fallback'",
                          "add `call: sdkFunction(...)` or `fallback: cpu`")
    output = _parse_output(reader, name, where, node.get("output"))
    known_failure = reader.string(node.get("known_failure"), f"{name}.known_failure", where, required=False)
    dtype_from = reader.string(node.get("dtype_from"), f"{name}.dtype_from", where, required=False)
    guard_text = reader.string(node.get("when"), f"{name}.when", where, required=False)
    guard = Guard(guard_text, node.get("when").location) if guard_text else None
    layouts = parse_layouts(reader, name, node.get("layout"))
    casts = parse_casts(reader, name, node.get("cast"))
    gate = _parse_version_gate(reader, name, node.get("torch"))
    autograd = reader.string(node.get("autograd"), f"{name}.autograd", where, required=False)
    if autograd is not None and autograd not in _AUTOGRAD_POLICIES:
        reader.errors.add(node.get("autograd").location, f"unknown autograd policy '{autograd}' for '{name}'",
                          did_you_mean(autograd, _AUTOGRAD_POLICIES, "expected `decomposition`"))
    format_rule = spec_formats.parse_rule(reader, name, node.get("format"))
    return OpSpec(name=name, location=where, call=call, variants=tuple(variants), dtypes=op_dtypes, fallback=fallback,
                  output=output, known_failure=known_failure, dtype_from=dtype_from, guard=guard, layouts=layouts,
                  error_dtypes=error_dtypes, torch_versions=gate, autograd=autograd, casts=casts,
                  variant_dtypes=tuple((variant, variant_dtypes) for variant, (variant_dtypes, _) in narrowed.items()),
                  format_rule=format_rule)


def _parse_fallback(reader: Reader, node: Optional[Node], default: FallbackPolicy
                    ) -> tuple[FallbackPolicy, tuple[str, ...]]:
    """`fallback: cpu`, or per dtype: `{default: cpu, float64: error}`; returns the
    policy and the dtypes that raise whatever it is."""
    if not isinstance(node, Mapping):
        return reader.enum(node, FallbackPolicy, "fallback policy", default), ()
    fallback = reader.enum(node.get("default"), FallbackPolicy, "fallback policy", default)
    error_dtypes = []
    for key in node.keys():
        if key == "default":
            continue
        if key not in DTYPES:
            reader.errors.add(node.key_location(key), f"unknown dtype '{key}' in fallback policy",
                              did_you_mean(key, DTYPES, "expected `default` or a dtype name"))
            continue
        if reader.enum(node.get(key), FallbackPolicy, "fallback policy", FallbackPolicy.CPU) == FallbackPolicy.ERROR:
            error_dtypes.append(key)
    return fallback, tuple(error_dtypes)


def _parse_output(reader: Reader, name: str, where: Location, node: Optional[Node]) -> OutputRule:
    """`output:` meta (the default), `{like: x}`, `{rule: fn}` or `{rule: fn, count: c}`."""
    if node is None or (isinstance(node, Scalar) and node.value == "meta"):
        return OutputRule(None, where)
    if isinstance(node, Mapping) and node.keys() == ["like"]:
        like_node = node.get("like")
        if isinstance(like_node, Sequence):
            like = tuple(text for text, _ in reader.string_list(like_node, "output.like"))
        else:
            like = (reader.string(like_node, "output.like", node.location) or "",)
        return OutputRule(like, node.location)
    if isinstance(node, Mapping) and sorted(node.keys()) in (["rule"], ["count", "rule"]):
        rule = reader.code(node.get("rule"), f"{name}.output.rule", node.location, FUNCTION)
        count = reader.code(node.get("count"), f"{name}.output.count", node.location, IDENTIFIER, required=False)
        return OutputRule(None, node.location, rule, count)
    reader.errors.add(node.location, f"invalid output rule for '{name}'",
                      "expected `meta`, `{like: <tensor argument>}`, `{rule: <C++ function>}` or "
                      "`{rule: <C++ function>, count: <call argument>}`")
    return OutputRule(None, where)


def _parse_variants(reader: Reader, name: str, node: Optional[Node]
                    ) -> tuple[list[Variant], dict[Variant, tuple[tuple[str, ...], Location]]]:
    """`variants: [out, inplace]`, where an entry may narrow its dtypes: `{inplace: [float32]}`."""
    variants: list[Variant] = []
    narrowed: dict[Variant, tuple[tuple[str, ...], Location]] = {}
    if node is None:
        return variants, narrowed
    if not isinstance(node, Sequence):
        reader.errors.add(node.location, f"'{name}.variants' must be a list")
        return variants, narrowed
    choices = [v.value for v in Variant]
    for item in node.items:
        if isinstance(item, Scalar) and isinstance(item.value, str):
            text, dtypes_node = item.value, None
        elif isinstance(item, Mapping) and len(item.keys()) == 1:
            text = item.keys()[0]
            dtypes_node = item.get(text)
        else:
            reader.errors.add(item.location, f"each entry of '{name}.variants' must be a variant name, or a variant "
                              "with its dtypes", "e.g. `variants: [out, {inplace: [float32, float16]}]`")
            continue
        try:
            variant = Variant(text)
        except ValueError:
            reader.errors.add(item.location, f"unknown variant '{text}' for op '{name}'",
                              did_you_mean(text, choices, "expected 'out' or 'inplace'"))
            continue
        if variant in variants:
            reader.errors.add(item.location, f"variant '{text}' of '{name}' is listed twice", "keep one")
            continue
        variants.append(variant)
        if dtypes_node is not None:
            narrowed[variant] = (reader.dtypes(dtypes_node, f"{name}.variants.{text}") or (), item.location)
    return variants, narrowed


def _version(reader: Reader, node: Optional[Node], what: str) -> Optional[tuple[int, ...]]:
    if node is None:
        return None
    if isinstance(node, Scalar) and isinstance(node.value, float):
        reader.errors.add(node.location, f"torch version for {what} must be quoted",
                          f"YAML reads {node.value} as a number: write \"{node.value}\"")
        return None
    text = str(node.value) if isinstance(node, Scalar) else ""
    if not _VERSION.match(text):
        reader.errors.add(node.location, f"invalid torch version '{text}' for {what}", "expected e.g. \"2.13\"")
        return None
    return tuple(int(p) for p in text.split("."))


def _parse_version_gate(reader: Reader, name: str, node: Optional[Node]) -> Optional[VersionGate]:
    if node is None:
        return None
    if not isinstance(node, Mapping):
        reader.errors.add(node.location, f"'{name}.torch' must be a mapping", 'e.g. `torch: {min: "2.12"}`')
        return None
    reader.check_keys(node, ("min", "max"), f"'{name}.torch'")
    minimum = _version(reader, node.get("min"), f"{name}.torch.min")
    maximum = _version(reader, node.get("max"), f"{name}.torch.max")
    if minimum and maximum and maximum < minimum:
        reader.errors.add(node.location, f"version gate of '{name}' has max {'.'.join(map(str, maximum))} < min "
                          f"{'.'.join(map(str, minimum))}", "swap them")
    return VersionGate(minimum, maximum, node.location)
