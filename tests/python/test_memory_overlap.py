"""In-place and out= kernels apply PyTorch's memory-overlap rules, with
PyTorch's messages, where CPU applies them: an output that partly overlaps an
input, or whose elements share memory, is refused; the exact same memory (a
true in-place op) and idempotent fills are allowed."""
from __future__ import annotations

import warnings

import pytest
import torch

PARTIAL = "some elements of the input tensor and the written-to tensor refer to a single memory location"
INTERNAL = "more than one element of the written-to tensor refers to a single memory location"


def _both(device, build, expect_error):
    """Runs `build(device)` and `build('cpu')`: both raise expect_error, or both give the same values."""
    if expect_error:
        with pytest.raises(RuntimeError, match=expect_error):
            build("cpu")
        with pytest.raises(RuntimeError, match=expect_error):
            build(device)
    else:
        torch.testing.assert_close(build(device).cpu(), build("cpu"))


def _shifted_add_(device):
    a = torch.arange(6.0, device=device)
    a[1:].add_(a[:-1])
    return a


def _shifted_mul_out(device):
    a = torch.arange(1.0, 7.0, device=device)
    torch.mul(a[:-1], 2.0, out=a[1:])
    return a


def _shifted_add_out(device):
    a = torch.arange(6.0, device=device)
    torch.add(a[:-1], a[:-1], out=a[1:])
    return a


def _shifted_neg_out(device):
    a = torch.arange(6.0, device=device)
    torch.neg(a[:-1], out=a[1:])
    return a


def _shifted_sub_(device):
    a = torch.arange(6.0, device=device)
    a[:-1].sub_(a[1:])
    return a


def _shifted_copy_(device):
    a = torch.arange(6.0, device=device)
    a[1:].copy_(a[:-1])
    return a


def _expanded_copy_(device):
    x = torch.zeros(1, device=device).expand(3)
    return x.copy_(torch.arange(3.0, device=device))


def _expanded_relu_(device):
    x = torch.zeros(1, device=device).expand(4)
    return torch.relu_(x)


def _expanded_add_(device):
    x = torch.zeros(1, device=device).expand(4)
    return x.add_(1.0)


def _same_memory_add_(device):
    a = torch.arange(6.0, device=device)
    return a.add_(a)


def _same_memory_add_out(device):
    a = torch.arange(6.0, device=device)
    return torch.add(a, a, out=a)


def _expanded_fill_(device):
    x = torch.zeros(1, device=device)
    x.expand(4).fill_(2.0)
    return x


def _expanded_zero_(device):
    x = torch.ones(1, device=device)
    x.expand(4).zero_()
    return x


def _expanded_zero_float64_(device):
    """float64 runs on CPU on the simulated chips: the result is written back into the expanded tensor."""
    x = torch.ones(1, dtype=torch.float64, device=device)
    x.expand(4).zero_()
    return x


def _expanded_masked_fill_(device):
    x = torch.zeros(1, device=device)
    x.expand(4).masked_fill_(torch.tensor([True, False, True, False], device=device), 2.0)
    return x


def _disjoint_halves_add_(device):
    a = torch.arange(6.0, device=device)
    a[:3].add_(a[3:])
    return a


@pytest.mark.parametrize("build", [_shifted_copy_, _shifted_add_, _shifted_mul_out, _shifted_add_out, _shifted_neg_out, _shifted_sub_])
def test_partial_overlap_with_an_input_is_refused(device, build):
    _both(device, build, PARTIAL)


@pytest.mark.parametrize("build", [_expanded_copy_, _expanded_relu_, _expanded_add_])
def test_written_tensor_with_aliased_elements_is_refused(device, build):
    _both(device, build, INTERNAL)


@pytest.mark.parametrize("build", [_same_memory_add_, _same_memory_add_out, _expanded_fill_, _expanded_zero_,
                                   _expanded_zero_float64_, _expanded_masked_fill_, _disjoint_halves_add_])
def test_exact_or_harmless_overlap_matches_cpu(device, build, fallback_mode):
    fallback_mode("silent")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ATen deprecates masked_fill_ on expanded tensors, and says so
        _both(device, build, None)


def test_refused_overlap_is_checked_before_the_cpu_fallback(device, fallback_mode):
    """float64 is not native on the simulated chips: the fallback copies each
    tensor separately, so the check must come first or the aliasing is lost."""
    fallback_mode("silent")
    a = torch.arange(6.0, dtype=torch.float64, device=device)
    with pytest.raises(RuntimeError, match=PARTIAL):
        a[1:].add_(a[:-1])
