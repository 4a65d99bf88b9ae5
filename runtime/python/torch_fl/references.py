"""CPU reference implementations of vendor ops (a spec's `custom: ... reference:`).

Tests and conformance compare each vendor op against its reference, forward
and backward (through autograd of the reference). Shared by every vendor.
"""
from __future__ import annotations

import torch


def rms_norm(input: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    x = input.float()
    return (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight.float()).to(input.dtype)
