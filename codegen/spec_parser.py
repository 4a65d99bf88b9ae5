"""The spec parser: located YAML nodes (source.py) → the typed model (spec_model.py).

This stage checks structure only: known keys, value types, dtype names, the
shape of `call:` lines, and the grammar of every string that becomes C++.
Whether an op or an argument exists in ATen is checked by the planner, which
has the ATen schemas.

One module per part of the spec, all reading nodes through spec_reader.Reader:
    spec_sdk.py             sdk:
    spec_sections.py        defaults:, ops:, namespaces:, autocast:, distributed:
    spec_op.py              one op entry (with spec_call.py, the `call:` line, and
                            spec_argument_rules.py, its `layout:` and `cast:` rules)
    spec_custom.py          custom: (the vendor's own ops and their backward)
    spec_formats.py         formats: and an op's `format:` rule
"""
from __future__ import annotations

from . import spec_formats
from .errors import ErrorSink
from .source import Node
from .spec_custom import parse_custom_ops
from .spec_model import VendorSpec
from .spec_reader import IDENTIFIER, Reader
from .spec_sdk import parse_sdk
from .spec_sections import parse_autocast, parse_defaults, parse_distributed, parse_namespaces, parse_ops

_TOP_KEYS = ("vendor", "device", "sdk", "defaults", "ops", "custom", "namespaces", "autocast", "include",
             "distributed", "formats")


def parse(path: str, root: Node) -> VendorSpec:
    """Builds the model; raises SpecErrors with every structural problem found."""
    errors = ErrorSink()
    reader = Reader(errors)
    top = reader.mapping(root, "spec", root.location)
    if top is None:
        errors.raise_if_any()
    reader.check_keys(top, _TOP_KEYS, "the spec")
    vendor = reader.code(top.get("vendor"), "vendor", top.location, IDENTIFIER) or ""
    device = reader.string(top.get("device"), "device", top.location) or ""  # checked against torch's rules by plan.py
    sdk_node = reader.mapping(top.get("sdk"), "sdk", top.location)
    sdk = parse_sdk(reader, sdk_node) if sdk_node else None
    default_dtypes, default_fallback = parse_defaults(reader, top.get("defaults"), top.location)
    ops = parse_ops(reader, top.get("ops"), top.location, default_dtypes, default_fallback)
    custom = parse_custom_ops(reader, top.get("custom"), top.location, default_dtypes)
    namespace_ops = parse_namespaces(reader, top.get("namespaces"), vendor, default_dtypes, default_fallback)
    autocast = parse_autocast(reader, top.get("autocast"), top.location)
    distributed = parse_distributed(reader, top.get("distributed"), top.location, default_dtypes)
    formats = spec_formats.parse_formats(reader, top.get("formats"), top.location)
    errors.raise_if_any()
    assert sdk is not None
    return VendorSpec(path=path, vendor=vendor, device=device, sdk=sdk, default_dtypes=default_dtypes,
                      default_fallback=default_fallback, ops=ops, custom=custom, autocast=autocast,
                      device_location=top.get("device").location, library_ops=namespace_ops,
                      distributed=distributed, formats=formats)
