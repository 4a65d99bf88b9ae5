"""YAML loading that keeps the file:line:column of every key and value.

A spec uses a small part of YAML: mappings, lists and plain values. The
composer here builds located nodes from the YAML parser's events and refuses
everything else as a spec error before it can expand or recurse: anchors and
aliases (the billion laughs, recursive aliases), explicit tags (`!!python/...`,
`!!int abc`), merge keys, several documents, and nesting deeper than
limits.NESTING_DEPTH. It is a loop over events with an explicit stack, so
depth never costs Python recursion.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

import yaml

from .errors import Location, SpecError, SpecErrors
from .limits import NESTING_DEPTH


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

# libyaml's parser where PyYAML has it (ten times faster than the pure-Python one).
_PARSER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# A loader instance only for YAML's implicit typing rules and its scalar constructors.
_TYPING = yaml.SafeLoader("")
_TAG = "tag:yaml.org,2002:"
_MERGE = _TAG + "merge"
# The types a plain scalar may resolve to. Anything else YAML would resolve
# (timestamps, `=`, `<<` as a value) stays the text as written.
_CONSTRUCTORS = {
    _TAG + "null": yaml.constructor.SafeConstructor.construct_yaml_null,
    _TAG + "bool": yaml.constructor.SafeConstructor.construct_yaml_bool,
    _TAG + "int": yaml.constructor.SafeConstructor.construct_yaml_int,
    _TAG + "float": yaml.constructor.SafeConstructor.construct_yaml_float,
}


@dataclass
class _Open:
    """A mapping or list whose end event has not come yet."""
    is_mapping: bool
    location: Location
    # A list's nodes; a mapping's keys and values, alternating.
    items: list[Node] = field(default_factory=list)

    @property
    def expects_key(self) -> bool:
        return self.is_mapping and len(self.items) % 2 == 0


def _location(path: str, mark) -> Location:
    return Location(path, mark.line + 1, mark.column + 1)


def _refuse(path: str, event: yaml.Event, message: str, suggestion: str | None = None) -> SpecErrors:
    return SpecErrors([SpecError(_location(path, event.start_mark), message, suggestion)])


def _shown_tag(tag: str) -> str:
    return "!!" + tag[len(_TAG):] if tag.startswith(_TAG) else tag


def _scalar(path: str, event: yaml.ScalarEvent, tag: str) -> Scalar:
    construct = _CONSTRUCTORS.get(tag)
    if construct is None:
        return Scalar(event.value, _location(path, event.start_mark))
    try:
        value = construct(_TYPING, yaml.ScalarNode(tag, event.value))
    except ValueError:  # an integer of more digits than Python converts
        shown = event.value if len(event.value) <= 20 else event.value[:20] + "..."
        raise _refuse(path, event, f"number '{shown}' is too long", "quote it to make it text") from None
    return Scalar(value, _location(path, event.start_mark))


def _close(path: str, node: _Open) -> Node:
    if not node.is_mapping:
        return Sequence(tuple(node.items), node.location)
    entries: dict[str, tuple[Location, Node]] = {}
    for key_node, value in zip(node.items[::2], node.items[1::2]):
        assert isinstance(key_node, Scalar)  # _compose refuses other keys
        key = str(key_node.value)
        if key in entries:
            raise SpecErrors([SpecError(key_node.location, f"duplicate key '{key}'",
                                        f"first defined at line {entries[key][0].line}")])
        entries[key] = (key_node.location, value)
    return Mapping(entries, node.location)


def _compose(path: str, parser) -> Node | None:
    stack: list[_Open] = []
    root = None
    documents = 0
    while parser.check_event():
        event = parser.get_event()
        if isinstance(event, yaml.DocumentStartEvent):
            documents += 1
            if documents > 1:
                raise _refuse(path, event, "a spec is one YAML document", "remove the '---' and what follows it")
            continue
        if not isinstance(event, yaml.NodeEvent):  # stream start and end, document end, collection ends
            if isinstance(event, yaml.CollectionEndEvent):
                closed = _close(path, stack.pop())
                if stack:
                    stack[-1].items.append(closed)
                else:
                    root = closed
            continue
        if isinstance(event, yaml.AliasEvent):
            raise _refuse(path, event, f"YAML aliases (*{event.anchor}) are not allowed in a spec",
                          "write the value out, or share entries through `include:`")
        if event.anchor is not None:
            raise _refuse(path, event, f"YAML anchors (&{event.anchor}) are not allowed in a spec",
                          "write the value out, or share entries through `include:`")
        if event.tag is not None:
            raise _refuse(path, event, f"YAML tag '{_shown_tag(event.tag)}' is not allowed in a spec",
                          "write plain values: specs use text, numbers, true/false, lists and mappings")
        parent = stack[-1] if stack else None
        if isinstance(event, yaml.CollectionStartEvent):
            if parent is not None and parent.expects_key:
                raise _refuse(path, event, "a mapping key must be a plain name, not a list or mapping")
            if len(stack) >= NESTING_DEPTH:
                raise _refuse(path, event, f"nested more than {NESTING_DEPTH} levels deep",
                              "specs nest a few levels: is this the right file?")
            stack.append(_Open(isinstance(event, yaml.MappingStartEvent), _location(path, event.start_mark)))
            continue
        tag = _TYPING.resolve(yaml.ScalarNode, event.value, event.implicit)
        if tag == _MERGE and parent is not None and parent.expects_key:
            raise _refuse(path, event, "YAML merge keys (<<) are not allowed in a spec",
                          "write the entries out, or share them through `include:`")
        scalar = _scalar(path, event, tag)
        if parent is not None:
            parent.items.append(scalar)
        else:
            root = scalar
    return root


def load(path: str, text: str) -> Node:
    parser = _PARSER(text)
    try:
        root = _compose(path, parser)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        loc = Location(path, mark.line + 1, mark.column + 1) if mark else Location(path, 1, 1)
        raise SpecErrors([SpecError(loc, f"YAML syntax error: {exc.problem}")]) from None
    except yaml.YAMLError as exc:  # a reader error: spec_file refuses those characters before
        raise SpecErrors([SpecError(Location(path, 1, 1), f"YAML error: {exc}")]) from None
    finally:
        parser.dispose()
    if root is None:
        raise SpecErrors([SpecError(Location(path, 1, 1), "the spec is empty")])
    return root
