"""Layered specs: `include: [common/x.yaml, ...]` in a vendor spec.

What vendors share (op groups, the autocast policy, defaults) is written once
under specs/common/; a vendor file states only its differences. Included files
are merged first, in order; the vendor file wins. Sections that map names to
entries (ops, custom, autocast, defaults) merge entry by entry; any other key
is replaced whole. Every node keeps the file and line it came from.
"""
from __future__ import annotations

import os

from . import source
from .errors import Location, SpecError, SpecErrors
from .source import Mapping, Node, Scalar, Sequence

MERGED_SECTIONS = ("ops", "custom", "autocast", "defaults")


def _merge(base: Mapping, override: Mapping) -> Mapping:
    entries = dict(base.entries)
    for key, (key_location, value) in override.entries.items():
        previous = entries.get(key)
        if previous and key in MERGED_SECTIONS and isinstance(previous[1], Mapping) and isinstance(value, Mapping):
            value = Mapping({**previous[1].entries, **value.entries}, value.location)
        entries[key] = (key_location, value)
    return Mapping(entries, override.location)


def load(path: str, display_path: str, repo_root: str) -> tuple[Node, list[str]]:
    """The merged spec and the texts it was read from (for the spec hash)."""
    with open(path) as f:
        text = f.read()
    root = source.load(display_path, text)
    texts = [text]
    if not isinstance(root, Mapping) or root.get("include") is None:
        return root, texts
    include = root.get("include")
    if not isinstance(include, Sequence):
        raise SpecErrors([SpecError(include.location, "'include' must be a list of spec files",
                                    "e.g. `include: [common/autocast.yaml]`")])
    merged = Mapping({}, root.location)
    for item in include.items:
        if not isinstance(item, Scalar) or not isinstance(item.value, str):
            raise SpecErrors([SpecError(item.location, "each include must be a path relative to the spec")])
        included_path = os.path.join(os.path.dirname(path), item.value)
        included_display = os.path.relpath(included_path, repo_root)
        if not os.path.exists(included_path):
            raise SpecErrors([SpecError(item.location, f"included spec '{item.value}' not found",
                                        f"looked for {included_display}")])
        included, included_texts = load(included_path, included_display, repo_root)
        if not isinstance(included, Mapping):
            raise SpecErrors([SpecError(Location(included_display, 1, 1), "an included spec must be a mapping")])
        merged = _merge(merged, included)
        texts += included_texts
    own = Mapping({k: v for k, v in root.entries.items() if k != "include"}, root.location)
    return _merge(merged, own), texts
