"""A spec's `custom:` section: the vendor's own ops (torch.ops.<vendor>.<name>),
each with its schema, its call (an op entry, spec_op.py) and optionally a
backward op and a CPU reference."""
from __future__ import annotations

from typing import Optional

from .errors import Location
from .source import Mapping, Node
from .spec_model import BackwardSpec, CustomOpSpec, FallbackPolicy
from .spec_op import parse_op
from .spec_reader import IDENTIFIER, Reader

_CUSTOM_KEYS = ("schema", "call", "dtypes", "output", "backward", "reference")
_BACKWARD_KEYS = ("grads", "schema", "call", "output")


def parse_custom_ops(reader: Reader, node: Optional[Node], where: Location,
                     default_dtypes: tuple[str, ...]) -> tuple[CustomOpSpec, ...]:
    if node is None:
        return ()
    custom_map = reader.mapping(node, "custom", where)
    entries = (_parse_custom(reader, name, custom_map.key_location(name), custom_map.get(name), default_dtypes)
               for name in (custom_map.keys() if custom_map else []))
    return tuple(entry for entry in entries if entry)


def _parse_custom(reader: Reader, name: str, where: Location, node: Node,
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
    op = parse_op(reader, name, where, op_fields, default_dtypes, FallbackPolicy.ERROR)
    backward = None
    backward_node = node.get("backward")
    if backward_node is not None:
        backward = _parse_backward(reader, name, backward_node, op.dtypes if op else default_dtypes)
    reference = reader.code(node.get("reference"), f"{name}.reference", where, IDENTIFIER, required=False)
    if op is None:
        return None
    return CustomOpSpec(op=op, schema=schema, schema_location=schema_location, backward=backward, reference=reference)


def _parse_backward(reader: Reader, name: str, node: Node, dtypes: tuple[str, ...]) -> Optional[BackwardSpec]:
    """`backward: {grads: [...], schema: ..., call: ...}`: a second op whose dtypes are the forward's."""
    if not isinstance(node, Mapping):
        reader.errors.add(node.location, f"'{name}.backward' must be a mapping")
        return None
    reader.check_keys(node, _BACKWARD_KEYS, f"'{name}.backward'")
    grads = tuple(g for g, _ in reader.string_list(node.get("grads"), f"{name}.backward.grads"))
    if not grads:
        reader.errors.add(node.location, f"'{name}.backward' has no grads",
                          "list the forward arguments it differentiates: `grads: [input, weight]`")
    schema = reader.string(node.get("schema"), f"{name}.backward.schema", node.location) or ""
    op_name = schema.split("(", 1)[0].strip() or f"{name}_backward"
    if schema:
        reader.follows(op_name, IDENTIFIER, f"{name}.backward.schema's op name", node.get("schema").location)
    fields = Mapping({k: node.entries[k] for k in ("call", "output") if k in node.entries}, node.location)
    op = parse_op(reader, op_name, node.location, fields, dtypes, FallbackPolicy.ERROR) \
        if fields.entries.get("call") else None
    if fields.entries.get("call") is None:
        reader.errors.add(node.location, f"'{name}.backward' has no 'call'")
    if op is None:
        return None
    return BackwardSpec(grads, op, schema, node.location)
