"""runtime/aten_kernels.yaml → the AtenKernels every backend registers: ATen's own
device-generic kernels (views, quantized, sparse and nested bookkeeping) for the
device's dispatch keys. The file lists op names; each op's kernel is the one the
installed torch registers for the CPU counterpart of the key, so the runtime never
spells an at::native:: name that a torch release may rename.

The same file serves every vendor; a spec entry that registers one of its
PrivateUse1 ops would be registered twice, which the dispatcher refuses at load
time, so it is an error here, at the entry's line.
"""
from __future__ import annotations

import os

from . import source, spec_file
from .aten import AtenRegistry
from .errors import ErrorSink, Location, did_you_mean
from .limits import SPEC_BYTES
from .plan_model import AtenKernel, Provenance
from .spec_reader import Reader

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
        for name, where in reader.string_list(root.get(key), key):
            kernel = _plan_one(key, name, where, aten, errors, spec_entries)
            if kernel is not None:
                kernels.append(kernel)
    return tuple(kernels)


def _plan_one(key: str, name: str, where: Location, aten: AtenRegistry, errors: ErrorSink,
              spec_entries: dict[str, Location]) -> AtenKernel | None:
    op = aten.lookup(name)
    if op is None:
        errors.add(where, f"'{name}' is not an ATen op of this torch", did_you_mean(name, aten.names()))
        return None
    cpu_key = CPU_COUNTERPART[key]
    kernel = aten.dispatch_kernel(name, cpu_key)
    if kernel is None:
        errors.add(where, f"this torch registers no {cpu_key} kernel for '{name}' to take for {key}",
                   "implement it in runtime/src/ and register it there")
        return None
    clash = spec_entries.get(name) if key == "PrivateUse1" else None
    if clash is not None:
        errors.add(clash, f"'{name}' is ATen's own kernel on every device ({ATEN_KERNELS}:{where.line})",
                   "remove this entry")
    return AtenKernel(dispatch_key=key, aten=op, kernel=kernel, overloaded=len(aten.native_pointer_types(kernel)) > 1,
                      source=Provenance(ATEN_KERNELS, where.line))
