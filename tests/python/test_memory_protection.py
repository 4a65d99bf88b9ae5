"""With device memory protected (inaccessible to the host outside driver work),
training and copies still work: the runtime never touches device memory from
the host. A host-side bug would crash the child process instead."""
from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

SCRIPT = r"""
import torch, torch_fl
from torch_fl import demo
assert demo.main(["--steps", "3"]) == 0
x = torch.randn(64, 64)
assert torch.equal(x.to(torch_fl.device()).t().contiguous().cpu(), x.t().contiguous())
print("PROTECTED-RUN-OK")
"""


def test_training_under_memory_protection(device):
    if device.type != "mlu":
        pytest.skip("protection mode is a feature of the simulated MLU driver")
    env = dict(os.environ, TORCH_FL_MLU_PROTECT="1", TORCH_FL_FALLBACK="strict")
    result = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "PROTECTED-RUN-OK" in result.stdout


def test_protection_catches_a_host_read_of_device_memory(device):
    if device.type != "mlu":
        pytest.skip("protection mode is a feature of the simulated MLU driver")
    # Reading device memory through a CPU view of its address must fault.
    script = r"""
import ctypes, torch, torch_fl
x = torch.ones(1024, device=torch_fl.device())
torch.mlu.synchronize()
print(ctypes.c_float.from_address(x.data_ptr()).value)
"""
    env = dict(os.environ, TORCH_FL_MLU_PROTECT="1")
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    # The fault itself, not any failure (an exception, a failed allocation) on the way to it.
    assert result.returncode in (-signal.SIGSEGV, -signal.SIGBUS), (result.returncode, result.stderr[-2000:])
    assert result.stdout == "", "the read returned a value"
