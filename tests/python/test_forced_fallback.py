"""Switching a native kernel off without a rebuild: TORCH_FL_FORCE_FALLBACK and
torch_fl.force_fallback() send named ops to the CPU fallback, reason "forced"."""
from __future__ import annotations

import os
import subprocess
import sys
import warnings

import pytest
import torch

import torch_fl
from torch_fl import fallback


def records_for(op: str) -> list[dict]:
    return [r for r in fallback.records() if r["op"] == op]


@pytest.fixture(autouse=True)
def restore_native_kernels():
    yield
    torch_fl.force_fallback([])


def test_a_forced_native_op_runs_on_cpu_with_reason_forced_and_comes_back(device):
    a, b = torch.randn(4, 3), torch.randn(4, 3)
    da, db = a.to(device), b.to(device)
    torch_fl.reset_fallback_stats()
    torch.testing.assert_close((da + db).cpu(), a + b)
    assert records_for("aten::add.Tensor") == [], "add.Tensor is native on this chip: nothing to force"

    assert torch_fl.force_fallback(["add.Tensor"]) == ["aten::add.Tensor"]
    assert torch_fl.forced_fallbacks() == ["aten::add.Tensor"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.testing.assert_close((da + db).cpu(), a + b)
    assert [(r["reason"], r["count"]) for r in records_for("aten::add.Tensor")] == [("forced", 1)]

    torch_fl.force_fallback([])
    assert torch_fl.forced_fallbacks() == []
    torch_fl.reset_fallback_stats()
    torch.testing.assert_close((da + db).cpu(), a + b)
    assert records_for("aten::add.Tensor") == [], "the native kernel did not come back"


def test_a_glob_forces_every_matching_overload(device):
    forced = torch_fl.force_fallback(["aten::convolution*"])
    assert "aten::convolution" in forced and "aten::convolution_backward" in forced
    assert all(name.startswith("aten::convolution") for name in forced)
    torch_fl.reset_fallback_stats()
    x, w = torch.randn(1, 2, 5, 5), torch.randn(3, 2, 3, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = torch.nn.functional.conv2d(x.to(device), w.to(device))
    torch.testing.assert_close(got.cpu(), torch.nn.functional.conv2d(x, w), rtol=1e-4, atol=1e-5)
    reasons = {r["reason"] for r in fallback.records() if r["op"].startswith("aten::convolution")}
    assert reasons == {"forced"}


def test_strict_mode_refuses_a_forced_op_saying_why(device, fallback_mode):
    torch_fl.force_fallback(["mm"])
    fallback_mode("strict")
    with pytest.raises(NotImplementedError, match=r"aten::mm .*\(forced\).*strict"):
        torch.randn(2, 2, device=device) @ torch.randn(2, 2, device=device)


def test_an_unknown_name_is_refused_with_close_names(device):
    with pytest.raises(ValueError, match=r"'aten::ad.Tensor' names no ATen operator.*aten::add\.Tensor"):
        torch_fl.force_fallback(["aten::ad.Tensor"])
    assert torch_fl.forced_fallbacks() == [], "a refused list must change nothing"


def run_with_environment(value: str, code: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, TORCH_FL_FORCE_FALLBACK=value, TORCH_FL_FALLBACK="silent")
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)


def test_the_environment_variable_forces_ops_at_start_up(device):
    code = ("import torch, torch_fl\n"
            "from torch_fl import fallback\n"
            f"x = torch.randn(2, 2, device='{device.type}')\n"
            "y = (x @ x).cpu()\n"
            "print(torch_fl.forced_fallbacks(), sorted({r['reason'] for r in fallback.records() "
            "if r['op'] == 'aten::mm'}))")
    run = run_with_environment("aten::mm, relu", code)
    assert run.returncode == 0, run.stderr
    # A name without an overload means all its overloads (relu_ is another operator).
    assert run.stdout.strip() == ("['aten::mm', 'aten::mm.dtype', 'aten::mm.dtype_out', 'aten::mm.out', "
                                  "'aten::relu', 'aten::relu.out'] ['forced']")


def test_a_bad_environment_variable_names_itself(device):
    run = run_with_environment("aten::not_an_op", "import torch_fl")
    assert run.returncode != 0
    assert "TORCH_FL_FORCE_FALLBACK='aten::not_an_op'" in run.stderr and "names no ATen operator" in run.stderr


def test_the_environment_is_applied_in_this_process_and_blank_names_are_skipped(device, monkeypatch):
    from torch_fl import forced_fallback
    monkeypatch.setenv(forced_fallback.ENV_VAR, " , aten::mm.out,, relu ")
    forced_fallback.apply_environment()
    assert torch_fl.forced_fallbacks() == ["aten::mm.out", "aten::relu", "aten::relu.out"]
    monkeypatch.setenv(forced_fallback.ENV_VAR, "aten::not_an_op")
    with pytest.raises(ValueError, match=r"^TORCH_FL_FORCE_FALLBACK='aten::not_an_op': .*names no ATen operator"):
        forced_fallback.apply_environment()
    monkeypatch.setenv(forced_fallback.ENV_VAR, "  ")
    forced_fallback.apply_environment()  # blank: nothing changes
    assert torch_fl.forced_fallbacks() == ["aten::mm.out", "aten::relu", "aten::relu.out"]


def test_a_name_with_nothing_close_gets_no_empty_hint(device):
    with pytest.raises(ValueError) as refused:
        torch_fl.force_fallback(["zzzqqq_xyzzy_plugh"])
    assert str(refused.value).endswith(f"of torch {torch.__version__}")  # no "; close names: " with none after it


def test_the_fallback_report_lists_each_fallback_under_its_header(device, fallback_mode):
    fallback_mode("silent")
    torch_fl.reset_fallback_stats()
    assert torch_fl.fallback_report() == "no CPU fallbacks"
    torch_fl.force_fallback(["mm", "relu"])
    x = torch.randn(2, 2, device=device)
    for _ in range(3):
        x @ x
    torch.relu(x)
    assert torch_fl.fallback_report().splitlines() == [
        f"{'count':>7}  {'op':<40} {'dtype':<10} reason",
        f"{3:>7}  {'aten::mm':<40} {'Float':<10} forced",
        f"{1:>7}  {'aten::relu':<40} {'Float':<10} forced"]
