"""A spec with thousands of errors is reported in linear time: the first 100
errors in full (with suggestions), the rest as a count."""
from __future__ import annotations

import subprocess
import sys
import time

from conftest import REPO_ROOT
from test_spec_errors import VALID_SPEC

UNKNOWN_OPS = 16_000
# Generous for a loaded 2-core machine; the quadratic de-duplication and a
# difflib search per error took minutes here.
TIME_BOUND_S = 30


def test_sixteen_thousand_unknown_ops_are_reported_in_seconds(tmp_path):
    spec = tmp_path / "many.yaml"
    spec.write_text(VALID_SPEC + "".join(f"  nosuchop{i}: {{fallback: cpu}}\n" for i in range(UNKNOWN_OPS)))
    out_dir = tmp_path / "out"
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "codegen", "generate", "--vendor", "mlu", "--spec", str(spec),
                             "--out", str(out_dir)], cwd=REPO_ROOT, capture_output=True, text=True,
                            timeout=TIME_BOUND_S)
    elapsed = time.monotonic() - started
    assert result.returncode == 2, result.stderr[-2000:]
    lines = result.stderr.splitlines()
    errors = [line for line in lines if line.startswith("error: ")]
    assert len(errors) == 100, f"{len(errors)} error lines"
    assert errors[0].startswith("error: ") and "many.yaml:20:3: unknown ATen overload 'nosuchop0'" in errors[0]
    assert f"... and {UNKNOWN_OPS - 100} more errors" in lines
    assert lines[-1] == f"{UNKNOWN_OPS} error(s); nothing was written"
    assert not out_dir.exists()
    print(f"{UNKNOWN_OPS} unknown ops reported in {elapsed:.1f} s")


def test_the_reported_errors_keep_their_suggestions(tmp_path):
    spec = tmp_path / "typos.yaml"
    spec.write_text(VALID_SPEC + "  add.Tensr: {fallback: cpu}\n"
                    + "".join(f"  nosuchop{i}: {{fallback: cpu}}\n" for i in range(150)))
    result = subprocess.run([sys.executable, "-m", "codegen", "generate", "--vendor", "mlu", "--spec", str(spec),
                             "--out", str(tmp_path / "out")], cwd=REPO_ROOT, capture_output=True, text=True,
                            timeout=TIME_BOUND_S)
    assert result.returncode == 2
    assert "typos.yaml:20:3: unknown ATen overload 'add.Tensr' (did you mean 'add.Tensor'?)" in result.stderr
    assert "... and 51 more errors" in result.stderr.splitlines()
