"""A TensorIterator kernel remembers the result its meta function gave for
operands of one shape, all contiguous (runtime/include/torch_fl/elementwise_memo.h),
keyed by the operands' dtypes, the Scalar arguments and the default dtype.

What is remembered must never stand in for a different answer: every call here
follows one with another key on the same kernel and thread, and must still get
CPU's dtype, values and strides, or CPU's error."""
from __future__ import annotations

import threading

import pytest
import torch

from native_runs import native_runs_of

DTYPES = (torch.float32, torch.int32, torch.int64, torch.bool, torch.float16, torch.bfloat16)


def _operand(dtype: torch.dtype, device, seed: int) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    values = torch.randint(1, 5, (3, 4), generator=generator)
    return values.to(dtype).to(device)


def _same_outcome(op, *cpu_operands, device):
    """The op on the device gives CPU's result (dtype, strides, values) or CPU's error."""
    device_operands = [t.to(device) for t in cpu_operands]
    try:
        expected = op(*cpu_operands)
    except RuntimeError as cpu_error:
        with pytest.raises(RuntimeError) as device_error:
            op(*device_operands)
        assert str(cpu_error).split("\n")[0] in str(device_error.value)
        return
    actual = op(*device_operands)
    assert actual.dtype == expected.dtype
    assert actual.stride() == expected.stride()
    torch.testing.assert_close(actual.cpu(), expected, equal_nan=True)


BINARY_OPS = {
    "add": lambda a, b: a + b,
    "add alpha=2": lambda a, b: torch.add(a, b, alpha=2),
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "maximum": torch.maximum,
    "eq": torch.eq,
}


@pytest.mark.parametrize("name", list(BINARY_OPS))
def test_each_dtype_pair_after_another_gets_cpus_answer(device, name, fallback_mode):
    fallback_mode("silent")
    op = BINARY_OPS[name]
    for first in DTYPES:
        for second in DTYPES:
            a, b = _operand(first, "cpu", 0), _operand(second, "cpu", 1)
            _same_outcome(op, a, b, device=device)
            _same_outcome(op, a, b, device=device)  # the second call: from the memo where one was kept


def test_alpha_is_part_of_the_key(device):
    a, b = _operand(torch.int64, device, 0), _operand(torch.int64, device, 1)
    for _ in range(2):
        assert torch.add(a, b, alpha=2).dtype == torch.int64
    for _ in range(2):  # an integer op with a float alpha is ATen's error, every time
        with pytest.raises(RuntimeError, match="alpha"):
            torch.add(a, b, alpha=2.5)
    torch.testing.assert_close(torch.add(a, b, alpha=3).cpu(), torch.add(a.cpu(), b.cpu(), alpha=3))


def test_scalar_values_are_part_of_the_key(device, fallback_mode):
    # pow's meta refuses a negative integer power of integers: a check on the value.
    fallback_mode("silent")
    counts = _operand(torch.int64, device, 0)
    for _ in range(2):
        torch.testing.assert_close((counts ** 2).cpu(), counts.cpu() ** 2)
    for _ in range(2):
        with pytest.raises(RuntimeError, match="negative integer powers"):
            counts ** -1
    for _ in range(2):
        with pytest.raises(RuntimeError, match="negative integer powers"):
            counts.pow_(-2)


def test_the_default_dtype_is_part_of_the_key(device, fallback_mode):
    fallback_mode("silent")
    a, b = _operand(torch.int64, device, 0), _operand(torch.int64, device, 1)
    assert (a / b).dtype == (a / b).dtype == torch.float32
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        quotient = a / b
        assert quotient.dtype == torch.float64
        torch.testing.assert_close(quotient.cpu(), a.cpu() / b.cpu())
    finally:
        torch.set_default_dtype(previous)
    assert (a / b).dtype == torch.float32


def test_in_place_casting_rules_are_checked_for_each_key(device):
    total = torch.zeros(3, 4, device=device)
    floats = _operand(torch.float32, device, 0)
    counts = torch.zeros(3, 4, dtype=torch.int64, device=device)
    for _ in range(2):
        total.add_(floats)
    for _ in range(2):
        with pytest.raises(RuntimeError, match="can't be cast"):
            counts.add_(floats)
    counts.add_(counts + 1)
    torch.testing.assert_close(total.cpu(), 2 * floats.cpu())
    torch.testing.assert_close(counts.cpu(), torch.ones(3, 4, dtype=torch.int64))


def test_zero_dim_operands_are_part_of_the_key(device, fallback_mode):
    # lerp checks its weight's dtype only when the weight is not 0-dim.
    fallback_mode("silent")
    scalars = [torch.tensor(value, device=device) for value in (1.0, 3.0)]
    weight = torch.tensor(0.5, dtype=torch.float64, device=device)
    for _ in range(2):
        _same_outcome(torch.lerp, *(t.cpu() for t in (*scalars, weight)), device=device)
    start, end = torch.randn(4), torch.randn(4)
    for _ in range(2):
        _same_outcome(torch.lerp, start, end, torch.rand(4, dtype=torch.float64), device=device)
        _same_outcome(lambda s, e, w: s.lerp_(e, w), start, end, torch.rand(4, dtype=torch.float64), device=device)


def test_cpu_scalar_tensors_always_get_tensor_iterators_check(device):
    # TensorIterator limits how many CPU scalars a device op takes: a call with
    # them gets the same answer after a call of the same dtypes on the device.
    one = torch.tensor(1.0, device=device)
    two, three = torch.tensor(2.0), torch.tensor(3.0)  # CPU 0-dim tensors, not Python numbers

    def outcome():
        try:
            return torch.addcmul(one, two, three).item()
        except RuntimeError as error:
            return str(error).split("\n")[0]

    cold = outcome()
    for _ in range(2):
        torch.addcmul(one, one, one)
        assert outcome() == cold


@pytest.mark.parametrize("sizes,strides", [
    ((3, 1), (1, 7)),          # a size-1 dim with a stride of its own
    ((1, 4), (9, 1)),
    ((2, 1, 3), (3, 1, 1)),
    ((4, 3), (1, 4)),          # transposed: not the memo's case, meta decides
    ((0, 3), (3, 1)),
])
def test_results_have_cpus_strides(device, sizes, strides):
    cpu = [torch.randn(64).as_strided(sizes, strides) for _ in range(2)]
    for _ in range(2):
        _same_outcome(lambda a, b: a + b, *cpu, device=device)
        _same_outcome(lambda a, b: a.mul(b), *cpu, device=device)


def test_zero_dim_tensors_and_python_numbers(device, fallback_mode):
    fallback_mode("silent")
    count = torch.tensor(3, device=device)
    for _ in range(2):
        assert (count + count).dtype == torch.int64
        assert (count + 2.5).dtype == torch.float32
        assert (count + torch.tensor(2.5)).dtype == torch.float32  # a CPU 0-dim tensor: not a number
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        assert (count + 2.5).dtype == torch.float64
    finally:
        torch.set_default_dtype(previous)


def test_a_remembered_call_still_runs_natively(device):
    a, b = _operand(torch.float32, device, 0), _operand(torch.float32, device, 1)
    a + b
    assert ("add.Tensor", "Float") in native_runs_of(lambda: a + b)
    assert ("add_.Tensor", "Float") in native_runs_of(lambda: a.add_(b))


def test_threads_remember_their_own_keys(device, fallback_mode):
    fallback_mode("silent")
    dtypes = (torch.float32, torch.int32, torch.int64, torch.float16)
    failures: list[str] = []
    start = threading.Barrier(len(dtypes))

    def run(dtype):
        a, b = _operand(dtype, device, 0), _operand(dtype, device, 1)
        expected = a.cpu() * b.cpu()
        start.wait()
        for _ in range(200):
            product = a * b
            if product.dtype != dtype or not torch.equal(product.cpu(), expected):
                failures.append(f"{dtype}: got {product.dtype}")
                return

    threads = [threading.Thread(target=run, args=(dtype,)) for dtype in dtypes]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
