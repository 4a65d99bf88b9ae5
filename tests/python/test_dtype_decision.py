"""The native/fallback decision looks at every dtype the SDK would see: each
computation operand, the promoted result (type promotion, a dtype= argument)
and out= tensors. Mixed-dtype code then matches CPU in the default policy, and
under TORCH_FL_FALLBACK=strict raises the fallback error, never an SDK error.

The cases mix float32 with a float dtype the vendor's add.Tensor does not compute
natively: float64 on the simulated chips, float16 on opencl (which has fp64)."""
from __future__ import annotations

import pytest
import torch

import spec_dtypes
import torch_fl


FOREIGN = spec_dtypes.non_native_float()


def _cases():
    f32 = lambda d: torch.arange(1.0, 7.0, device=d).reshape(2, 3)  # noqa: E731
    foreign = lambda d: torch.arange(2.0, 8.0, dtype=FOREIGN, device=d).reshape(2, 3)  # noqa: E731
    i64 = lambda d: torch.arange(6, device=d).reshape(2, 3)  # noqa: E731
    c64 = lambda d: torch.full((2, 3), 1 + 2j, dtype=torch.complex64, device=d)  # noqa: E731

    def add_out(d):
        out = torch.empty(2, 3, dtype=FOREIGN, device=d)
        return torch.add(f32(d), f32(d), out=out)

    def add_(d):
        return f32(d).add_(foreign(d))

    return {
        "f32 + foreign": lambda d: f32(d) + foreign(d),
        "i64 + foreign": lambda d: i64(d) + foreign(d),
        "where(cond, f32, foreign)": lambda d: torch.where(f32(d) > 3, f32(d), foreign(d)),
        "cat([f32, foreign])": lambda d: torch.cat([f32(d), foreign(d)]),
        "f32.add_(foreign)": add_,
        "add(f32, f32, out=foreign)": add_out,
        "f32.sum(dtype=foreign)": lambda d: f32(d).sum(dtype=FOREIGN),
        "f32 * complex64": lambda d: f32(d) * c64(d),
        "f32 * Python complex": lambda d: f32(d) * (1 + 2j),
    }


CASES = _cases()


@pytest.mark.parametrize("name", list(CASES))
def test_mixed_dtypes_match_cpu(device, name, fallback_mode):
    fallback_mode("silent")
    expected = CASES[name]("cpu")
    actual = CASES[name](device)
    assert actual.dtype == expected.dtype
    torch.testing.assert_close(actual.cpu(), expected)


def _strict_reason(name: str) -> str:
    """dtype not native; but a spec whose full `sum` is declared only without a dtype=
    argument (a `when: dtype is None` guard, as opencl's) turns the sum case down by its guard."""
    sum_row = next((row for row in torch_fl.support_matrix()["ops"] if row["name"] == "sum"), None)
    if name == "f32.sum(dtype=foreign)" and sum_row and "dtype" in (sum_row.get("guard") or ""):
        return "guard not met"
    return "dtype not native"


@pytest.mark.parametrize("name", list(CASES))
def test_mixed_dtypes_raise_the_fallback_error_in_strict_mode(device, name, fallback_mode):
    fallback_mode("strict")
    with pytest.raises(NotImplementedError, match=rf"has no native kernel \({_strict_reason(name)}\)"):
        CASES[name](device)


def test_mm_of_mixed_dtypes_raises_cpus_error(device, fallback_mode):
    fallback_mode("silent")
    a, b = torch.ones(2, 2), torch.ones(2, 2, dtype=torch.float64)
    with pytest.raises(RuntimeError) as on_cpu:
        torch.mm(a, b)
    with pytest.raises(RuntimeError) as on_device:
        torch.mm(a.to(device), b.to(device))
    assert str(on_cpu.value).splitlines()[0] in str(on_device.value)


def test_the_fallback_record_names_the_dtype_that_was_not_native(device, fallback_mode):
    fallback_mode("silent")
    torch_fl.reset_fallback_stats()
    torch.ones(3, device=device) + torch.ones(3, dtype=FOREIGN, device=device)
    assert torch_fl.fallback_stats().get("aten::add.Tensor") == {spec_dtypes.C10_NAMES[FOREIGN]: 1}


def test_same_dtype_and_python_numbers_stay_native(device, fallback_mode):
    fallback_mode("strict")
    x = torch.arange(6.0, device=device)
    i = torch.arange(6, device=device, dtype=torch.int32)
    torch.testing.assert_close((x * 2.5 + 1).cpu(), torch.arange(6.0) * 2.5 + 1)
    torch.testing.assert_close((i + 1).cpu(), torch.arange(6, dtype=torch.int32) + 1)
    torch.testing.assert_close((x > 2).cpu(), torch.arange(6.0) > 2)  # a bool result is native
    torch.testing.assert_close(torch.where(x > 2, x, -x).cpu(), torch.where(torch.arange(6.0) > 2,
                                                                            torch.arange(6.0), -torch.arange(6.0)))


def test_an_out_tensor_of_another_dtype_gets_cpus_answer(device, fallback_mode):
    """where's output is sized by a rule, which checks no out= dtype itself."""
    fallback_mode("silent")

    def run(d):
        x = torch.arange(6.0, device=d)
        out = torch.empty(6, dtype=torch.int64, device=d)
        return torch.where(x > 2, x, -x, out=out)

    try:
        expected = run("cpu")
    except RuntimeError as error:
        with pytest.raises(RuntimeError, match=str(error).splitlines()[0][:40]):
            run(device)
    else:
        torch.testing.assert_close(run(device).cpu(), expected)


def test_integer_indices_and_targets_stay_native(device, fallback_mode):
    fallback_mode("strict")
    weight = torch.randn(5, 3)
    index = torch.tensor([4, 0, 2])
    torch.testing.assert_close(torch.index_select(weight.to(device), 0, index.to(device)).cpu(),
                               torch.index_select(weight, 0, index))
    logits, target = torch.randn(4, 5), torch.tensor([1, 0, 4, 2])
    torch.testing.assert_close(torch.nn.functional.nll_loss(logits.to(device), target.to(device)).cpu(),
                               torch.nn.functional.nll_loss(logits, target))
