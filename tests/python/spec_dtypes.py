"""Dtypes the tests pick from the vendor's support matrix rather than assume: the
simulated chips have no float64 compute, opencl has (PoCL's fp64) but no float16."""
from __future__ import annotations

import torch

import torch_fl

# c10's names (fallback_stats, error messages) of the float dtypes.
C10_NAMES = {torch.float64: "Double", torch.float16: "Half", torch.bfloat16: "BFloat16"}


def non_native_float(op: str = "add.Tensor") -> torch.dtype:
    """The first of float64, float16, bfloat16 that the spec's `op` does not compute natively."""
    row = next(row for row in torch_fl.support_matrix()["ops"] if row["name"] == op)
    for dtype in C10_NAMES:
        if row["dtypes"].get(str(dtype).removeprefix("torch.")) != "native":
            return dtype
    raise AssertionError(f"{op} is native for every float dtype: the test needs one that is not")
