"""A spec's top-level sections of ops and settings: `defaults:`, `ops:`,
`namespaces:` (other libraries' ops), `autocast:` and `distributed:`. The
`sdk:`, `custom:` and `formats:` sections have modules of their own."""
from __future__ import annotations

import dataclasses
import re
from typing import Optional

from .errors import Location, did_you_mean
from .source import Mapping, Node
from .spec_model import (BUILTIN_COLLECTIVE_BACKENDS, GLOO_DTYPES, KNOWN_LIBRARIES, AutocastEntry, AutocastPolicy,
                         CollectiveTransport, DistributedSpec, FallbackPolicy, OpSpec)
from .spec_op import parse_op
from .spec_reader import Reader

_DEFAULT_KEYS = ("dtypes", "fallback")
_DISTRIBUTED_KEYS = ("backend", "transport", "dtypes")
_COLLECTIVE_BACKEND_NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")


def parse_defaults(reader: Reader, node: Optional[Node], where: Location) -> tuple[tuple[str, ...], FallbackPolicy]:
    """`defaults: {dtypes: [...], fallback: ...}`: what an entry without its own gets."""
    dtypes: tuple[str, ...] = ("float32",)
    fallback = FallbackPolicy.CPU
    if node is None:
        return dtypes, fallback
    defaults = reader.mapping(node, "defaults", where)
    if defaults:
        reader.check_keys(defaults, _DEFAULT_KEYS, "defaults")
        dtypes = reader.dtypes(defaults.get("dtypes"), "defaults.dtypes") or dtypes
        fallback = reader.enum(defaults.get("fallback"), FallbackPolicy, "fallback policy", fallback)
    return dtypes, fallback


def parse_ops(reader: Reader, node: Optional[Node], where: Location, default_dtypes: tuple[str, ...],
              default_fallback: FallbackPolicy) -> tuple[OpSpec, ...]:
    """`ops:`: ATen overloads, each an op entry (spec_op.py)."""
    return _parse_entries(reader, reader.mapping(node, "ops", where), default_dtypes, default_fallback)


def parse_namespaces(reader: Reader, node: Optional[Node], vendor: str, default_dtypes: tuple[str, ...],
                     default_fallback: FallbackPolicy) -> tuple[OpSpec, ...]:
    """`namespaces: {torchvision: {nms: {...}}}`: entries of other libraries' ops,
    in the grammar of `ops:` (which library a namespace is, the planner knows)."""
    if node is None:
        return ()
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
        entries += (dataclasses.replace(op, namespace=namespace)
                    for op in _parse_entries(reader, ops, default_dtypes, default_fallback))
    return tuple(entries)


def _parse_entries(reader: Reader, ops: Optional[Mapping], default_dtypes: tuple[str, ...],
                   default_fallback: FallbackPolicy) -> tuple[OpSpec, ...]:
    entries = (parse_op(reader, name, ops.key_location(name), ops.get(name), default_dtypes, default_fallback)
               for name in (ops.keys() if ops else []))
    return tuple(op for op in entries if op)


def parse_autocast(reader: Reader, node: Optional[Node], where: Location) -> tuple[AutocastEntry, ...]:
    """`autocast: {<policy>: [overloads]}`."""
    if node is None:
        return ()
    autocast = reader.mapping(node, "autocast", where)
    if not autocast:
        return ()
    reader.check_keys(autocast, tuple(p.value for p in AutocastPolicy), "autocast")
    return tuple(AutocastEntry(op, policy, loc) for policy in AutocastPolicy
                 for op, loc in reader.string_list(autocast.get(policy.value), f"autocast.{policy.value}"))


def parse_distributed(reader: Reader, node: Optional[Node], where: Location,
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
