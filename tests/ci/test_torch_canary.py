""".ci/torch_canary.py without a download: the release listed in the clone, what each step's
output yields for the report, and the report's verdict and line."""
from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", ".ci"))
import torch_canary  # noqa: E402

PYTEST_OUTPUT = """\
....F..s
FAILED tests/python/test_accelerator_only_ops.py::test_audit - AssertionError: _scaled_addmm.out
1 failed, 1925 passed, 1010 skipped in 480.20s (0:08:00)
"""
CTEST_OUTPUT = """\
99% tests passed, 1 tests failed out of 89
The following tests FAILED:
\t 61 - DeviceTracer.PlacesDeviceWorkOnTheHostClockInLaunchOrder (Failed)
"""
DIFF_OUTPUT = """\
ATen from torch 2.13.0 to 2.15.0: 10 overloads added, 4 removed, 3 changed; 1 of them touch a spec entry

Touching the specs (read these before upgrading):
  changed  aten::add.Tensor
             spec: specs/mlu.yaml:36 mlu `add`

Not in any spec:
  added    aten::linalg_polar  linalg_polar(Tensor A) -> (Tensor U, Tensor H)
  removed  aten::qr
"""


def test_the_release_is_added_to_the_clones_list_once(tmp_path):
    (tmp_path / ".ci").mkdir()
    (tmp_path / ".ci" / "torch_versions").write_text("2.13.0 | - | the default\n")
    assert torch_canary.list_release(str(tmp_path), "2.16.0")
    assert not torch_canary.list_release(str(tmp_path), "2.16.0")
    assert [line.split(" | ")[0] for line in (tmp_path / ".ci" / "torch_versions").read_text().splitlines()] == [
        "2.13.0", "2.16.0"]


def test_failures_and_counts_are_read_from_pytest_and_ctest():
    assert torch_canary.findings(PYTEST_OUTPUT, failed=True) == [
        "FAILED tests/python/test_accelerator_only_ops.py::test_audit - AssertionError: _scaled_addmm.out",
        "1 failed, 1925 passed, 1010 skipped in 480.20s (0:08:00)"]
    assert torch_canary.findings(CTEST_OUTPUT, failed=True) == [
        "61 - DeviceTracer.PlacesDeviceWorkOnTheHostClockInLaunchOrder (Failed)"]
    # a failure no pattern knows (a compiler's crash, a missing package) shows its last lines
    assert torch_canary.findings("a\nb\nSegmentation fault", failed=True)[-1] == "Segmentation fault"
    assert torch_canary.findings("nothing to see", failed=False) == []


def test_the_diff_keeps_the_changes_touching_a_spec_and_counts_the_rest():
    assert torch_canary.diff_findings(DIFF_OUTPUT, failed=False) == [
        "ATen from torch 2.13.0 to 2.15.0: 10 overloads added, 4 removed, 3 changed; 1 of them touch a spec entry",
        "Touching the specs (read these before upgrading):", "  changed  aten::add.Tensor",
        "             spec: specs/mlu.yaml:36 mlu `add`",
        "(2 overloads added, removed or changed touch no spec: listed in the log)"]


def steps(*statuses: str) -> list[torch_canary.Step]:
    made = []
    for number, status in enumerate(statuses):
        step = torch_canary.Step(f"step {number}", ["true"], status=status, seconds=1.0, log="/tmp/x.log")
        step.findings = [f"finding {number}"]
        made.append(step)
    return made


def test_the_report_gives_the_line_to_add_and_says_whether_to_fix_first():
    passing = torch_canary.report("2.16.0", "mlu", False, steps("passed", "passed"))
    assert "- step 0: passed in 1 s\n    finding 0" in passing
    assert "Everything passed" in passing and "  2.16.0 | - |" in passing
    failing = torch_canary.report("2.16.0", "mlu", False, steps("passed", "FAILED", "not run"))
    assert "- step 1: FAILED in 1 s" in failing and "- step 2: not run\n" in failing
    assert "Fix what failed above" in failing and "  2.16.0 | - |" in failing
    listed = torch_canary.report("2.15.0", "mlu", True, steps("passed"))
    assert "is in .ci/torch_versions already" in listed and "| - |" not in listed
