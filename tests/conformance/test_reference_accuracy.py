"""The float64-reference judge of a value mismatch (reference_accuracy.py): a result
as near to float64 as CPU's passes, a farther one, a NaN where float64 has a
number, another dtype or shape fails."""
from __future__ import annotations

import sys
import pathlib

import pytest
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "conformance_tool"))
import reference_accuracy  # noqa: E402


def _values():
    reference = torch.linspace(-3, 3, 50, dtype=torch.float64)
    cpu = (reference + 1e-4 * torch.sin(reference * 7)).float()  # CPU's own error: up to 1e-4
    return reference, cpu


def test_a_result_as_near_to_float64_as_cpus_passes():
    reference, cpu = _values()
    device = (reference - 2e-4 * torch.cos(reference * 3)).float()  # differs from CPU by up to 3e-4
    assert not torch.allclose(device, cpu)  # the first judge (assert_close with CPU) would fail it
    reference_accuracy.assert_within_reference([device], [cpu], [reference], torch.float32)


def test_a_result_farther_than_the_bound_fails():
    reference, cpu = _values()
    device = cpu.clone()
    device[10] += 1e-3  # ten times CPU's largest error
    with pytest.raises(AssertionError, match="1 of 50 elements farther from float64"):
        reference_accuracy.assert_within_reference([device], [cpu], [reference], torch.float32)


def test_a_nan_where_float64_has_a_number_fails():
    reference, cpu = _values()
    device = cpu.clone()
    device[3] = float("nan")
    with pytest.raises(AssertionError, match="infinities or NaNs"):
        reference_accuracy.assert_within_reference([device], [cpu], [reference], torch.float32)


def test_another_dtype_or_shape_fails():
    reference, cpu = _values()
    with pytest.raises(AssertionError, match="float16"):
        reference_accuracy.assert_within_reference([cpu.half()], [cpu], [reference], torch.float32)
    with pytest.raises(AssertionError, match=r"\(49,\)"):
        reference_accuracy.assert_within_reference([cpu[1:]], [cpu], [reference], torch.float32)


def test_only_floating_samples_are_widened():
    assert reference_accuracy.in_float64(([torch.arange(3)], {"k": 2})) is None
    x = torch.ones(2, requires_grad=True)
    (wide,) = reference_accuracy.in_float64((x,))
    assert wide.dtype == torch.float64 and wide.requires_grad and wide is not x
