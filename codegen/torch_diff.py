"""What changed in ATen between two torch releases, and which spec entries each
change touches: what a vendor reads before moving to a new torch
(`make diff-torch FROM=2.13.0 TO=2.14.1`, or `python -m codegen diff-torch A.yaml B.yaml`).

It compares the two releases' native_functions.yaml as text, overload by overload,
so it needs neither torch installed: each release's file comes from its own
environment. A schema "changed" when its text differs (an argument added, renamed,
retyped or given a new default, a return changed)."""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import yaml

from . import layering, spec_parser
from .spec_model import VendorSpec


@dataclass(frozen=True)
class SpecEntry:
    vendor: str
    op: str  # the spec's key, e.g. add.Tensor
    location: str  # specs/<vendor>.yaml:line
    gated: bool  # the entry has a `torch:` version gate


@dataclass
class SchemaChange:
    overload: str  # e.g. aten::add.Tensor
    kind: str  # added | removed | changed
    before: str | None
    after: str | None
    touches: list[SpecEntry] = field(default_factory=list)


@dataclass
class TorchDiff:
    before: str  # the two releases' names (versions, or file paths)
    after: str
    changes: list[SchemaChange]

    def count(self, kind: str) -> int:
        return sum(1 for c in self.changes if c.kind == kind)


def read_schemas(native_functions_path: str) -> dict[str, str]:
    """overload name (e.g. add.Tensor) → its schema text."""
    with open(native_functions_path) as f:
        entries = yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    return {entry["func"][: entry["func"].index("(")]: " ".join(entry["func"].split()) for entry in entries}


def family(overload: str) -> str:
    """add_.Tensor, add.out, add.Tensor → add: a spec entry derives its in-place and out= variants."""
    return overload.split(".")[0].rstrip("_")


def diff(before: dict[str, str], after: dict[str, str], specs: list[VendorSpec],
         before_name: str, after_name: str) -> TorchDiff:
    changes = [SchemaChange(f"aten::{name}", "removed", before[name], None) for name in sorted(before.keys() - after.keys())]
    changes += [SchemaChange(f"aten::{name}", "added", None, after[name]) for name in sorted(after.keys() - before.keys())]
    changes += [SchemaChange(f"aten::{name}", "changed", before[name], after[name])
                for name in sorted(before.keys() & after.keys()) if before[name] != after[name]]
    by_family: dict[str, list[SpecEntry]] = {}
    for spec in specs:
        for op in spec.ops:
            entry = SpecEntry(spec.vendor, op.name, f"{op.location.path}:{op.location.line}", op.torch_versions is not None)
            by_family.setdefault(family(op.name), []).append(entry)
    for change in changes:
        name = change.overload.split("::", 1)[1]
        # every entry of the family: a changed add.out changes what add.Tensor's out= variant registers
        change.touches = list(by_family.get(family(name), []))
    changes.sort(key=lambda c: (not c.touches, c.kind, c.overload))
    return TorchDiff(before_name, after_name, changes)


def load_specs(repo_root: str) -> list[VendorSpec]:
    specs = []
    specs_dir = os.path.join(repo_root, "specs")
    for name in sorted(f for f in os.listdir(specs_dir) if f.endswith(".yaml")):
        rel = os.path.join("specs", name)
        root, _ = layering.load(os.path.join(repo_root, rel), rel)
        specs.append(spec_parser.parse(rel, root))
    return specs


def format_report(result: TorchDiff) -> list[str]:
    touched = [c for c in result.changes if c.touches]
    lines = [f"ATen from torch {result.before} to {result.after}: {result.count('added')} overloads added, "
             f"{result.count('removed')} removed, {result.count('changed')} changed; "
             f"{len(touched)} of them touch a spec entry"]
    if touched:
        lines.append("")
        lines.append("Touching the specs (read these before upgrading):")
    for change in touched:
        lines.append(f"  {change.kind:8} {change.overload}")
        if change.before:
            lines.append(f"             {result.before}: {change.before}")
        if change.after:
            lines.append(f"             {result.after}: {change.after}")
        for entry in change.touches:
            gate = " (version-gated)" if entry.gated else ""
            lines.append(f"             spec: {entry.location} {entry.vendor} `{entry.op}`{gate}")
    rest = [c for c in result.changes if not c.touches]
    if rest:
        lines.append("")
        lines.append("Not in any spec:")
        lines.extend(f"  {c.kind:8} {c.overload}" + (f"  {c.after}" if c.kind != "removed" else "") for c in rest)
    return lines


def as_json(result: TorchDiff) -> dict:
    return {"before": result.before, "after": result.after,
            "counts": {k: result.count(k) for k in ("added", "removed", "changed")},
            "changes": [{"overload": c.overload, "kind": c.kind, "before": c.before, "after": c.after,
                         "touches": [e.__dict__ for e in c.touches]} for c in result.changes]}


def _qualified(name: str) -> str:
    """A matrix row's name as an operator: add.Tensor → aten::add.Tensor; torchvision::nms stays."""
    return name if "::" in name else f"aten::{name}"


def notes_against_reference(reference: dict, current: dict) -> list[str]:
    """Generating for another torch: each registered overload whose schema differs from the
    reference build's (generated/<vendor>/support_matrix.json, the default torch's), and
    overloads registered in one build and not the other (a version gate, or ATen changed).
    None for the same torch (a spec generated elsewhere than generated/): what differs
    then is the spec, not the release."""
    before = {op["name"]: op for op in reference.get("ops", [])}
    after = {op["name"]: op for op in current.get("ops", [])}
    old, new = reference.get("torch_version", "?"), current.get("torch_version", "?")
    if old == new:
        return []
    notes = []
    for name in sorted(before.keys() & after.keys()):
        a, b = before[name].get("schema"), after[name].get("schema")
        if a and b and a != b:
            notes.append(f"note: {after[name]['source']}: {_qualified(name)}: the schema changed from torch {old} to {new}: "
                         f"`{a}` → `{b}`; a change the kernel carries (codegen/schema_drift.py): it is generated against torch {new}'s")
    for name in sorted(before.keys() - after.keys()):
        notes.append(f"note: {before[name]['source']}: {_qualified(name)} is registered for torch {old} but not for {new}")
    for name in sorted(after.keys() - before.keys()):
        notes.append(f"note: {after[name]['source']}: {_qualified(name)} is registered for torch {new} but not for {old}")
    return notes
