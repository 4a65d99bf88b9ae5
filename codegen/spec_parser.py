"""The spec parser: located YAML nodes (source.py) → the typed model (spec_model.py).

This stage checks structure only: known keys, value types, dtype names, the
shape of `call:` lines, and the grammar of every string that becomes C++.
Whether an op or an argument exists in ATen is checked by the planner, which
has the ATen schemas.
"""
from __future__ import annotations

import dataclasses
import enum
import re
from dataclasses import dataclass
from typing import Callable, Optional

from . import cpp_text, spec_formats
from .errors import ErrorSink, Location, did_you_mean
from .source import Mapping, Node, Scalar, Sequence
from .spec_model import (AutocastEntry, AutocastPolicy, BackwardSpec, BUILTIN_COLLECTIVE_BACKENDS, CallArgument, CallSpec, CastRule, CollectiveTransport, Converter, CustomOpSpec, DistributedSpec, DTYPES, GLOO_DTYPES, FallbackPolicy, Guard, KNOWN_LIBRARIES, LayoutKind, LayoutRule, OpSpec, OutputRule, PassBy, SdkSpec, StatusConvention, TwoPhaseConvention, Variant, VendorSpec, VersionGate)


# ----------------------------------------------------------------------------
# parsing helpers


@dataclass(frozen=True)
class Grammar:
    """What a spec string must be before the generator emits it as C++ (or
    includes it as a header): spec text is never pasted into C++ unchecked."""
    accepts: Callable[[str], bool]
    expected: str
    example: str


# Relative, below the repository: no component starts with '.', so none is '..'.
_HEADER_PATH = re.compile(r"(?:[A-Za-z0-9_][A-Za-z0-9_.+-]*/)*[A-Za-z0-9_][A-Za-z0-9_.+-]*\.(?:h|hh|hpp|hxx)")
_PLACEHOLDER = "{function}"


def _is_header_path(text: str) -> bool:
    return bool(_HEADER_PATH.fullmatch(text))


def _is_query_template(text: str) -> bool:
    """`{function}GetWorkspaceSize`: a function name once the call's function is put in."""
    return text.count(_PLACEHOLDER) == 1 and cpp_text.is_identifier(text.replace(_PLACEHOLDER, "f"))


FUNCTION = Grammar(cpp_text.is_qualified_name, "a C++ function name", "mlu_glue::describe")
TYPE = Grammar(cpp_text.is_type_name, "a C++ type name", "mluRet_t")
CONSTANT = Grammar(cpp_text.is_constant, "a C++ constant (a name or an integer)", "MLU_RET_SUCCESS")
IDENTIFIER = Grammar(cpp_text.is_identifier, "an identifier that is not a C++ keyword", "rms_norm")
HEADER = Grammar(_is_header_path, "a header path inside the repository", "vendors/mlu/sdk/mlu_ops.h")
QUERY = Grammar(_is_query_template, "a function name containing {function} once", '"{function}GetWorkspaceSize"')
# A power of two up to 1 GiB: what an allocator can align to.
MAX_ALIGNMENT = 1 << 30


class _Reader:
    def __init__(self, errors: ErrorSink):
        self.errors = errors

    def mapping(self, node: Optional[Node], what: str, where: Location) -> Optional[Mapping]:
        if node is None:
            self.errors.add(where, f"missing '{what}'", "add it: see specs/README.md")
            return None
        if not isinstance(node, Mapping):
            self.errors.add(node.location, f"'{what}' must be a mapping")
            return None
        return node

    def check_keys(self, node: Mapping, allowed: tuple[str, ...], what: str) -> None:
        for key in node.keys():
            if key not in allowed:
                self.errors.add(node.key_location(key), f"unknown key '{key}' in {what}",
                                did_you_mean(key, allowed, f"expected one of: {', '.join(allowed)}"))

    def string(self, node: Optional[Node], what: str, where: Location, required: bool = True) -> Optional[str]:
        if node is None:
            if required:
                self.errors.add(where, f"missing '{what}'", f"add `{what.rsplit('.', 1)[-1]}: ...`")
            return None
        if not isinstance(node, Scalar) or not isinstance(node.value, str) or not node.value:
            self.errors.add(node.location, f"'{what}' must be a non-empty string")
            return None
        return node.value

    def follows(self, text: str, grammar: Grammar, what: str, where: Location) -> bool:
        if grammar.accepts(text):
            return True
        self.errors.add(where, f"'{what}' must be {grammar.expected}, got '{text}'", f"e.g. {grammar.example}")
        return False

    def code(self, node: Optional[Node], what: str, where: Location, grammar: Grammar,
             required: bool = True) -> Optional[str]:
        """A string that becomes C++: None unless it follows its grammar."""
        text = self.string(node, what, where, required)
        if text is None or not self.follows(text, grammar, what, node.location):
            return None
        return text

    def code_list(self, node: Optional[Node], what: str, grammar: Grammar) -> tuple[str, ...]:
        return tuple(text for text, loc in self.string_list(node, what) if self.follows(text, grammar, what, loc))

    def string_list(self, node: Optional[Node], what: str) -> tuple[tuple[str, Location], ...]:
        if node is None:
            return ()
        if not isinstance(node, Sequence):
            self.errors.add(node.location, f"'{what}' must be a list")
            return ()
        out = []
        for item in node.items:
            if isinstance(item, Scalar) and isinstance(item.value, str):
                out.append((item.value, item.location))
            else:
                self.errors.add(item.location, f"each entry of '{what}' must be a string")
        return tuple(out)

    def enum(self, node: Optional[Node], enum_type: type[enum.Enum], what: str, default: enum.Enum) -> enum.Enum:
        if node is None:
            return default
        choices = [e.value for e in enum_type]
        if isinstance(node, Scalar) and node.value in choices:
            return enum_type(node.value)
        text = node.value if isinstance(node, Scalar) else "<non-scalar>"
        self.errors.add(node.location, f"invalid {what} '{text}'",
                        did_you_mean(str(text), choices, f"expected one of: {', '.join(choices)}"))
        return default

    def dtypes(self, node: Optional[Node], what: str) -> Optional[tuple[str, ...]]:
        if node is None:
            return None
        result = []
        for name, loc in self.string_list(node, what):
            if name not in DTYPES:
                self.errors.add(loc, f"unknown dtype '{name}'",
                                did_you_mean(name, DTYPES, f"expected one of: {', '.join(DTYPES)}"))
            else:
                result.append(name)
        return tuple(result)


_CALL = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_:]*)\s*\((.*)\)\s*$")
_ARGUMENT = re.compile(r"^(?:([A-Za-z_][A-Za-z0-9_:]*)\((\s*[A-Za-z_][A-Za-z0-9_]*\s*)?\)|([A-Za-z_][A-Za-z0-9_]*))$")


def _parse_call(reader: _Reader, node: Optional[Node]) -> Optional[CallSpec]:
    if node is None:
        return None
    text = reader.string(node, "call", node.location)
    if text is None:
        return None
    match = _CALL.match(text)
    if not match or not cpp_text.is_qualified_name(match.group(1)):
        reader.errors.add(node.location, f"malformed call '{text}'",
                          "expected `sdkFunction(arg, arg, ...)` naming ATen arguments, `stream` and outputs")
        return None
    texts = tuple(a.strip() for a in match.group(2).split(",")) if match.group(2).strip() else ()
    args = []
    for text in texts:
        arg = _ARGUMENT.match(text)
        if not arg or (arg.group(1) and not cpp_text.is_qualified_name(arg.group(1))):
            reader.errors.add(node.location, f"call argument '{text}' is not a name",
                              "call arguments are `name`, `converter(name)` or `function()`, where a name is an "
                              "ATen argument, an output or `stream`")
            continue
        if arg.group(3):
            args.append(CallArgument(arg.group(3), None))
        else:
            inner = (arg.group(2) or "").strip()
            args.append(CallArgument(inner or None, arg.group(1)))
    return CallSpec(match.group(1), tuple(args), node.location)


_SDK_KEYS = ("headers", "glue", "status", "stream", "converters", "workspace_query", "two_phase")
_TWO_PHASE_KEYS = ("query", "executor")
_STATUS_KEYS = ("type", "ok", "message", "detail")
_CONVERTER_KEYS = ("fn", "pass")
_OP_KEYS = ("call", "variants", "dtypes", "fallback", "output", "known_failure", "dtype_from", "when", "layout",
            "torch", "autograd", "cast", "format")
_AUTOGRAD_POLICIES = ("decomposition",)
_VERSION = re.compile(r"^\d{1,9}\.\d{1,9}(\.\d{1,9})?$")  # bounded: int() refuses over 4,300 digits
_TOP_KEYS = ("vendor", "device", "sdk", "defaults", "ops", "custom", "namespaces", "autocast", "include",
             "distributed", "formats")
_DISTRIBUTED_KEYS = ("backend", "transport", "dtypes")
_COLLECTIVE_BACKEND_NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")
_CUSTOM_KEYS = ("schema", "call", "dtypes", "output", "backward", "reference")
_BACKWARD_KEYS = ("grads", "schema", "call", "output")
_DEFAULT_KEYS = ("dtypes", "fallback")


def _parse_sdk(reader: _Reader, node: Mapping) -> SdkSpec:
    reader.check_keys(node, _SDK_KEYS, "sdk")
    headers = reader.code_list(node.get("headers"), "sdk.headers", HEADER)
    if not headers:
        reader.errors.add(node.location, "sdk.headers must list at least one header")
    glue = reader.code(node.get("glue"), "sdk.glue", node.location, HEADER) or ""
    stream = reader.code(node.get("stream"), "sdk.stream", node.location, FUNCTION) or ""
    status_node = reader.mapping(node.get("status"), "sdk.status", node.location)
    status = StatusConvention("", "", "")
    if status_node:
        reader.check_keys(status_node, _STATUS_KEYS, "sdk.status")
        status = StatusConvention(*(reader.code(status_node.get(k), f"sdk.status.{k}", status_node.location,
                                                grammar, required=k != "detail") or ""
                                    for k, grammar in zip(_STATUS_KEYS, (TYPE, CONSTANT, FUNCTION, FUNCTION))))
    converters: dict[str, Converter] = {}
    conv_node = reader.mapping(node.get("converters"), "sdk.converters", node.location)
    if conv_node:
        for aten_type in conv_node.keys():
            value = conv_node.get(aten_type)
            where = conv_node.key_location(aten_type)
            if isinstance(value, Scalar):
                fn = reader.code(value, f"sdk.converters.{aten_type}", where, FUNCTION)
                pass_by = PassBy.VALUE
            elif isinstance(value, Mapping):
                reader.check_keys(value, _CONVERTER_KEYS, f"converter '{aten_type}'")
                fn = reader.code(value.get("fn"), f"sdk.converters.{aten_type}.fn", where, FUNCTION)
                pass_by = reader.enum(value.get("pass"), PassBy, "pass", PassBy.VALUE)
            else:
                reader.errors.add(where, f"converter for '{aten_type}' must be a function name or {{fn, pass}}")
                continue
            if fn:
                converters[aten_type] = Converter(aten_type, fn, pass_by, where)
    workspace_query = reader.code(node.get("workspace_query"), "sdk.workspace_query", node.location, QUERY,
                                  required=False)
    two_phase = None
    two_phase_node = node.get("two_phase")
    if two_phase_node is not None:
        two_phase_map = reader.mapping(two_phase_node, "sdk.two_phase", node.location)
        if two_phase_map:
            reader.check_keys(two_phase_map, _TWO_PHASE_KEYS, "sdk.two_phase")
            query = reader.code(two_phase_map.get("query"), "sdk.two_phase.query", two_phase_map.location,
                                QUERY) or ""
            executor = reader.code(two_phase_map.get("executor"), "sdk.two_phase.executor", two_phase_map.location,
                                   TYPE) or ""
            two_phase = TwoPhaseConvention(query, executor, two_phase_map.location)
    return SdkSpec(headers, glue, status, stream, converters, node.location, workspace_query, two_phase)


def _parse_op(reader: _Reader, name: str, where: Location, node: Node,
              default_dtypes: tuple[str, ...], default_fallback: FallbackPolicy) -> Optional[OpSpec]:
    if not isinstance(node, Mapping):
        reader.errors.add(where, f"op '{name}' must map to a mapping with a 'call' or a 'fallback'")
        return None
    reader.check_keys(node, _OP_KEYS, f"op '{name}'")
    call = _parse_call(reader, node.get("call"))
    variants, narrowed = _parse_variants(reader, name, node.get("variants"))
    dtypes = reader.dtypes(node.get("dtypes"), f"{name}.dtypes")
    op_dtypes = dtypes if dtypes is not None else default_dtypes
    for variant, (variant_dtypes, loc) in narrowed.items():
        wider = [d for d in variant_dtypes if d not in op_dtypes]
        if wider:
            reader.errors.add(loc, f"'{name}.variants.{variant.value}' lists {', '.join(wider)}, which "
                              f"'{name}' does not declare", "a variant may narrow its overload's dtypes, not widen them")
    fallback_node = node.get("fallback")
    error_dtypes: tuple[str, ...] = ()
    if isinstance(fallback_node, Mapping):
        # Per-dtype policy: {default: cpu, float64: error}
        fallback = reader.enum(fallback_node.get("default"), FallbackPolicy, "fallback policy", default_fallback)
        errors_list = []
        for key in fallback_node.keys():
            if key == "default":
                continue
            if key not in DTYPES:
                reader.errors.add(fallback_node.key_location(key), f"unknown dtype '{key}' in fallback policy",
                                  did_you_mean(key, DTYPES, "expected `default` or a dtype name"))
                continue
            if reader.enum(fallback_node.get(key), FallbackPolicy, "fallback policy", FallbackPolicy.CPU) \
                    == FallbackPolicy.ERROR:
                errors_list.append(key)
        error_dtypes = tuple(errors_list)
    else:
        fallback = reader.enum(fallback_node, FallbackPolicy, "fallback policy", default_fallback)
    if call is None and node.get("fallback") is None and node.get("call") is None:
        reader.errors.add(where, f"op '{name}' has neither 'call' nor 'fallback'",
                          "add `call: sdkFunction(...)` or `fallback: cpu`")
    output = OutputRule(None, where)
    out_node = node.get("output")
    if out_node is not None:
        if isinstance(out_node, Scalar) and out_node.value == "meta":
            pass
        elif isinstance(out_node, Mapping) and out_node.keys() == ["like"]:
            like_node = out_node.get("like")
            if isinstance(like_node, Sequence):
                like = tuple(name for name, _ in reader.string_list(like_node, "output.like"))
            else:
                like = (reader.string(like_node, "output.like", out_node.location) or "",)
            output = OutputRule(like, out_node.location)
        elif isinstance(out_node, Mapping) and sorted(out_node.keys()) in (["rule"], ["count", "rule"]):
            rule = reader.code(out_node.get("rule"), f"{name}.output.rule", out_node.location, FUNCTION)
            count = reader.code(out_node.get("count"), f"{name}.output.count", out_node.location, IDENTIFIER,
                                required=False)
            output = OutputRule(None, out_node.location, rule, count)
        else:
            reader.errors.add(out_node.location, f"invalid output rule for '{name}'",
                              "expected `meta`, `{like: <tensor argument>}`, `{rule: <C++ function>}` or "
                              "`{rule: <C++ function>, count: <call argument>}`")
    known_failure = reader.string(node.get("known_failure"), f"{name}.known_failure", where, required=False)
    dtype_from = reader.string(node.get("dtype_from"), f"{name}.dtype_from", where, required=False)
    guard_text = reader.string(node.get("when"), f"{name}.when", where, required=False)
    guard = Guard(guard_text, node.get("when").location) if guard_text else None
    layouts = _parse_layouts(reader, name, node.get("layout"))
    casts = _parse_casts(reader, name, node.get("cast"))
    gate = _parse_version_gate(reader, name, node.get("torch"))
    autograd = reader.string(node.get("autograd"), f"{name}.autograd", where, required=False)
    if autograd is not None and autograd not in _AUTOGRAD_POLICIES:
        reader.errors.add(node.get("autograd").location, f"unknown autograd policy '{autograd}' for '{name}'",
                          did_you_mean(autograd, _AUTOGRAD_POLICIES, "expected `decomposition`"))
    format_rule = spec_formats.parse_rule(reader, name, node.get("format"))
    return OpSpec(name, where, call, tuple(variants), op_dtypes, fallback, output, known_failure, dtype_from,
                  guard, layouts, error_dtypes, gate, autograd, casts,
                  tuple((variant, variant_dtypes) for variant, (variant_dtypes, _) in narrowed.items()),
                  format_rule=format_rule)


def _parse_variants(reader: _Reader, name: str, node: Optional[Node]
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


def _parse_casts(reader: _Reader, name: str, node: Optional[Node]) -> tuple[CastRule, ...]:
    if node is None:
        return ()
    if not isinstance(node, Mapping):
        reader.errors.add(node.location, f"'{name}.cast' must map tensor arguments to dtypes",
                          "e.g. `cast: {indices: int32}`")
        return ()
    rules = []
    for argument in node.keys():
        value = node.get(argument)
        dtype = reader.string(value, f"{name}.cast.{argument}", node.key_location(argument)) or ""
        if dtype and dtype not in DTYPES:
            reader.errors.add(value.location, f"unknown dtype '{dtype}' in '{name}.cast.{argument}'",
                              did_you_mean(dtype, DTYPES, f"expected one of: {', '.join(DTYPES)}"))
            continue
        if dtype:
            rules.append(CastRule(argument, dtype, node.key_location(argument)))
    return tuple(rules)


def _parse_layouts(reader: _Reader, name: str, node: Optional[Node]) -> tuple[LayoutRule, ...]:
    if node is None:
        return ()
    if not isinstance(node, Mapping):
        reader.errors.add(node.location, f"'{name}.layout' must map arguments to layout rules",
                          "e.g. `layout: {input: channels_last, weight: {convert: vendor_glue::to_blocked}}`")
        return ()
    rules = []
    choices = [k.value for k in LayoutKind if k not in (LayoutKind.ALIGNED, LayoutKind.CONVERT)]
    for argument in node.keys():
        value = node.get(argument)
        where = node.key_location(argument)
        if isinstance(value, Scalar) and value.value in choices:
            rules.append(LayoutRule(argument, LayoutKind(value.value), where))
        elif isinstance(value, Mapping) and value.keys() == ["aligned"]:
            alignment = value.get("aligned")
            number = alignment.value if isinstance(alignment, Scalar) else None
            # `type(...) is int`: YAML's true is a Python int too, and would be emitted as True.
            if type(number) is int and 0 < number <= MAX_ALIGNMENT and number & (number - 1) == 0:
                rules.append(LayoutRule(argument, LayoutKind.ALIGNED, where, alignment=number))
            else:
                reader.errors.add(alignment.location, f"'{name}.layout.{argument}.aligned' must be a power of two "
                                  f"number of bytes up to {MAX_ALIGNMENT}, got '{number}'", "e.g. `{aligned: 64}`")
        elif isinstance(value, Mapping) and "convert" in value.keys() and set(value.keys()) <= {"convert", "reuse"}:
            converter = reader.code(value.get("convert"), f"{name}.layout.{argument}.convert", where, FUNCTION) or ""
            reuse_node = value.get("reuse")
            reuse = False
            if reuse_node is not None:
                if not (isinstance(reuse_node, Scalar) and isinstance(reuse_node.value, bool)):
                    reader.errors.add(reuse_node.location, f"'{name}.layout.{argument}.reuse' must be true or false")
                else:
                    reuse = reuse_node.value
            rules.append(LayoutRule(argument, LayoutKind.CONVERT, where, converter=converter, reuse=reuse))
        else:
            text = value.value if isinstance(value, Scalar) else "<mapping>"
            reader.errors.add(value.location, f"invalid layout rule '{text}' for argument '{argument}' of '{name}'",
                              did_you_mean(str(text), choices, "expected contiguous, channels_last, {aligned: <bytes>} "
                                           "or {convert: <function>, reuse: <bool>}"))
    return tuple(rules)


def _version(reader: _Reader, node: Optional[Node], what: str) -> Optional[tuple[int, ...]]:
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


def _parse_version_gate(reader: _Reader, name: str, node: Optional[Node]) -> Optional[VersionGate]:
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


def _parse_custom(reader: _Reader, name: str, where: Location, node: Node,
                  default_dtypes: tuple[str, ...]) -> Optional[CustomOpSpec]:
    if not isinstance(node, Mapping):
        reader.errors.add(where, f"custom op '{name}' must be a mapping with 'schema' and 'call'")
        return None
    reader.check_keys(node, _CUSTOM_KEYS, f"custom op '{name}'")
    reader.follows(name, IDENTIFIER, "custom op name", where)
    schema = reader.string(node.get("schema"), f"{name}.schema", where) or ""
    schema_location = node.get("schema").location if node.get("schema") is not None else where
    if node.get("call") is None:
        reader.errors.add(where, f"custom op '{name}' has no 'call'", "add `call: sdkFunction(...)`")
    op_fields = Mapping({k: node.entries[k] for k in ("call", "dtypes", "output") if k in node.entries},
                        node.location)
    op = _parse_op(reader, name, where, op_fields, default_dtypes, FallbackPolicy.ERROR)
    backward = None
    backward_node = node.get("backward")
    if backward_node is not None:
        if not isinstance(backward_node, Mapping):
            reader.errors.add(backward_node.location, f"'{name}.backward' must be a mapping")
        else:
            reader.check_keys(backward_node, _BACKWARD_KEYS, f"'{name}.backward'")
            grads = tuple(g for g, _ in reader.string_list(backward_node.get("grads"), f"{name}.backward.grads"))
            if not grads:
                reader.errors.add(backward_node.location, f"'{name}.backward' has no grads",
                                  "list the forward arguments it differentiates: `grads: [input, weight]`")
            bw_schema = reader.string(backward_node.get("schema"), f"{name}.backward.schema",
                                      backward_node.location) or ""
            bw_name = bw_schema.split("(", 1)[0].strip() or f"{name}_backward"
            if bw_schema:
                reader.follows(bw_name, IDENTIFIER, f"{name}.backward.schema's op name",
                               backward_node.get("schema").location)
            bw_fields = Mapping({k: backward_node.entries[k] for k in ("call", "output")
                                 if k in backward_node.entries}, backward_node.location)
            bw_op = _parse_op(reader, bw_name, backward_node.location, bw_fields, op.dtypes if op else default_dtypes,
                              FallbackPolicy.ERROR) if bw_fields.entries.get("call") else None
            if bw_fields.entries.get("call") is None:
                reader.errors.add(backward_node.location, f"'{name}.backward' has no 'call'")
            if bw_op:
                backward = BackwardSpec(grads, bw_op, bw_schema, backward_node.location)
    reference = reader.code(node.get("reference"), f"{name}.reference", where, IDENTIFIER, required=False)
    if op is None:
        return None
    return CustomOpSpec(op, schema, schema_location, backward, reference)


def _parse_namespaces(reader: _Reader, node: Optional[Node], vendor: str, default_dtypes: tuple[str, ...],
                      default_fallback: FallbackPolicy) -> list[OpSpec]:
    """`namespaces: {torchvision: {nms: {...}}}`: entries of other libraries' ops,
    in the grammar of `ops:` (which library a namespace is, the planner knows)."""
    if node is None:
        return []
    namespaces = reader.mapping(node, "namespaces", node.location)
    entries: list[OpSpec] = []
    for namespace in namespaces.keys() if namespaces else []:
        where = namespaces.key_location(namespace)
        if namespace == "aten":
            reader.errors.add(where, "ATen ops are not listed under `namespaces`", "list them under `ops:`")
            continue
        if namespace == vendor:
            reader.errors.add(where, f"'{vendor}' is the vendor's own namespace",
                              "list the vendor's ops under `custom:`, with their schemas")
            continue
        if namespace not in KNOWN_LIBRARIES:
            reader.errors.add(where, f"unknown namespace '{namespace}'",
                              did_you_mean(namespace, KNOWN_LIBRARIES,
                                           f"the generator reads the schemas of: "
                                           f"{', '.join(KNOWN_LIBRARIES)}"))
            continue
        ops = reader.mapping(namespaces.get(namespace), f"namespaces.{namespace}", where)
        for name in ops.keys() if ops else []:
            op = _parse_op(reader, name, ops.key_location(name), ops.get(name), default_dtypes, default_fallback)
            if op:
                entries.append(dataclasses.replace(op, namespace=namespace))
    return entries


def _parse_distributed(reader: _Reader, node: Optional[Node], where: Location,
                       default_dtypes: tuple[str, ...]) -> Optional[DistributedSpec]:
    if node is None:
        return None
    mapping = reader.mapping(node, "distributed", where)
    if mapping is None:
        return None
    reader.check_keys(mapping, _DISTRIBUTED_KEYS, "distributed")
    backend = reader.string(mapping.get("backend"), "distributed.backend", mapping.location)
    if backend is not None:
        backend_node = mapping.get("backend")
        if not _COLLECTIVE_BACKEND_NAME.fullmatch(backend):
            reader.errors.add(backend_node.location, f"'distributed.backend' must be a lowercase name of at most "
                              f"32 letters, digits and '_', got '{backend}'", "e.g. cncl")
            backend = None
        elif backend in BUILTIN_COLLECTIVE_BACKENDS:
            reader.errors.add(backend_node.location, f"'distributed.backend: {backend}' is one of PyTorch's own c10d "
                              "backends and cannot be registered again",
                              "name the vendor's collective library, e.g. cncl or hccl")
            backend = None
    transport = reader.enum(mapping.get("transport"), CollectiveTransport, "distributed.transport",
                            CollectiveTransport.GLOO_STAGED)
    dtypes = reader.dtypes(mapping.get("dtypes"), "distributed.dtypes")
    if dtypes is None:  # the ops' dtypes, those the transport can carry
        dtypes = tuple(d for d in default_dtypes
                       if transport is CollectiveTransport.VENDOR_CCL or d in GLOO_DTYPES)
    elif transport is CollectiveTransport.GLOO_STAGED:
        refused = [name for name in dtypes if name not in GLOO_DTYPES]
        if refused:
            reader.errors.add(mapping.get("dtypes").location,
                              f"distributed.dtypes: Gloo has no collectives for {', '.join(refused)}",
                              f"list only dtypes Gloo takes: {', '.join(GLOO_DTYPES)}")
    if backend is None:
        return None
    return DistributedSpec(backend, transport, dtypes, mapping.location)


def parse(path: str, root: Node) -> VendorSpec:
    """Builds the model; raises SpecErrors with every structural problem found."""
    errors = ErrorSink()
    reader = _Reader(errors)
    top = reader.mapping(root, "spec", root.location)
    if top is None:
        errors.raise_if_any()
    reader.check_keys(top, _TOP_KEYS, "the spec")
    vendor = reader.code(top.get("vendor"), "vendor", top.location, IDENTIFIER) or ""
    device = reader.string(top.get("device"), "device", top.location) or ""  # checked against torch's rules by plan.py
    sdk_node = reader.mapping(top.get("sdk"), "sdk", top.location)
    sdk = _parse_sdk(reader, sdk_node) if sdk_node else None
    default_dtypes: tuple[str, ...] = ("float32",)
    default_fallback = FallbackPolicy.CPU
    defaults = top.get("defaults")
    if defaults is not None:
        defaults_map = reader.mapping(defaults, "defaults", top.location)
        if defaults_map:
            reader.check_keys(defaults_map, _DEFAULT_KEYS, "defaults")
            default_dtypes = reader.dtypes(defaults_map.get("dtypes"), "defaults.dtypes") or default_dtypes
            default_fallback = reader.enum(defaults_map.get("fallback"), FallbackPolicy, "fallback policy",
                                           default_fallback)
    ops = []
    ops_node = reader.mapping(top.get("ops"), "ops", top.location)
    if ops_node:
        for name in ops_node.keys():
            op = _parse_op(reader, name, ops_node.key_location(name), ops_node.get(name),
                           default_dtypes, default_fallback)
            if op:
                ops.append(op)
    custom = []
    custom_node = top.get("custom")
    if custom_node is not None:
        custom_map = reader.mapping(custom_node, "custom", top.location)
        for name in custom_map.keys() if custom_map else []:
            entry = _parse_custom(reader, name, custom_map.key_location(name), custom_map.get(name), default_dtypes)
            if entry:
                custom.append(entry)
    namespace_ops = _parse_namespaces(reader, top.get("namespaces"), vendor, default_dtypes, default_fallback)
    autocast = []
    autocast_node = top.get("autocast")
    if autocast_node is not None:
        autocast_map = reader.mapping(autocast_node, "autocast", top.location)
        if autocast_map:
            reader.check_keys(autocast_map, tuple(p.value for p in AutocastPolicy), "autocast")
            for policy in AutocastPolicy:
                for op, loc in reader.string_list(autocast_map.get(policy.value), f"autocast.{policy.value}"):
                    autocast.append(AutocastEntry(op, policy, loc))
    distributed = _parse_distributed(reader, top.get("distributed"), top.location, default_dtypes)
    formats = spec_formats.parse_formats(reader, top.get("formats"), top.location)
    errors.raise_if_any()
    assert sdk is not None
    return VendorSpec(path, vendor, device, sdk, default_dtypes, default_fallback, tuple(ops), tuple(custom),
                      tuple(autocast), top.get("device").location, tuple(namespace_ops), distributed, formats)
