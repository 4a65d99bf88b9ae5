"""YAML loading that keeps the file:line:column of every key and value.

PyYAML's composer already records marks on each node; we keep the nodes and
convert them into small typed wrappers so that every later stage can report an
error at the exact place in the spec.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

import yaml

from .errors import Location, SpecError, SpecErrors


@dataclass(frozen=True)
class Scalar:
    value: Union[str, int, float, bool, None]
    location: Location


@dataclass(frozen=True)
class Sequence:
    items: tuple["Node", ...]
    location: Location


@dataclass(frozen=True)
class Mapping:
    # Key text → (key location, value node). Insertion order is the file's order.
    entries: dict[str, tuple[Location, "Node"]] = field(hash=False)
    location: Location

    def keys(self) -> list[str]:
        return list(self.entries)

    def get(self, key: str) -> "Node | None":
        entry = self.entries.get(key)
        return entry[1] if entry else None

    def key_location(self, key: str) -> Location:
        return self.entries[key][0]


Node = Union[Scalar, Sequence, Mapping]


# A loader instance only for its constructor: it turns a scalar node into the
# int/bool/float/str that YAML's resolution rules say it is.
_CONSTRUCTOR = yaml.SafeLoader("")


def _location(path: str, node: yaml.Node) -> Location:
    return Location(path, node.start_mark.line + 1, node.start_mark.column + 1)


def _convert(path: str, node: yaml.Node) -> Node:
    if isinstance(node, yaml.MappingNode):
        entries: dict[str, tuple[Location, Node]] = {}
        for key_node, value_node in node.value:
            key = str(_CONSTRUCTOR.construct_object(key_node, deep=True))
            if key in entries:
                raise SpecErrors([SpecError(_location(path, key_node), f"duplicate key '{key}'",
                                            f"first defined at line {entries[key][0].line}")])
            entries[key] = (_location(path, key_node), _convert(path, value_node))
        return Mapping(entries, _location(path, node))
    if isinstance(node, yaml.SequenceNode):
        return Sequence(tuple(_convert(path, item) for item in node.value), _location(path, node))
    # Resolve the scalar with YAML's own rules (ints, bools, nulls, floats).
    return Scalar(_CONSTRUCTOR.construct_object(node, deep=True), _location(path, node))


def load(path: str, text: str) -> Node:
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        loc = Location(path, mark.line + 1, mark.column + 1) if mark else Location(path, 1, 1)
        raise SpecErrors([SpecError(loc, f"YAML syntax error: {exc.problem}")]) from None
    if root is None:
        raise SpecErrors([SpecError(Location(path, 1, 1), "the spec is empty")])
    return _convert(path, root)
