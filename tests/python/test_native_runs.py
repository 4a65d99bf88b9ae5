"""The backend's record of which kernels ran natively (what the conformance run
attributes its verdicts by): an overload reached inside another op is in it,
under the dtype its kernel decided on; a fallback is not; nothing is recorded
unless a tool asks."""
from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import torch_fl
from native_runs import native_runs_of
from torch_fl import device_module


def status(overload: str, dtype: str) -> str:
    rows = {row["name"]: row for row in torch_fl.support_matrix()["ops"]}
    return rows.get(overload, {}).get("dtypes", {}).get(dtype, "absent")


def require_native(overload: str, dtype: str = "float32") -> None:
    if status(overload, dtype) != "native":
        pytest.skip(f"{overload} ({dtype}) is not native in the {torch_fl.vendor()} spec")


def test_a_kernel_reached_inside_another_op_is_recorded_once_per_call(device):
    require_native("convolution_overrideable")
    x, w = torch.randn(2, 3, 8, 8, device=device), torch.randn(4, 3, 3, 3, device=device)
    runs = native_runs_of(lambda: F.conv2d(x, w))
    assert ("convolution_overrideable", "Float") in runs, runs
    device_module._record_native_runs(True)
    try:
        F.conv2d(x, w)  # npu's converts its operands first: a second stream() call, still one run
        counts = {run["op"]: run["count"] for run in device_module._native_runs()}
    finally:
        device_module._record_native_runs(False)
    assert counts["convolution_overrideable"] == 1, counts


def test_each_run_is_filed_under_the_dtype_its_kernel_decided_on(device):
    require_native("where.self")
    condition = torch.tensor([True, False, True], device=device)
    a, b = torch.ones(3, device=device), torch.zeros(3, device=device)
    runs = native_runs_of(lambda: torch.where(condition, a, b))
    assert ("where.self", "Float") in runs and ("where.self", "Bool") not in runs, runs


def test_the_backward_kernels_on_the_autograd_thread_are_recorded(device):
    require_native("mm")
    a = torch.randn(4, 5, device=device, requires_grad=True)
    b = torch.randn(5, 3, device=device)
    out = a @ b
    runs = native_runs_of(lambda: out.sum().backward())
    assert ("mm", "Float") in runs, runs


def test_a_fallback_is_not_a_native_run_and_nothing_is_kept_once_recording_stops(device):
    require_native("mm")
    if status("mm", "float64") == "native":
        pytest.skip("mm is native in float64 here: no fallback to observe")
    x = torch.randn(4, 4, device=device, dtype=torch.float64)
    runs = native_runs_of(lambda: x @ x)
    assert not any(op == "mm" for op, _ in runs), runs
    y = torch.randn(4, 4, device=device)
    runs = native_runs_of(lambda: y @ y)
    assert ("mm", "Float") in runs
    y @ y  # not recording
    assert device_module._native_runs() == []
    device_module.synchronize()
