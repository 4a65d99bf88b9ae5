"""What an op's SDK needs of an argument before the call: its layout (`layout:`:
contiguous, channels_last, an aligned address, or a converter to a private
layout) and its dtype (`cast:`)."""
from __future__ import annotations

from typing import Optional

from .errors import did_you_mean
from .source import Mapping, Node, Scalar
from .spec_model import DTYPES, CastRule, LayoutKind, LayoutRule
from .spec_reader import FUNCTION, Reader

# A power of two up to 1 GiB: what an allocator can align to.
MAX_ALIGNMENT = 1 << 30


def parse_layouts(reader: Reader, name: str, node: Optional[Node]) -> tuple[LayoutRule, ...]:
    if not _per_argument(reader, node, f"'{name}.layout' must map arguments to layout rules",
                         "e.g. `layout: {input: channels_last, weight: {convert: vendor_glue::to_blocked}}`"):
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


def parse_casts(reader: Reader, name: str, node: Optional[Node]) -> tuple[CastRule, ...]:
    if not _per_argument(reader, node, f"'{name}.cast' must map tensor arguments to dtypes",
                         "e.g. `cast: {indices: int32}`"):
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


def _per_argument(reader: Reader, node: Optional[Node], message: str, example: str) -> bool:
    """Whether there is a mapping of argument → rule to read (an error if `node` is another kind)."""
    if node is None:
        return False
    if not isinstance(node, Mapping):
        reader.errors.add(node.location, message, example)
        return False
    return True
