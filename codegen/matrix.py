"""The operator support matrix: which overload × dtype runs natively, falls back, or errors."""
from __future__ import annotations

import json
from dataclasses import dataclass

from .plan import BackendPlan, KernelPlan
from .spec import FallbackPolicy

# Columns of the matrix: the dtypes PyTorch's OpInfo tests exercise most.
MATRIX_DTYPES = ("float32", "float64", "float16", "bfloat16", "int8", "uint8", "int16", "int32", "int64",
                 "bool", "complex64")

_SHORT = {"native": "N", "fallback": "F", "error": "E"}


@dataclass(frozen=True)
class MatrixRow:
    name: str
    source: str
    sdk_call: str
    derived_from: str
    statuses: tuple[tuple[str, str], ...]  # (dtype, status)

    @property
    def cells(self) -> list[str]:
        return [_SHORT[s] for _, s in self.statuses]


@dataclass(frozen=True)
class SupportMatrix:
    vendor: str
    device: str
    torch_version: str
    spec: str
    spec_sha256: str
    rows: tuple[MatrixRow, ...]
    dtype_columns: tuple[str, ...] = MATRIX_DTYPES

    @property
    def native_overloads(self) -> int:
        return sum(1 for r in self.rows if any(s == "native" for _, s in r.statuses))


def _status(kernel: KernelPlan, dtype: str) -> str:
    if kernel.launch is not None and dtype in kernel.spec.dtypes:
        return "native"
    return "error" if kernel.spec.fallback == FallbackPolicy.ERROR else "fallback"


def build(plan: BackendPlan) -> SupportMatrix:
    rows = []
    for kernel in sorted(plan.kernels, key=lambda k: k.registration_name):
        loc = kernel.spec.location
        rows.append(MatrixRow(kernel.registration_name, f"{loc.path}:{loc.line}",
                              kernel.launch.call_text if kernel.launch else "",
                              kernel.derived_from or "",
                              tuple((d, _status(kernel, d)) for d in MATRIX_DTYPES)))
    return SupportMatrix(plan.spec.vendor, plan.spec.device, plan.torch_version, plan.spec.path,
                         plan.spec_sha256, tuple(rows))


def to_json(matrix: SupportMatrix) -> str:
    ops = []
    for row in matrix.rows:
        entry = {"name": row.name, "dtypes": dict(row.statuses), "source": row.source}
        if row.sdk_call:
            entry["sdk_call"] = row.sdk_call
        if row.derived_from:
            entry["derived_from"] = row.derived_from
        ops.append(entry)
    document = {
        "vendor": matrix.vendor,
        "device": matrix.device,
        "torch_version": matrix.torch_version,
        "spec": matrix.spec,
        "spec_sha256": matrix.spec_sha256,
        "native_overloads": matrix.native_overloads,
        "ops": ops,
    }
    return json.dumps(document, indent=2, sort_keys=False) + "\n"
