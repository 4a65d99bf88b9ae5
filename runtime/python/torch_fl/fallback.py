"""What fell back to the CPU, seen from Python: per op and dtype, with the reason.

The runtime counts each fallback (runtime/src/fallback.cpp); forcing ops to the
fallback is forced_fallback's job.
"""
from __future__ import annotations

import json

from . import _backend


def records() -> list[dict]:
    """{"op", "dtype", "reason", "count"} of each (op, dtype, reason) that fell back since the last reset."""
    return json.loads(_backend.load().lib.tfl_fallback_stats_json().decode())


def fallback_stats() -> dict[str, dict[str, int]]:
    """CPU fallbacks so far: {op: {dtype: count}}."""
    stats: dict[str, dict[str, int]] = {}
    for record in records():
        per_dtype = stats.setdefault(record["op"], {})
        per_dtype[record["dtype"]] = per_dtype.get(record["dtype"], 0) + record["count"]
    return stats


def fallback_count() -> int:
    return sum(sum(d.values()) for d in fallback_stats().values())


def reset_fallback_stats() -> None:
    _backend.load().call("tfl_reset_fallback_stats")


def fallback_report() -> str:
    """A readable summary: ops by fallback count, with each one's dtype and reason."""
    ordered = sorted(records(), key=lambda r: -r["count"])
    if not ordered:
        return "no CPU fallbacks"
    lines = [f"{'count':>7}  {'op':<40} {'dtype':<10} reason"]
    lines += [f"{r['count']:>7}  {r['op']:<40} {r['dtype']:<10} {r['reason']}" for r in ordered]
    return "\n".join(lines)
