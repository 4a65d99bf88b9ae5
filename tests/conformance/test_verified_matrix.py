"""The verified matrix the conformance tool writes: the declared matrix plus
verdicts, escaped in every page like the generator's own pages, and the
generator's declared pages unchanged by the tool's existence."""
from __future__ import annotations

import json
import os
import re

import verified_matrix
from conftest import REPO_ROOT

from codegen import matrix, render
from codegen.pipeline import load_plan

PROVENANCE = {"commit": "0123456789abcdef", "date": "2026-01-01", "torch_version": "2.13.0", "spec_sha256": "5" * 64}
HEADLINE = {"strict_percent": 50.0, "basic_or_better_percent": 75.0, "native_overloads": 2, "strict_pairs": 1,
            "basic_pairs": 1, "failed_pairs": 1, "untested_pairs": 0}


def verified(verdicts) -> verified_matrix.VerifiedMatrix:
    declared = matrix.build(load_plan(os.path.join(REPO_ROOT, "specs", "mlu.yaml"), REPO_ROOT))
    return verified_matrix.VerifiedMatrix.of(declared, verified_matrix.Conformance(PROVENANCE, HEADLINE, verdicts))


def test_verdicts_join_each_native_dtype_and_untested_fills_the_rest():
    pages = verified_matrix.pages(verified({("mm", "float32"): ("FAILED", "wrong values")}), "banner")
    document = json.loads(pages["support_matrix.json"])
    assert list(document)[list(document).index("ops") - 1] == "conformance"
    mm = next(op for op in document["ops"] if op["name"] == "mm")
    assert list(mm)[:4] == ["name", "dtypes", "source", "verdict"], "verdicts follow the source, as before"
    assert mm["verdict"]["float32"] == "FAILED" and mm["verdict_detail"] == {"float32": "wrong values"}
    assert set(mm["verdict"]) == {d for d, s in mm["dtypes"].items() if s == "native"}
    assert set(mm["verdict"].values()) == {"FAILED", "UNTESTED"}
    assert "**Verified by `make conformance`:** 50.0% of the" in pages["support_matrix.md"]
    assert "| N FAILED |" in pages["support_matrix.md"]
    assert '<td class="native FAILED">N FAILED</td>' in pages["support_matrix.html"]


def test_the_declared_pages_know_nothing_of_verdicts():
    declared = matrix.build(load_plan(os.path.join(REPO_ROOT, "specs", "mlu.yaml"), REPO_ROOT))
    for name, text in render.render_matrix(declared, "banner").items():
        assert "Verified" not in text and "verdict\"" not in text, name
    assert not hasattr(declared, "conformance")


def test_conformance_verdicts_are_escaped_too():
    hostile = '"><script>alert(4)</script>'
    declared = matrix.build(load_plan(os.path.join(REPO_ROOT, "specs", "mlu.yaml"), REPO_ROOT))
    conformance = verified_matrix.Conformance(dict(PROVENANCE, commit="<b>" * 5), HEADLINE,
                                              {("mm", "float32"): (hostile, "detail")})
    files = verified_matrix.pages(verified_matrix.VerifiedMatrix.of(declared, conformance), "banner")
    assert files["support_matrix.html"].count("<script") == 1 and "<b>" not in files["support_matrix.html"]
    assert "&#34;&gt;&lt;script&gt;alert(4)" in files["support_matrix.html"]
    markup = re.sub(r"(?<!\\)(`+)(?:(?!\1).)+?\1", "", files["support_matrix.md"])  # outside code spans
    assert "<script" not in markup and "<b>" not in markup
