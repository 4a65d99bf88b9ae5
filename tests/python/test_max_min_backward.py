"""maximum/minimum/fmax/fmin's backward on the device, against CPU. From torch 2.15 fmax's
and fmin's backward formulas call isnan, logical_or_ and logical_not_ (2.13's did not; maximum
and minimum call none of them): each runs natively or is a fallback the vendor's spec
declares (an entry with `fallback: cpu`, listed in the support matrix), never an undeclared
trip to the CPU."""
from __future__ import annotations

import math

import pytest
import torch

from torch_fl.inventory import OpInventory

NAN = math.nan
# Ties (where the gradient is split), NaNs on either side and on both, infinities.
LEFT = [1.0, 2.0, NAN, 3.0, NAN, -math.inf, 0.5, 4.0]
RIGHT = [1.0, 3.0, 1.0, NAN, NAN, 2.0, -0.5, 4.0]
# The ops 2.15's formulas added to fmax's and fmin's backward.
NEW_IN_THE_BACKWARD = {"aten::isnan", "aten::logical_or_", "aten::logical_not_"}


def _gradients(op, device, dtype):
    left = torch.tensor(LEFT, dtype=dtype, device=device, requires_grad=True)
    right = torch.tensor(RIGHT, dtype=dtype, device=device, requires_grad=True)
    out = op(left, right)
    out.backward(torch.arange(1.0, 9.0, dtype=dtype, device=device))
    return out.detach().cpu(), left.grad.cpu(), right.grad.cpu()


@pytest.mark.parametrize("op", [torch.maximum, torch.minimum, torch.fmax, torch.fmin], ids=lambda op: op.__name__)
def test_backward_matches_cpu_and_falls_back_only_where_the_spec_says(device, op):
    expected = _gradients(op, "cpu", torch.float32)
    with OpInventory() as inventory:
        actual = _gradients(op, device, torch.float32)
    for name, want, got in zip(("output", "left.grad", "right.grad"), expected, actual):
        torch.testing.assert_close(got, want, equal_nan=True, msg=lambda m: f"{op.__name__} {name}: {m}")
    if op in (torch.fmax, torch.fmin) and torch.__version__ >= "2.15":
        # What the check below looks for is reached (the inventory sees the backward's ops).
        assert "aten::isnan" in inventory.uses, sorted(inventory.uses)
    undeclared = sorted(use.overload for use in inventory.uses.values()
                        if use.overload in NEW_IN_THE_BACKWARD and use.fallback_calls and not use.spec_source)
    assert undeclared == [], (f"{op.__name__}'s backward ran {undeclared} on the CPU fallback without a spec entry: "
                              f"make them native or declare them (`fallback: cpu`) in the vendor's spec")
