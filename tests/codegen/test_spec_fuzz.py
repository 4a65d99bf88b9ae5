"""Fuzzing the spec front end (strategies and oracle in spec_fuzzing.py): every
hostile spec either generates C++ in which no spec text became code, or is
refused with one line per error; never a traceback or a hang, and never a
change to generated/ (runs write to a temporary --out).

The normal test run spends TORCH_FL_FUZZ_SECONDS (default 30) on it; `make
fuzz` spends longer (FUZZ_SECONDS) and also compiles, with g++
-fsyntax-only, the C++ of accepted specs that differs from the real spec's
(TORCH_FL_FUZZ_COMPILE=1)."""
from __future__ import annotations

import collections
import os
import shutil
import time

from conftest import REPO_ROOT
from hypothesis import HealthCheck, given, settings
from spec_fuzzing import (SPEC_TEXT, SPECS, VENDORS, assert_compiles, changed_cpp, check_run, compilable_vendors,
                          generate, tree_digest)

FUZZ_SECONDS = float(os.environ.get("TORCH_FL_FUZZ_SECONDS", "30"))
COMPILE = os.environ.get("TORCH_FL_FUZZ_COMPILE") == "1"
# Examples per hypothesis run: runs repeat until the time is spent.
BATCH = 25


def test_hostile_specs_generate_safe_code_or_spec_errors(tmp_path):
    generated = os.path.join(REPO_ROOT, "generated")
    generated_before = tree_digest(generated)
    spec_dir = tmp_path / "specs"
    shutil.copytree(os.path.join(REPO_ROOT, "specs", "common"), spec_dir / "common")
    out_dir = tmp_path / "out"

    def run(vendor: str, spec: bytes):
        shutil.rmtree(out_dir, ignore_errors=True)
        result = generate(str(spec_dir), vendor, spec, str(out_dir))
        check_run(result)
        return result

    baselines = {vendor: run(vendor, SPEC_TEXT[vendor].encode()).files for vendor in VENDORS}
    outcomes: collections.Counter = collections.Counter()
    accepted = []  # (vendor, spec, changed C++) of accepted specs, to sample for compiling

    # Deterministic (hypothesis replays examples to shrink a failure): no clocks in here.
    @settings(max_examples=BATCH, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(SPECS)
    def batch(example):
        vendor, spec = example
        result = run(vendor, spec)
        outcomes[f"exit {result.status}"] += 1
        changed = changed_cpp(result, baselines[vendor]) if COMPILE and result.status == 0 else {}
        if changed:
            accepted.append((vendor, spec, changed))

    started = time.monotonic()
    compilable = compilable_vendors(baselines) if COMPILE else set()
    compile_seconds = 0.0
    while time.monotonic() < started + FUZZ_SECONDS:
        accepted.clear()
        batch()
        # The latest accepted spec of the batch, while compiling takes at most half of the time.
        candidates = [a for a in accepted if a[0] in compilable]
        if candidates and compile_seconds < (time.monotonic() - started) / 2:
            vendor, spec, changed = candidates[-1]
            compiling = time.monotonic()
            assert_compiles(changed, vendor, spec, tmp_path)
            compile_seconds += time.monotonic() - compiling
            outcomes["compiled"] += 1
    assert tree_digest(generated) == generated_before, "fuzzing changed generated/"
    print(f"fuzz: {sum(n for k, n in outcomes.items() if k.startswith('exit'))} specs in "
          f"{time.monotonic() - started:.0f} s: {dict(outcomes)}")
