"""Every overload the spec declares native is checked against CPU on the samples
of op_samples.py, natively (the fallback counter must stay at zero), in its
functional, out= and in-place forms."""
from __future__ import annotations

import pytest
import torch

import os
import sys

import torch_fl
from op_samples import NOT_COMPARABLE, RANDOM_OPS, SAMPLERS, CpuScalar

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "conformance_tool"))
from selection import covered_overloads, native_overloads  # noqa: E402

MATRIX = torch_fl.support_matrix()
# ATen's native rows; other libraries' ops (torchvision::nms) are verified against
# their own CPU kernels by tests/python/test_<namespace>_ops.py.
NATIVE_ROWS = [row for row in MATRIX["ops"] if "native" in row["dtypes"].values() and "::" not in row["name"]]
DTYPE_NAMES = {torch.float32: "float32", torch.float64: "float64", torch.float16: "float16",
               torch.bfloat16: "bfloat16", torch.int32: "int32", torch.int64: "int64", torch.bool: "bool"}


def aten_op(name: str):
    base, _, overload = name.partition(".")
    return getattr(getattr(torch.ops.aten, base), overload or "default")


def entry_of(row: dict) -> str:
    return row.get("derived_from") or row["name"]


def to_device(value, device):
    if isinstance(value, CpuScalar):
        return value.tensor
    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, (list, tuple)):
        return type(value)(to_device(v, device) for v in value)
    return value


def to_cpu_args(value):
    if isinstance(value, CpuScalar):
        return value.tensor
    if isinstance(value, (list, tuple)):
        return type(value)(to_cpu_args(v) for v in value)
    return value


def first_tensor(args) -> torch.Tensor:
    for a in args:
        if isinstance(a, torch.Tensor):
            return a
        if isinstance(a, CpuScalar):
            return a.tensor
    raise AssertionError("sample without a tensor")


def assert_same(device_result, cpu_result):
    if isinstance(cpu_result, (tuple, list)):
        assert len(device_result) == len(cpu_result)
        for d, c in zip(device_result, cpu_result):
            assert_same(d, c)
        return
    assert device_result.device.type == torch_fl.device().type
    assert device_result.dtype == cpu_result.dtype
    torch.testing.assert_close(device_result.cpu(), cpu_result, equal_nan=True)


def row_kind(row: dict) -> str:
    if not row.get("derived_from"):
        return "entry"
    return "inplace" if row["name"].split(".")[0].endswith("_") else "out"


def run_sample(row: dict, args: tuple, kwargs: dict, device: torch.device) -> None:
    entry = aten_op(entry_of(row))
    op = aten_op(row["name"])
    kind = row_kind(row)
    cpu_args = to_cpu_args(args)
    dev_args = to_device(args, device)
    torch_fl.reset_fallback_stats()
    if kind == "entry" and entry_of(row).split(".")[0].endswith("_"):
        expected_self = cpu_args[0].clone()
        entry(expected_self, *cpu_args[1:], **kwargs)
        self = dev_args[0].clone()
        returned = op(self, *dev_args[1:], **kwargs)
        assert returned is self
        assert torch_fl.fallback_stats() == {}
        assert_same(self, expected_self)
    elif kind == "entry":
        expected = entry(*cpu_args, **kwargs)
        result = op(*dev_args, **kwargs)
        assert torch_fl.fallback_stats() == {}
        assert_same(result, expected)
    elif kind == "out":
        expected = entry(*cpu_args, **kwargs)
        expected_list = list(expected) if isinstance(expected, tuple) else [expected]
        out_names = [a.name for a in op._schema.arguments if a.is_out]
        # Empty outs: the kernel must resize them.
        outs = {name: torch.empty(0, dtype=e.dtype, device=device) for name, e in zip(out_names, expected_list)}
        returned = op(*dev_args, **kwargs, **outs)
        assert torch_fl.fallback_stats() == {}
        returned_list = list(returned) if isinstance(returned, tuple) else [returned]
        for r, name in zip(returned_list, out_names):
            assert r is outs[name], "an out= overload must return its out tensors"
        assert_same([outs[n] for n in out_names], expected_list)
    else:
        expected = cpu_args[0].clone()
        try:
            op(expected, *cpu_args[1:], **kwargs)
        except RuntimeError:
            # e.g. a broadcast that would grow self: the device must refuse it too.
            with pytest.raises(RuntimeError):
                op(dev_args[0].clone(), *dev_args[1:], **kwargs)
            return
        self = dev_args[0].clone()
        returned = op(self, *dev_args[1:], **kwargs)
        assert returned is self
        assert torch_fl.fallback_stats() == {}
        assert_same(self, expected)


def sample_cases():
    for row in NATIVE_ROWS:
        entry = entry_of(row)
        if entry in NOT_COMPARABLE:
            continue
        sampler = SAMPLERS.get(entry)
        if sampler is None:
            continue  # reported by test_every_native_overload_has_samples
        for index, (args, kwargs) in enumerate(sampler()):
            dtype = DTYPE_NAMES.get(first_tensor(args).dtype)
            if row["dtypes"].get(dtype) != "native":
                continue
            yield pytest.param(row, args, kwargs, id=f"{row['name']}-{index}-{dtype}")


def test_every_native_overload_is_verified_somewhere():
    """Hand-written samples here, or PyTorch's OpInfo samples (conformance and
    test_device_generic.py): a native overload reached by neither is an error."""
    reached = covered_overloads(native_overloads(MATRIX))
    missing = sorted(entry for entry in {entry_of(r) for r in NATIVE_ROWS} - set(SAMPLERS) - NOT_COMPARABLE
                     if entry not in reached)
    assert not missing, f"native spec entries verified by no samples (tests/python/op_samples.py) and no OpInfo: {missing}"


@pytest.mark.parametrize("row,args,kwargs", list(sample_cases()))
def test_native_op_matches_cpu(row, args, kwargs, device, fallback_mode):
    fallback_mode("strict")  # a native op that silently fell back would raise here
    run_sample(row, args, kwargs, device)


@pytest.mark.parametrize("op_name", sorted(RANDOM_OPS))
def test_random_op_is_reproducible_and_well_distributed(op_name, device, fallback_mode):
    fallback_mode("strict")
    op = getattr(torch.Tensor, op_name)
    getattr(torch, device.type).manual_seed(1234)
    first = op(torch.empty(20000, device=device)).cpu()
    getattr(torch, device.type).manual_seed(1234)
    second = op(torch.empty(20000, device=device)).cpu()
    third = op(torch.empty(20000, device=device)).cpu()
    assert torch.equal(first, second), "the same seed must give the same numbers"
    assert not torch.equal(second, third), "consecutive draws must advance the generator"
    if op_name == "normal_":
        assert abs(first.mean().item()) < 0.05 and abs(first.std().item() - 1) < 0.05
    else:
        assert first.min().item() >= 0 and first.max().item() < 1 and abs(first.mean().item() - 0.5) < 0.02


def test_random_op_honours_an_explicit_generator(device):
    gen = torch.Generator(device=device)
    gen.manual_seed(7)
    a = torch.empty(1000, device=device).normal_(generator=gen).cpu()
    gen.manual_seed(7)
    b = torch.empty(1000, device=device).normal_(generator=gen).cpu()
    assert torch.equal(a, b)


@pytest.mark.parametrize("condition_dtype", [torch.bool, torch.uint8, torch.int64, torch.float32])
def test_where_takes_the_conditions_cpu_takes_and_refuses_the_others_as_cpu_does(device, condition_dtype):
    """ATen's where: a bool condition, or uint8 (deprecated, with a warning); any other dtype
    is refused with the same message on the device as on CPU."""
    condition = torch.tensor([1, 0, 1], dtype=condition_dtype)
    a, b = torch.tensor([1.0, 2.0, 3.0]), torch.tensor([-1.0, -2.0, -3.0])
    try:
        expected = torch.where(condition, a, b)
    except RuntimeError as error:
        with pytest.raises(RuntimeError, match="where expected condition to be a boolean tensor"):
            torch.where(condition.to(device), a.to(device), b.to(device))
        assert "where expected condition to be a boolean tensor" in str(error)
        return
    torch.testing.assert_close(torch.where(condition.to(device), a.to(device), b.to(device)).cpu(), expected)
