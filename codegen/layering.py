"""Layered specs: `include: [common/x.yaml, ...]` in a vendor spec.

What vendors share (op groups, the autocast policy, defaults) is written once
under specs/common/; a vendor file states only its differences. Included files
are merged first, in order; the vendor file wins. Sections that map names to
entries (ops, custom, autocast, defaults) merge entry by entry, and namespaces
namespace by namespace, then op by op; any other key is replaced whole. Every
node keeps the file and line it came from.

Includes are paths below the vendor spec's directory, nested at most
limits.INCLUDE_DEPTH deep; a cycle is an error that names its files; all the
files of one spec together are at most limits.SPEC_BYTES.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from . import source, spec_file
from .errors import Location, SpecError, SpecErrors
from .limits import INCLUDE_DEPTH, SPEC_BYTES
from .source import Mapping, Node, Scalar, Sequence

MERGED_SECTIONS = ("ops", "custom", "namespaces", "autocast", "defaults")


@dataclass(frozen=True)
class _Including:
    """A spec file whose includes are being loaded."""
    real_path: str
    display: str


# Sections two levels deep: a namespace's ops merge op by op, as `ops:` entries do.
NESTED_SECTIONS = ("namespaces",)


def _merge(base: Mapping, override: Mapping, sections: tuple[str, ...] = MERGED_SECTIONS) -> Mapping:
    entries = dict(base.entries)
    for key, (key_location, value) in override.entries.items():
        previous = entries.get(key)
        if previous and key in sections and isinstance(previous[1], Mapping) and isinstance(value, Mapping):
            if key in NESTED_SECTIONS:
                value = _merge(previous[1], value, sections=tuple(value.keys()))
            else:
                value = Mapping({**previous[1].entries, **value.entries}, value.location)
        entries[key] = (key_location, value)
    return Mapping(entries, override.location)


def load(path: str, display_path: str) -> tuple[Node, list[str]]:
    """The merged spec and the texts it was read from (for the spec hash)."""
    texts: list[str] = []
    text = spec_file.read(path, display_path, SPEC_BYTES)
    texts.append(text)
    root = _with_includes(path, display_path, source.load(display_path, text),
                          os.path.realpath(os.path.dirname(path)), (), texts)
    return root, texts


def _with_includes(path: str, display: str, root: Node, spec_dir: str,
                   chain: tuple[_Including, ...], texts: list[str]) -> Node:
    if not isinstance(root, Mapping) or root.get("include") is None:
        return root
    include = root.get("include")
    if not isinstance(include, Sequence):
        raise SpecErrors([SpecError(include.location, "'include' must be a list of spec files",
                                    "e.g. `include: [common/autocast.yaml]`")])
    chain = chain + (_Including(os.path.realpath(path), display),)
    merged = Mapping({}, root.location)
    for item in include.items:
        if not isinstance(item, Scalar) or not isinstance(item.value, str) or not item.value:
            raise SpecErrors([SpecError(item.location, "each include must be a path relative to the spec")])
        included_path = os.path.join(os.path.dirname(path), item.value)
        # Named as the including file is (specs/mlu.yaml → specs/mlu/nn.yaml), wherever it was read from.
        included_display = os.path.normpath(os.path.join(os.path.dirname(display), item.value))
        real = os.path.realpath(included_path)
        if os.path.commonpath([real, spec_dir]) != spec_dir:
            raise SpecErrors([SpecError(item.location, f"included spec '{item.value}' is outside the spec's "
                                        "directory", "include files below it, e.g. common/autocast.yaml")])
        cycle = [i for i, including in enumerate(chain) if including.real_path == real]
        if cycle:
            files = [including.display for including in chain[cycle[0]:]] + [included_display]
            raise SpecErrors([SpecError(item.location, f"include cycle: {' → '.join(files)}",
                                        "remove one of these includes")])
        if len(chain) > INCLUDE_DEPTH:
            raise SpecErrors([SpecError(item.location, f"includes nested more than {INCLUDE_DEPTH} deep",
                                        "include the shared files from the vendor spec directly")])
        budget = SPEC_BYTES - sum(len(t.encode()) for t in texts)
        text = spec_file.read(included_path, included_display, budget, item.location,
                              f"included spec '{item.value}'")
        texts.append(text)
        included = _with_includes(included_path, included_display, source.load(included_display, text),
                                  spec_dir, chain, texts)
        if not isinstance(included, Mapping):
            raise SpecErrors([SpecError(Location(included_display, 1, 1), "an included spec must be a mapping")])
        merged = _merge(merged, included)
    own = Mapping({k: v for k, v in root.entries.items() if k != "include"}, root.location)
    return _merge(merged, own)
