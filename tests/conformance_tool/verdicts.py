"""From per-sample records to a verdict per overload × dtype.

STRICT   every sample phase that invoked the overload passed, natively, with CPU's
         strides, and the backward of each forward sample passed (or the op/dtype has none);
BASIC    the values are right, but a backward failed or could not run, or an output's
         strides differ from CPU's (dimensions longer than 1);
FAILED   a wrong result, a crash, or a CPU fallback of an overload declared native;
UNTESTED no OpInfo sample invoked the overload at that dtype.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

STRICT, BASIC, FAILED, UNTESTED = "STRICT", "BASIC", "FAILED", "UNTESTED"


@dataclass
class Verdict:
    overload: str
    dtype: str
    verdict: str = UNTESTED
    samples: int = 0
    detail: str = ""
    known_failure: Optional[str] = None
    opinfos: list[str] = field(default_factory=list)


def decide(overload: str, dtype: str, records: list[dict], known_failure: Optional[str]) -> Verdict:
    key = [overload, dtype]
    verdict = Verdict(overload, dtype, known_failure=known_failure)
    # A call that took a declared fallback (guard, layout) did not run natively.
    # Where the backend said what ran natively (`native`), that decides; the overloads a
    # dispatch recorder saw called (`invoked`) stand in for records without it. A failed
    # phase also counts where the overload was called: it may have raised on its native
    # path before it launched (a workspace query the SDK refused, an out-of-memory).
    touching = [r for r in records if (key in r.get("native", r["invoked"]) or (not r["ok"] and key in r["invoked"]))
                and key not in r.get("declared_fallbacks", [])]
    fell_back = [r for r in records if key in r["fallbacks"]]
    verdict.samples = len(touching)
    verdict.opinfos = sorted({r["opinfo"] + (":" + r["variant"] if r["variant"] else "") for r in touching})
    if fell_back:
        verdict.verdict, verdict.detail = FAILED, f"fell back to CPU in {fell_back[0]['opinfo']}"
        return verdict
    failures = [r for r in touching if not r["ok"]]
    if failures:
        first = failures[0]
        verdict.verdict = FAILED
        verdict.detail = f"{first['opinfo']} sample {first['sample']} ({first['phase']}): {first['error']}"
        return verdict
    if not touching:
        return verdict
    # Backward of the samples whose forward used the overload.
    backward = {(r["opinfo"], r["variant"], r["dtype"], r["sample"]): r for r in records if r["phase"] == "backward"}
    for r in touching:
        if r["phase"] != "forward":
            continue
        partner = backward.get((r["opinfo"], r["variant"], r["dtype"], r["sample"]))
        if partner is not None and not partner["ok"]:
            verdict.verdict = BASIC
            verdict.detail = f"backward of {r['opinfo']} sample {r['sample']}: {partner['error']}"
            return verdict
    strided = [r for r in touching if r.get("strides")]
    if strided:
        first = strided[0]
        verdict.verdict = BASIC
        verdict.detail = f"{first['opinfo']} sample {first['sample']} ({first['phase']}): {first['strides']}"
        return verdict
    verdict.verdict = STRICT
    return verdict


def keep_native_runs_meant(records: list[dict], expected: dict[str, set[str]]) -> None:
    """A record's native runs (and calls) count for the overloads its OpInfo is meant to
    verify; the others move to `native_elsewhere` and judge nothing (mm.out run inside
    linear's decomposition, where the bias add amplifies one rounding step)."""
    for record in records:
        if "native" in record:
            meant = expected.get(f"{record['opinfo']}:{record['variant']}", set())
            record["native_elsewhere"] = [key for key in record["native"] if key[0] not in meant]
            record["native"] = [key for key in record["native"] if key[0] in meant]
            record["invoked"] = [key for key in record["invoked"] if key[0] in meant]
