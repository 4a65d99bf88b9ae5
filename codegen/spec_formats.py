"""Private formats in a spec: the top-level `formats:` section and an op's `format:` rule.

    formats:
      NC1HWC0:
        rank: 4                                   # the public tensors it applies to
        to_private: npu_glue::to_nc1hwc0          # public → physical
        to_public: npu_glue::from_nc1hwc0         # physical → public
        physical_sizes: npu_glue::nc1hwc0_sizes   # public sizes → physical sizes
    ops:
      convolution_overrideable:
        format: {name: NC1HWC0, takes: [input], makes: [out]}

Structure only: whether the format is declared and the names are the op's
arguments and results is checked by the planner, which has the schemas.
"""
from __future__ import annotations

from typing import Optional

from .errors import Location
from .source import Node, Scalar
from .spec_model import FormatRule, PrivateFormatSpec
from .spec_reader import FUNCTION, IDENTIFIER, Reader

_FORMAT_KEYS = ("rank", "to_private", "to_public", "physical_sizes")
_RULE_KEYS = ("name", "takes", "makes", "keeps")
_MAX_RANK = 8


def parse_formats(reader: Reader, node: Optional[Node], where: Location) -> tuple[PrivateFormatSpec, ...]:
    if node is None:
        return ()
    mapping = reader.mapping(node, "formats", where)
    if mapping is None:
        return ()
    formats = []
    for name in mapping.keys():
        location = mapping.key_location(name)
        if not reader.follows(name, IDENTIFIER, "formats", location):
            continue
        entry = reader.mapping(mapping.get(name), f"formats.{name}", location)
        if entry is None:
            continue
        reader.check_keys(entry, _FORMAT_KEYS, f"formats.{name}")
        rank_node = entry.get("rank")
        rank = rank_node.value if isinstance(rank_node, Scalar) else None
        if type(rank) is not int or not 1 <= rank <= _MAX_RANK:  # YAML's true is an int too
            reader.errors.add(rank_node.location if rank_node else entry.location,
                              f"'formats.{name}.rank' must be the public rank the format applies to, "
                              f"1 to {_MAX_RANK}", "e.g. `rank: 4` for NCHW tensors")
            rank = 0
        functions = [reader.code(entry.get(key), f"formats.{name}.{key}", entry.location, FUNCTION)
                     for key in ("to_private", "to_public", "physical_sizes")]
        if rank and all(functions):
            formats.append(PrivateFormatSpec(name, rank, *functions, location))
    return tuple(formats)


def parse_rule(reader: Reader, op: str, node: Optional[Node]) -> Optional[FormatRule]:
    if node is None:
        return None
    mapping = reader.mapping(node, f"{op}.format", node.location)
    if mapping is None:
        return None
    reader.check_keys(mapping, _RULE_KEYS, f"{op}.format")
    name = reader.string(mapping.get("name"), f"{op}.format.name", mapping.location)
    takes, makes, keeps = (tuple(text for text, _ in reader.string_list(mapping.get(key), f"{op}.format.{key}"))
                           for key in ("takes", "makes", "keeps"))
    if not (takes or makes or keeps):
        reader.errors.add(mapping.location, f"'{op}.format' names no argument or result",
                          "e.g. `format: {name: NC1HWC0, takes: [input], makes: [out]}`")
        return None
    if keeps and not takes:
        reader.errors.add(mapping.location, f"'{op}.format.keeps' needs an argument in 'takes' to keep the format of",
                          "e.g. `format: {name: NC1HWC0, takes: [self], keeps: [out]}`")
        return None
    return FormatRule(format=name, takes=takes, makes=makes, keeps=keeps, location=mapping.location) if name else None
