"""Spec features seen from PyTorch: guards route calls to the fallback with
their reason, layouts are honoured, autocast follows the spec's policy."""
from __future__ import annotations

import os

import pytest
import torch
import torch.nn.functional as F
import yaml

import torch_fl

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def guarded_rows():
    return [row for row in torch_fl.support_matrix()["ops"] if row.get("guard")]


def test_guard_sends_the_call_to_the_fallback_with_its_reason(device, fallback_mode):
    if not any(row["name"] == "convolution_overrideable" for row in guarded_rows()):
        pytest.skip("this vendor's convolution has no guard")
    fallback_mode("silent")
    x, w = torch.randn(1, 2, 5, 5), torch.randn(2, 3, 3, 3)
    torch_fl.reset_fallback_stats()
    y = F.conv_transpose2d(x.to(device), w.to(device))  # transposed: outside the guard
    torch.testing.assert_close(y.cpu(), F.conv_transpose2d(x, w))
    assert "guard not met" in torch_fl.fallback_report()
    fallback_mode("strict")
    with pytest.raises(NotImplementedError, match="convolution_overrideable.*guard not met"):
        F.conv_transpose2d(x.to(device), w.to(device))
    torch_fl.reset_fallback_stats()
    F.conv2d(x.to(device), w.transpose(0, 1).contiguous().to(device))  # inside the guard: native
    assert torch_fl.fallback_count() == 0


def test_layout_rule_makes_non_contiguous_operands_work(device, fallback_mode):
    fallback_mode("strict")
    x = torch.randn(1, 3, 6, 6).to(memory_format=torch.channels_last)
    w = torch.randn(4, 3, 3, 3)
    y = F.conv2d(x.to(device), w.to(device))
    torch.testing.assert_close(y.cpu(), F.conv2d(x, w), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_autocast_follows_the_spec_policy(device, dtype, fallback_mode):
    fallback_mode("strict")
    a, b = torch.randn(8, 8).to(device), torch.randn(8, 8).to(device)
    with torch.autocast(device_type=device.type, dtype=dtype):
        product = a @ b  # lower_precision_fp
        exp = torch.exp(product)  # fp32
        linear = F.linear(a, b)
    assert product.dtype == dtype and linear.dtype == dtype
    assert exp.dtype == torch.float32
    torch.testing.assert_close(product.float().cpu(), (a.cpu().to(dtype) @ b.cpu().to(dtype)).float(),
                               rtol=1e-2, atol=1e-2)


def spec_ops(vendor: str) -> dict:
    """The vendor spec's `ops:` with those of the files it includes (which the vendor file overrides)."""
    def read(name: str) -> dict:
        with open(os.path.join(REPO, "specs", name)) as f:
            return yaml.safe_load(f)
    spec = read(f"{vendor}.yaml")
    entries = {}
    for included in spec.get("include", []):
        entries.update(read(included).get("ops") or {})
    return {**entries, **spec["ops"]}


def test_support_matrix_shows_guards_layouts_and_gates():
    """The matrix built into the backend states the spec's guard and layout rules."""
    entries = spec_ops(torch_fl.vendor())
    matrix = torch_fl.support_matrix()
    assert "gated" in matrix and isinstance(matrix["gated"], list)
    rows = {row["name"]: row for row in matrix["ops"]}
    checked = 0
    for name, entry in entries.items():
        if not isinstance(entry, dict) or name not in rows:
            continue
        if "when" in entry:
            assert rows[name]["guard"] == entry["when"], name
            checked += 1
        if "layout" in entry:
            assert set(rows[name]["layout"]) == set(entry["layout"]), name
            checked += 1
    if checked == 0:
        pytest.skip(f"the {torch_fl.vendor()} spec declares no guard and no layout rule")


class OpRecorder:
    """The aten ops a block of code dispatches on device tensors."""

    def __enter__(self):
        from torch.utils._python_dispatch import TorchDispatchMode

        recorder = self

        class Mode(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                recorder.ops.append(func._opname)
                return func(*args, **(kwargs or {}))

        self.ops: list[str] = []
        self.mode = Mode()
        self.mode.__enter__()
        return self

    def __exit__(self, *exc):
        self.mode.__exit__(*exc)


def test_composite_op_is_native_for_inference_and_decomposed_for_training(device, fallback_mode):
    if not any(row["name"] == "linear" for row in torch_fl.support_matrix()["ops"]):
        pytest.skip("this vendor has no native linear")
    fallback_mode("strict")
    x, w, b = torch.randn(4, 8), torch.randn(3, 8), torch.randn(3)
    xd, wd, bd = (t.to(device) for t in (x, w, b))
    with torch.no_grad(), OpRecorder() as inference:
        y = F.linear(xd, wd, bd)
    assert "linear" in inference.ops and "addmm" not in inference.ops
    torch.testing.assert_close(y.cpu(), F.linear(x, w, b))
    wd.requires_grad_()
    with OpRecorder() as training:
        y = F.linear(xd, wd, bd)
    assert "linear" not in training.ops, "with a gradient needed, the decomposition must run"
    y.sum().backward()
    torch.testing.assert_close(wd.grad.cpu(), torch.ones(4, 3).t() @ x)


def test_two_phase_call_takes_its_workspace_from_the_caching_allocator(device, fallback_mode):
    cumsum = next((row for row in torch_fl.support_matrix()["ops"] if row["name"] == "cumsum"), None)
    if cumsum is None or "workspace" not in cumsum.get("sdk_call", ""):
        pytest.skip("this vendor's cumsum takes no workspace")
    fallback_mode("strict")
    mod = getattr(torch, device.type)
    x = torch.randn(64, 33)
    xd = x.to(device)
    mod.synchronize()
    calls_before = mod.memory_stats()["num_alloc_calls"]
    y = torch.cumsum(xd, 1)
    # The output and the workspace: two allocations.
    assert mod.memory_stats()["num_alloc_calls"] == calls_before + 2
    torch.testing.assert_close(y.cpu(), torch.cumsum(x, 1))
