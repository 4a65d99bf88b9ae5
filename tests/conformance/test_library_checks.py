"""How the conformance run files the outcomes of tests/python/test_<namespace>_ops.py
under other libraries' ops (which have no OpInfo), on synthetic outcomes."""
from __future__ import annotations

import library_checks
from selection import native_overloads
from verdicts import FAILED, STRICT, UNTESTED

MATRIX = {"ops": [
    {"name": "add.Tensor", "dtypes": {"float32": "native"}},
    {"name": "torchvision::nms", "dtypes": {"float32": "native", "float16": "fallback"}},
    {"name": "torchvision::roi_align", "dtypes": {"float32": "native", "float16": "native"}},
    {"name": "torchvision::_roi_align_backward", "dtypes": {"float32": "native", "float16": "native"}},
    {"name": "torchvision::deform_conv2d", "dtypes": {"float32": "native"}},
]}


def verdicts(monkeypatch, outcomes: dict[str, bool]) -> dict[tuple[str, str], object]:
    monkeypatch.setattr(library_checks, "_outcomes", lambda namespace: outcomes)
    return {(v.overload, v.dtype): v for v in library_checks.check(MATRIX)}


def test_library_ops_are_left_to_their_tests_not_to_opinfos():
    assert set(native_overloads(MATRIX)) == {"add.Tensor"}


def test_a_backward_op_is_judged_by_its_forwards_tests_per_dtype(monkeypatch):
    found = verdicts(monkeypatch, {
        "test_roi_align_forward_and_backward_match[False--1-float32]": True,
        "test_roi_align_forward_and_backward_match[False--1-float16]": False,
        "test_nms_keeps_the_boxes[0]": True,
        "test_nms_keeps_the_boxes[300]": True,
    })
    assert found[("torchvision::roi_align", "float32")].verdict == STRICT
    assert found[("torchvision::_roi_align_backward", "float32")].verdict == STRICT
    assert found[("torchvision::roi_align", "float16")].verdict == FAILED
    assert "float16" in found[("torchvision::_roi_align_backward", "float16")].detail
    # A test without a dtype in its id covers float32; a dtype not native is not judged.
    assert found[("torchvision::nms", "float32")].verdict == STRICT
    assert found[("torchvision::nms", "float32")].samples == 2
    assert ("torchvision::nms", "float16") not in found
    # No test reached it: unverified, which the run reports as a failure of the suite.
    assert found[("torchvision::deform_conv2d", "float32")].verdict == UNTESTED


def test_a_test_of_another_op_whose_name_contains_this_one_does_not_count(monkeypatch):
    found = verdicts(monkeypatch, {"test_ps_roi_align_works[float32]": False})
    assert found[("torchvision::roi_align", "float32")].verdict == UNTESTED


def test_a_bfloat16_test_is_not_float16_coverage(monkeypatch):
    found = verdicts(monkeypatch, {"test_roi_align_forward[True-2-bfloat16]": True})
    assert found[("torchvision::roi_align", "float16")].verdict == UNTESTED
    assert found[("torchvision::roi_align", "float32")].verdict == UNTESTED
