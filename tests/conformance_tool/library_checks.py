"""Other libraries' ops (`namespaces:` rows of the matrix, named `torchvision::nms`)
have no OpInfo: they are verified against the library's own CPU kernels by the
Python suite's tests for them (tests/python/test_<namespace>_ops.py), forward and
backward, each of which also checks that the device ran the op natively. This
runs those tests once and files each test's outcome under the (op, dtype) it
covers: a test named `test_<op>_...` covers <op> (a test of a fallback must not be
named so), and a backward op is judged by its forward's tests (torchvision's
autograd reaches it there); the dtype is the one in the test's id (float32
where the id names none)."""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree

from verdicts import FAILED, STRICT, UNTESTED, Verdict

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DTYPE_IDS = ("float32", "float16", "bfloat16", "float64")


def library_rows(matrix: dict) -> list[dict]:
    return [row for row in matrix["ops"] if "::" in row["name"]]


def forward_name(op: str) -> str:
    """torchvision::_roi_align_backward → roi_align: the op whose tests reach it."""
    name = op.split("::", 1)[1]
    return name.removeprefix("_").removesuffix("_backward")


def _dtype_of(test: str) -> str:
    """The dtype among a parametrized test's id parts (`[False--1-float16]`), else float32."""
    parts = test.partition("[")[2].rstrip("]").split("-")
    return next((part for part in parts if part in DTYPE_IDS), "float32")


def _outcomes(namespace: str) -> dict[str, bool]:
    """test id → passed, for the namespace's test file (skipped tests are left out)."""
    path = os.path.join(REPO_ROOT, "tests", "python", f"test_{namespace}_ops.py")
    with tempfile.TemporaryDirectory() as scratch:
        report = os.path.join(scratch, "junit.xml")
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", path,
                        f"--junitxml={report}"], capture_output=True, text=True, cwd=REPO_ROOT)
        if not os.path.exists(report):
            return {}
        outcomes = {}
        for case in ElementTree.parse(report).iter("testcase"):
            if case.find("skipped") is not None:
                continue
            outcomes[case.get("name")] = case.find("failure") is None and case.find("error") is None
        return outcomes


def check(matrix: dict) -> list[Verdict]:
    rows = library_rows(matrix)
    outcomes: dict[str, dict[str, bool]] = {}
    verdicts = []
    for row in rows:
        namespace = row["name"].split("::", 1)[0]
        if namespace not in outcomes:
            outcomes[namespace] = _outcomes(namespace)
        base = forward_name(row["name"])
        for dtype, status in sorted(row["dtypes"].items()):
            if status != "native":
                continue
            verdict = Verdict(row["name"], dtype)
            covering = {test: passed for test, passed in outcomes[namespace].items()
                        if test.startswith(f"test_{base}_") and _dtype_of(test) == dtype}
            verdict.samples = len(covering)
            verdict.opinfos = sorted(covering)
            failed = sorted(test for test, passed in covering.items() if not passed)
            if failed:
                verdict.verdict, verdict.detail = FAILED, f"{failed[0]} failed (tests/python/test_{namespace}_ops.py)"
            elif covering:
                verdict.verdict = STRICT
                verdict.detail = f"against {namespace}'s CPU kernel: {len(covering)} tests"
            else:
                verdict.verdict = UNTESTED
            verdicts.append(verdict)
    return verdicts
