"""float64 on a device without cl_khr_fp64 (many GPUs): the spec declares float64
native, the driver says the device cannot compute it (driver_abi.h,
device_dtypes), and the runtime runs it on the CPU fallback there, saying why,
while float32 stays native. TORCH_FL_OPENCL_NO_FP64=1 makes PoCL's device such a
GPU, in a fresh process."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from torch_fl import device_module

pytestmark = pytest.mark.skipif("memory_svm" not in device_module.driver_counters(),
                                reason="TORCH_FL_OPENCL_NO_FP64 is the OpenCL driver's")

WITHOUT_FP64 = textwrap.dedent("""
    import torch, torch_fl
    device = torch_fl.device(0)
    x64 = torch.linspace(-2, 2, 12, dtype=torch.float64)
    torch_fl.reset_fallback_stats()
    result = (x64.to(device) * 3).exp().sum()
    assert torch.allclose(result.cpu(), (x64 * 3).exp().sum()), (result, (x64 * 3).exp().sum())
    fell_back = {(r["op"], r["dtype"]) for r in torch_fl.fallback.records()}
    assert ("aten::mul.Tensor", "Double") in fell_back and ("aten::exp", "Double") in fell_back, fell_back
    torch_fl.reset_fallback_stats()
    x32 = x64.float()
    result = (x32.to(device) * 3).exp().sum()
    torch.testing.assert_close(result.cpu(), (x32 * 3).exp().sum())
    assert torch_fl.fallback_count() == 0, torch_fl.fallback_report()
    print("fp64 ok")
""")


def test_float64_runs_on_the_cpu_fallback_on_a_device_without_fp64():
    env = dict(os.environ, TORCH_FL_OPENCL_NO_FP64="1", TORCH_FL_FALLBACK="silent")
    run = subprocess.run([sys.executable, "-c", WITHOUT_FP64], env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "fp64 ok" in run.stdout
