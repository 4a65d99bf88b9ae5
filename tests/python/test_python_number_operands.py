"""A Python number next to a device tensor (`x * 2.0`, `x + 1`, `x.mul_(0.5)`),
the most common operand form in model code. Where the spec lists the Scalar
overload too (mul.Scalar next to mul.Tensor), the number reaches the SDK by
value: no device tensor, no host-to-device copy, no wait. Everywhere the result
must be CPU's, in CPU's dtype, whatever mix of tensor dtype and number type."""
from __future__ import annotations

import pytest
import torch

import torch_fl


def _allocations(device: torch.device) -> int:
    return getattr(torch, device.type).memory_stats(device)["num_alloc_calls"]


def _by_value_through(overload: str) -> str:
    """The overload whose SDK call takes a Python number for this one, per the support matrix."""
    rows = {row["name"]: row for row in torch_fl.support_matrix()["ops"]}
    row = rows.get(overload, {})
    if "native" not in row.get("dtypes", {}).values():
        return ""
    return row.get("python_number", {}).get("by_value_through", "")


# (expression, the overload it calls)
BY_VALUE = [
    ("x * 2.0", "mul.Tensor"),
    ("x + 1", "add.Tensor"),
    ("x / 3", "div.Tensor"),
    ("x - 0.5", "sub.Tensor"),
    ("x.mul_(0.5)", "mul_.Tensor"),
    ("x.add_(2, alpha=3)", "add_.Tensor"),
    ("torch.mul(x, 2.0, out=out)", "mul.out"),
]


@pytest.mark.without_device
def test_the_matrix_says_which_overloads_take_a_python_number_by_value():
    """Every spec here lists mul.Scalar and add.Scalar next to their Tensor forms
    (nvidia's too: without them, each `x * 2.0` copied its number to the GPU)."""
    assert _by_value_through("mul.Tensor") == "mul.Scalar"
    assert _by_value_through("mul_.Tensor") == "mul.Scalar"
    assert _by_value_through("add.out") == "add.Scalar"
    assert _by_value_through("pow.Tensor_Tensor") == "", "pow.Tensor_Scalar has semantics of its own"


@pytest.mark.parametrize("expression,overload", BY_VALUE, ids=[e for e, _ in BY_VALUE])
def test_a_python_number_allocates_nothing_on_the_device(device, fallback_mode, expression, overload):
    """Only the result is allocated (nothing for in-place and out=), as for two
    device tensors: the number is not copied to the device first."""
    if not _by_value_through(overload):
        pytest.skip(f"{torch_fl.vendor()}'s spec lists no native Scalar form of {overload}")
    fallback_mode("strict")
    x = torch.randn(64, device=device)
    out = torch.empty(64, device=device)
    result_allocations = 0 if ("_(" in expression or "out=" in expression) else 1
    eval(expression, {"torch": torch, "x": x, "out": out})  # warm: first-call set-up allocates nothing later
    before = _allocations(device)
    eval(expression, {"torch": torch, "x": x, "out": out})
    assert _allocations(device) - before == result_allocations, \
        f"`{expression}` allocated {_allocations(device) - before - result_allocations} device block(s) " \
        "besides its result: the number was copied to the device"


# From Python, a number reaches a .Tensor overload for add, sub, mul and div (and
# their in-place and out= forms); comparisons, bitwise ops, fmod, remainder and **
# have Scalar overloads Python calls directly. Both kinds are here: the result must
# be CPU's either way. Ints from 2**63 up are wrapped as uint64 and keep the tensor path.
MIXES = [
    (torch.float32, "x * 2.5"), (torch.float16, "x * 0.1"), (torch.bfloat16, "x + 1e-3"),
    (torch.int32, "x * 2.5"), (torch.int32, "x + 7"), (torch.int64, "x - 2**40"), (torch.int32, "x // 3"),
    (torch.bool, "x * True"), (torch.bool, "x + 1"), (torch.int64, "x & 6"), (torch.int32, "x % 4"),
    (torch.float32, "x == 1.0"), (torch.int32, "x < 2.5"), (torch.float16, "x / 7"), (torch.int64, "x / 2"),
    (torch.float32, "2.0 * x"), (torch.float32, "1 - x"), (torch.float32, "x ** 2"), (torch.int32, "x.mul_(3)"),
    (torch.float32, "x.sub_(0.25, alpha=4)"), (torch.float32, "torch.fmod(x, 1.5)"),
    (torch.float32, "x * 2**63"), (torch.int64, "x + 2**63"), (torch.int64, "x + 2**62"), (torch.int32, "x / 2**63"),
    (torch.float16, "x * 1e-8"), (torch.int64, "x.add_(2**63 - 1)"),
    # An integer the int32 common dtype cannot hold: by value where paired, else on CPU
    # (a cast on the way to the device would wrap it; CPU divides by its value).
    (torch.int32, "x / 2**40"), (torch.int32, "x - 2**40"), (torch.int32, "x / torch.tensor(2**40)"),
    (torch.int32, "x * torch.tensor(2**35)"),
]


@pytest.mark.parametrize("dtype,expression", MIXES, ids=[f"{d}-{e}" for d, e in MIXES])
def test_a_python_number_gives_cpus_result_and_dtype(device, dtype, expression):
    cpu = (torch.arange(-6, 6) % 5).to(dtype) if dtype != torch.bool else torch.arange(12) % 3 == 0
    expected = eval(expression, {"torch": torch, "x": cpu.clone()})
    actual = eval(expression, {"torch": torch, "x": cpu.to(device)})
    assert actual.dtype == expected.dtype
    torch.testing.assert_close(actual.cpu(), expected, equal_nan=True)


def test_a_number_wrapped_by_cpp_and_a_0_dim_cpu_tensor_keep_their_own_promotion(device):
    """torch.tensor(2.5) is not a Python number: as a 0-dim tensor it keeps its
    float16 next to an int32 tensor, where the number 2.5 gives float32."""
    x = torch.arange(4, dtype=torch.int32)
    zero_dim = torch.tensor(2.5, dtype=torch.float16)
    assert (x.to(device) * zero_dim).dtype == (x * zero_dim).dtype == torch.float16
    torch.testing.assert_close((x.to(device) * zero_dim).cpu(), x * zero_dim)
    assert (x.to(device) * 2.5).dtype == torch.float32


def test_the_number_goes_through_autograd_as_cpu_does(device):
    w = torch.randn(5, requires_grad=True)
    w_device = w.detach().to(device).requires_grad_()
    (w * 3.0 + 1).pow(2).sum().backward()
    (w_device * 3.0 + 1).pow(2).sum().backward()
    torch.testing.assert_close(w_device.grad.cpu(), w.grad)
