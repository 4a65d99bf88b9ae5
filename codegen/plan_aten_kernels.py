"""runtime/aten_kernels.yaml → the AtenKernels every backend registers for ATen ops
besides its spec's, for the device's dispatch keys. An entry is either
- `op`: ATen's own device-generic kernel (views, quantized, sparse and nested
  bookkeeping), the one the installed torch registers for the CPU counterpart of
  the key, so the runtime never spells an at::native:: name a release may rename; or
- `op: function`: the runtime's own kernel, torch_fl::kernels::<function> in
  runtime/src/, declared by the generated file with the op's native signature.

The same file serves every vendor; a spec entry that registers one of its
PrivateUse1 ops would be registered twice, which the dispatcher refuses at load
time, so it is an error here, at the entry's line.
"""
from __future__ import annotations

import os

from . import source, spec_file
from .source import Mapping, Node, Scalar, Sequence
from .aten import AtenRegistry
from .errors import ErrorSink, Location, did_you_mean
from .limits import SPEC_BYTES
from .plan_model import AtenKernel, Provenance
from .spec_reader import IDENTIFIER, Reader

ATEN_KERNELS = "runtime/aten_kernels.yaml"
# The device's dispatch keys, each with the CPU key whose kernels it takes.
CPU_COUNTERPART = {
    "PrivateUse1": "CPU",
    "QuantizedPrivateUse1": "QuantizedCPU",
    "SparsePrivateUse1": "SparseCPU",
    "NestedTensorPrivateUse1": "NestedTensorCPU",
}


def plan_aten_kernels(repo_root: str, aten: AtenRegistry, errors: ErrorSink,
                      spec_entries: dict[str, Location]) -> tuple[AtenKernel, ...]:
    """spec_entries: the spec's kernels (qualified name → its entry), checked for
    clashes with the PrivateUse1 ops of the file."""
    text = spec_file.read(os.path.join(repo_root, ATEN_KERNELS), ATEN_KERNELS, SPEC_BYTES, name="runtime file")
    reader = Reader(errors)
    root = reader.mapping(source.load(ATEN_KERNELS, text), "aten kernels", Location(ATEN_KERNELS))
    if root is None:
        return ()
    reader.check_keys(root, tuple(CPU_COUNTERPART), "runtime/aten_kernels.yaml (a device dispatch key)")
    kernels = []
    for key in root.keys():
        if key not in CPU_COUNTERPART:
            continue
        first: dict[str, Location] = {}
        for name, function, where in _entries(reader, root.get(key), key):
            if name in first:
                errors.add(where, f"'{name}' is listed twice under {key}", f"first at line {first[name].line}; keep one")
                continue
            first[name] = where
            kernel = _plan_one(key, name, function, where, aten, errors, spec_entries)
            if kernel is not None:
                kernels.append(kernel)
    return tuple(kernels)


def _entries(reader: Reader, node: Node | None, key: str) -> list[tuple[str, str | None, Location]]:
    """(op, the runtime's function or None, where) of each item under a key."""
    if node is None:
        return []
    if not isinstance(node, Sequence):
        reader.errors.add(node.location, f"'{key}' must be a list")
        return []
    entries = []
    for item in node.items:
        if isinstance(item, Scalar) and isinstance(item.value, str):
            entries.append((item.value, None, item.location))
        elif isinstance(item, Mapping) and len(item.keys()) == 1:
            name = item.keys()[0]
            function = reader.code(item.get(name), f"{key}.{name}", item.key_location(name), IDENTIFIER)
            if function is not None:
                entries.append((name, function, item.key_location(name)))
        else:
            reader.errors.add(item.location, f"each entry of '{key}' must be an op, or `op: function` for the "
                              "runtime's own kernel", "e.g. `- view` or `- resize_: resize_`")
    return entries


def _plan_one(key: str, name: str, function: str | None, where: Location, aten: AtenRegistry, errors: ErrorSink,
              spec_entries: dict[str, Location]) -> AtenKernel | None:
    op = aten.lookup(name)
    if op is None:
        errors.add(where, f"'{name}' is not an ATen op of this torch", did_you_mean(name, aten.names()))
        return None
    clash = spec_entries.get(name) if key == "PrivateUse1" else None
    if clash is not None:
        errors.add(clash, f"'{name}' is registered by the runtime on every device ({ATEN_KERNELS}:{where.line})",
                   "remove this entry")
    source_line = Provenance(ATEN_KERNELS, where.line)
    if function is not None:
        return AtenKernel(dispatch_key=key, aten=op, kernel=function, runtime=True, overloaded=False,
                          source=source_line)
    cpu_key = CPU_COUNTERPART[key]
    kernel = aten.dispatch_kernel(name, cpu_key)
    if kernel is None:
        errors.add(where, f"this torch registers no {cpu_key} kernel for '{name}' to take for {key}",
                   "ATen's composite kernel serves every device: remove this entry" if aten.composite(name) else
                   f"implement it in runtime/src/ and name it: `- {name}: <function>`")
        return None
    if aten.structured(name):
        errors.add(where, f"'{name}''s {cpu_key} kernel is structured (at::native::{kernel} is a class, "
                   "not a function)", f"register its functional or in-place overload, or implement it in "
                   f"runtime/src/ and name it: `- {name}: <function>`")
        return None
    return AtenKernel(dispatch_key=key, aten=op, kernel=kernel, runtime=False,
                      overloaded=len(aten.native_pointer_types(kernel)) > 1, source=source_line)
