"""The op inventory of a workload: every ATen overload that reached the device,
how often, and whether it ran natively or on the CPU fallback (with the
reason), beside the spec line that declares it. `torch-fl inventory -- python
train.py` runs a script under it; `with OpInventory() as inventory:` in code.

Each call is classified by whether the fallback counters moved during it, so
an overload can show both (a native kernel whose guard or dtype sent some
calls to the CPU). The bookkeeping costs tens of microseconds per op: this is
a porting tool, not a profiler."""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

from . import _backend, device_module, fallback


@dataclass
class OverloadUse:
    overload: str                       # "aten::add.Tensor"
    calls: int = 0
    fallback_calls: int = 0
    reasons: Counter = field(default_factory=Counter)
    spec_source: str = ""               # "specs/mlu.yaml:31", or "" when the spec does not declare it

    @property
    def native_calls(self) -> int:
        return self.calls - self.fallback_calls


def _spec_sources() -> dict[str, str]:
    with open(_backend.data_file(_backend.load().vendor, "support_matrix.json")) as f:
        matrix = json.load(f)
    return {f"aten::{row['name']}": row.get("source", "") for row in matrix["ops"]}


def _fallback_counts() -> Counter:
    return Counter({(r["op"], r["reason"]): r["count"] for r in fallback.records()})


class OpInventory(TorchDispatchMode):
    def __init__(self) -> None:
        super().__init__()
        self.device_type = _backend.load().device
        self.uses: dict[str, OverloadUse] = {}
        self._sources = _spec_sources()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        on_device = any(isinstance(a, torch.Tensor) and a.device.type == self.device_type
                        for a in tree_flatten((args, kwargs))[0])
        if not on_device:
            return func(*args, **kwargs)
        before = _fallback_counts()
        try:
            return func(*args, **kwargs)
        finally:
            self._record(func, _fallback_counts() - before)

    def _record(self, func, fallbacks: Counter) -> None:
        name = f"aten::{func._opname}" + ("" if func._overloadname == "default" else f".{func._overloadname}")
        use = self.uses.setdefault(name, OverloadUse(name, spec_source=self._sources.get(name, "")))
        use.calls += 1
        if fallbacks:
            use.fallback_calls += 1
            for (_, reason), _count in fallbacks.items():
                use.reasons[reason] += 1

    def report(self) -> dict:
        rows = sorted(self.uses.values(), key=lambda u: (-u.fallback_calls, -u.calls, u.overload))
        calls = sum(u.calls for u in rows)
        fallback_calls = sum(u.fallback_calls for u in rows)
        return {
            "vendor": _backend.load().vendor,
            "overloads": len(rows),
            "calls": calls,
            "fallback_calls": fallback_calls,
            "fallback_share": round(fallback_calls / calls, 4) if calls else 0.0,
            "ops": [{"overload": u.overload, "calls": u.calls, "native_calls": u.native_calls,
                     "fallback_calls": u.fallback_calls, "reasons": dict(u.reasons), "spec": u.spec_source}
                    for u in rows],
        }


def format_report(report: dict) -> str:
    lines = [f"{'calls':>8} {'native':>8} {'fallback':>8}  {'overload':<44} reason / spec line"]
    for row in report["ops"]:
        why = ", ".join(f"{reason} ({n})" for reason, n in row["reasons"].items()) or row["spec"] or "-"
        lines.append(f"{row['calls']:>8} {row['native_calls']:>8} {row['fallback_calls']:>8}  "
                     f"{row['overload']:<44} {why}")
    lines.append(f"{report['overloads']} overloads, {report['calls']} calls on {report['vendor']}, "
                 f"{report['fallback_calls']} on the CPU fallback ({100 * report['fallback_share']:.1f}%)")
    return "\n".join(lines)
