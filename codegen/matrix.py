"""The operator support matrix: which overload × dtype runs natively, falls back, or errors."""
from __future__ import annotations

import json
from dataclasses import dataclass

from torchgen.model import SchemaKind

from . import guards
from .plan_model import BackendPlan, KernelPlan
from .spec_model import FallbackPolicy, LayoutKind

# Columns of the matrix: the dtypes PyTorch's OpInfo tests exercise most.
MATRIX_DTYPES = ("float32", "float64", "float16", "bfloat16", "int8", "uint8", "int16", "int32", "int64",
                 "bool", "complex64")

_SHORT = {"native": "N", "fallback": "F", "error": "E"}


@dataclass(frozen=True, kw_only=True)
class MatrixRow:
    name: str
    source: str
    sdk_call: str
    derived_from: str
    statuses: tuple[tuple[str, str], ...]  # (dtype, status)
    known_failure: str = ""
    guard: str = ""
    layouts: tuple[tuple[str, str], ...] = ()
    casts: tuple[tuple[str, str], ...] = ()  # (argument, dtype the SDK takes)
    functional: bool = True  # a functional ATen schema, not an out= or in-place variant
    schema: str = ""  # the ATen schema registered against, in this torch
    # (argument, overload): a Python number for the argument goes by value through that overload's call
    scalar_form: tuple[str, str] = ()
    # The argument whose dtype is the row's dtype: the first operand the kernel's dtype
    # decision reads (where.self's `self`, not its boolean `condition`). What a tool
    # attributing a call to a cell of this row must look at.
    dtype_argument: str = ""
    # The private format the kernel reads and writes (`format:`): its name, and
    # the arguments it takes and results it makes or keeps in it.
    private_format: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def format_text(self) -> str:
        """"NC1HWC0: takes input, makes out", or "" for a public-only kernel."""
        if not self.private_format:
            return ""
        (_, (name,)), *parts = self.private_format
        return f"{name}: " + "; ".join(f"{key} {', '.join(names)}" for key, names in parts if names)


@dataclass(frozen=True, kw_only=True)
class CustomOpRow:
    name: str  # as called: torch.ops.<vendor>.<name>
    schema: str
    source: str
    sdk_call: str
    statuses: tuple[tuple[str, str], ...]
    backward: str  # the backward op's schema, or "" without autograd
    reference: str


@dataclass(frozen=True, kw_only=True)
class SupportMatrix:
    vendor: str
    device: str
    torch_version: str
    spec: str
    spec_sha256: str
    rows: tuple[MatrixRow, ...]
    dtype_columns: tuple[str, ...] = MATRIX_DTYPES
    custom_ops: tuple[CustomOpRow, ...] = ()
    gated: tuple[tuple[str, str, str], ...] = ()  # (overload, gate, source) not registered for this torch
    libraries: tuple[tuple[str, str], ...] = ()  # (namespace, version) of other libraries' ops in rows

    def annotation(self, row: MatrixRow, dtype: str) -> str:
        """What a tool that measured the backend adds to a cell (and to its HTML
        class); the declared matrix adds nothing. The generator knows no more of
        measurements than this hook (tests/conformance_tool/ overrides it)."""
        return ""

    def cell(self, row: MatrixRow, dtype: str) -> str:
        """The Markdown/HTML cell: status letter, plus the annotation if any."""
        status = dict(row.statuses)[dtype]
        annotation = self.annotation(row, dtype)
        return f"{_SHORT[status]} {annotation}" if annotation else _SHORT[status]

    @property
    def native_overloads(self) -> int:
        return sum(1 for r in self.rows if _is_native(r))

    @property
    def native_functional_overloads(self) -> int:
        """What a vendor's coverage is measured by: out= and in-place forms come with their functional op."""
        return sum(1 for r in self.rows if _is_native(r) and r.functional)

    @property
    def native_variant_overloads(self) -> int:
        return self.native_overloads - self.native_functional_overloads


def _is_native(row: MatrixRow) -> bool:
    return any(status == "native" for _, status in row.statuses)


def _status(kernel: KernelPlan, dtype: str) -> str:
    if kernel.launch is not None and dtype in kernel.dtypes.native:
        return "native"
    if kernel.dtypes.fallback == FallbackPolicy.ERROR or dtype in kernel.dtypes.error_dtypes:
        return "error"
    return "fallback"


def _layout_text(rule) -> str:
    if rule.kind == LayoutKind.ALIGNED:
        return f"aligned {rule.alignment}"
    if rule.kind == LayoutKind.CONVERT:
        return f"convert {rule.converter}" + (" (reused while unchanged)" if rule.reuse else "")
    return rule.kind.value


def _dtype_argument(kernel: KernelPlan) -> str:
    decision = kernel.dtype_decision
    for tensor in decision.operands + decision.index_like:
        return tensor.name
    return decision.outputs[0] if decision.outputs else ""


def _format(kernel: KernelPlan) -> tuple[tuple[str, tuple[str, ...]], ...]:
    rule = kernel.private_format
    if rule is None:
        return ()
    return (("name", (rule.format.name,)), ("takes", rule.takes), ("makes", rule.makes), ("keeps", rule.keeps))


def build(plan: BackendPlan) -> SupportMatrix:
    rows = []
    for kernel in sorted(plan.kernels, key=lambda k: k.qualified_name):
        rows.append(MatrixRow(name=kernel.qualified_name, source=str(kernel.provenance),
                              sdk_call=kernel.launch.call_text if kernel.launch else "",
                              derived_from=kernel.derived_from or "",
                              statuses=tuple((d, _status(kernel, d)) for d in MATRIX_DTYPES),
                              known_failure=kernel.known_failure or "",
                              guard=guards.to_text(kernel.guard) if kernel.guard is not None else "",
                              layouts=tuple((r.argument, _layout_text(r)) for r in kernel.layouts),
                              casts=tuple((c.argument, c.dtype) for c in kernel.casts),
                              functional=kernel.aten.kind == SchemaKind.functional, schema=str(kernel.aten.schema),
                              scalar_form=((kernel.scalar_form.argument, kernel.scalar_form.entry)
                                           if kernel.scalar_form else ()),
                              dtype_argument=_dtype_argument(kernel), private_format=_format(kernel)))
    custom = tuple(
        CustomOpRow(name=custom.forward.aten.name, schema=custom.schema, source=str(custom.forward.provenance),
                    sdk_call=custom.forward.launch.call_text,
                    statuses=tuple((d, "native" if d in custom.forward.dtypes.native else "error")
                                   for d in MATRIX_DTYPES),
                    backward=custom.backward_schema or "", reference=custom.reference or "")
        for custom in plan.custom_ops)
    return SupportMatrix(vendor=plan.vendor, device=plan.device, torch_version=plan.torch_version, spec=plan.spec_path,
                         spec_sha256=plan.spec_sha256, rows=tuple(rows), custom_ops=custom, gated=plan.gated,
                         libraries=plan.libraries)


# MatrixRow fields a row's JSON carries only when set, in this order, under these keys
# (layouts and casts, stored as pairs, become objects).
_OPTIONAL_ROW_FIELDS = (("dtype_argument", "dtype_from"), ("schema", "schema"), ("sdk_call", "sdk_call"),
                        ("derived_from", "derived_from"), ("known_failure", "known_failure"), ("guard", "guard"),
                        ("layouts", "layout"), ("casts", "cast"))


def to_document(matrix: SupportMatrix) -> dict:
    """The JSON document of the matrix (the contract's shape), as a dict a tool may extend."""
    ops = []
    for row in matrix.rows:
        entry = {"name": row.name, "dtypes": dict(row.statuses), "source": row.source}
        for field, key in _OPTIONAL_ROW_FIELDS:
            if value := getattr(row, field):
                entry[key] = dict(value) if field in ("layouts", "casts") else value
        if row.private_format:
            entry["format"] = {key: names[0] if key == "name" else list(names) for key, names in row.private_format}
        if row.scalar_form:
            argument, through = row.scalar_form
            entry["python_number"] = {"argument": argument, "by_value_through": through}
        ops.append(entry)
    return {
        "vendor": matrix.vendor,
        "device": matrix.device,
        "torch_version": matrix.torch_version,
        "spec": matrix.spec,
        "spec_sha256": matrix.spec_sha256,
        "native_overloads": matrix.native_overloads,
        "native_functional_overloads": matrix.native_functional_overloads,
        "native_variant_overloads": matrix.native_variant_overloads,
        "ops": ops,
        "gated": [{"name": n, "requires": g, "source": src} for n, g, src in matrix.gated],
        "libraries": dict(matrix.libraries),
        "custom_ops": [
            {"name": c.name, "namespace": matrix.vendor, "schema": c.schema, "dtypes": dict(c.statuses),
             "source": c.source, "sdk_call": c.sdk_call, "autograd": c.backward, "reference": c.reference}
            for c in matrix.custom_ops],
    }


def document_json(document: dict) -> str:
    return json.dumps(document, indent=2, sort_keys=False) + "\n"


def to_json(matrix: SupportMatrix) -> str:
    return document_json(to_document(matrix))
