"""The second judge of a value mismatch: a kernel whose arithmetic is not CPU's
(a fused attention that accumulates in float32 where CPU's math path rounds to
bfloat16 at every step, or sums in another order) cannot match CPU to the last
bit, and need not. Its results are right when they are as close to the float64
result as CPU's own are: within FUDGE times CPU's largest error against float64,
plus the dtype's default tolerances. This is how PyTorch's own fused-attention
tests judge their kernels (test_transformers.py, get_tolerances). A result no
nearer than that is wrong, whatever CPU computes."""
from __future__ import annotations

import torch
from torch.testing._comparison import default_tolerances
from torch.utils._pytree import tree_flatten, tree_map

FUDGE = 4.0


def in_float64(args):
    """The sample's floating tensors in float64 (keeping requires_grad), or None when
    it has none to widen."""
    widened = False

    def widen(value):
        nonlocal widened
        if isinstance(value, torch.Tensor) and value.is_floating_point() and value.dtype != torch.float64:
            widened = True
            return value.detach().double().requires_grad_(value.requires_grad)
        return value
    result = tree_map(widen, args)
    return result if widened else None


def assert_within_reference(device_value, cpu_value, reference_value, dtype) -> None:
    """Each device tensor no farther from the float64 reference than FUDGE times
    CPU's own largest error, plus the default tolerances of `dtype`. (Placement is
    the caller's check: worker.check_structure.)"""
    rtol, atol = default_tolerances(dtype)
    flat = zip(tree_flatten(device_value)[0], tree_flatten(cpu_value)[0], tree_flatten(reference_value)[0])
    for index, (d, c, r) in enumerate(flat):
        if not isinstance(c, torch.Tensor):
            continue
        assert d.dtype == c.dtype and d.shape == c.shape, \
            f"output {index}: {d.dtype} {tuple(d.shape)} on the device, {c.dtype} {tuple(c.shape)} on CPU"
        d, c, r = d.detach().cpu().double(), c.detach().double(), r.detach().double()
        finite = torch.isfinite(r)
        assert torch.equal(torch.isfinite(d), finite), f"output {index}: infinities or NaNs where float64 has none"
        cpu_error = (c - r)[finite].abs().max().item() if finite.any() else 0.0
        bound = FUDGE * cpu_error + atol + rtol * r.abs()
        wrong = ((d - r).abs() > bound) & finite
        assert not wrong.any(), (
            f"output {index}: {int(wrong.sum())} of {r.numel()} elements farther from float64 than {FUDGE:g}x "
            f"CPU's error ({cpu_error:.3g}) + default tolerances; device error {(d - r)[finite].abs().max():.3g}")
