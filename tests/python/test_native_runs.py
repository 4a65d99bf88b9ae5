"""The backend's record of which kernels ran natively (what the conformance run
attributes its verdicts by): an overload reached inside another op is in it,
under the dtype its kernel decided on; a fallback is not; nothing is recorded
unless a tool asks."""
from __future__ import annotations

import torch
import torch.nn.functional as F

from torch_fl import device_module


def native_runs_of(action) -> set[tuple[str, str]]:
    device_module._record_native_runs(True)
    try:
        action()
        return {(run["op"], run["dtype"]) for run in device_module._native_runs()}
    finally:
        device_module._record_native_runs(False)


def test_a_kernel_reached_inside_another_op_is_recorded(device):
    x, w = torch.randn(2, 3, 8, 8, device=device), torch.randn(4, 3, 3, 3, device=device)
    runs = native_runs_of(lambda: F.conv2d(x, w))
    assert ("convolution_overrideable", "Float") in runs, runs


def test_each_run_is_filed_under_the_dtype_its_kernel_decided_on(device):
    condition = torch.tensor([True, False, True], device=device)
    a, b = torch.ones(3, device=device), torch.zeros(3, device=device)
    runs = native_runs_of(lambda: torch.where(condition, a, b))
    assert ("where.self", "Float") in runs and ("where.self", "Bool") not in runs, runs


def test_the_backward_kernels_on_the_autograd_thread_are_recorded(device):
    a = torch.randn(4, 5, device=device, requires_grad=True)
    b = torch.randn(5, 3, device=device)
    out = a @ b
    runs = native_runs_of(lambda: out.sum().backward())
    assert ("mm", "Float") in runs, runs


def test_a_fallback_is_not_a_native_run_and_nothing_is_kept_once_recording_stops(device):
    x = torch.randn(4, 4, device=device, dtype=torch.float64)  # float64 is native on no simulated chip
    runs = native_runs_of(lambda: x @ x)
    assert not any(op == "mm" for op, _ in runs), runs
    y = torch.randn(4, 4, device=device)
    runs = native_runs_of(lambda: y @ y)
    assert ("mm", "Float") in runs
    y @ y  # not recording
    assert device_module._native_runs() == []
    device_module.synchronize()
