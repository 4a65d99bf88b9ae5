"""A driver that compiles kernels at run time (opencl) keeps what it built on
disk: a second process compiles nothing for kernels it has used before, and
`torch-fl info` shows the cache's counters (TflDriver::driver_counters)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import torch_fl
from torch_fl import device_module

pytestmark = pytest.mark.skipif("program_builds" not in device_module.driver_counters(),
                                reason=f"{torch_fl.vendor()}'s driver compiles no kernels at run time")

# A training-like step's worth of kernels: elementwise, a reduction, GEMM.
STEP = ("import json, torch, torch_fl\n"
        "from torch_fl import device_module\n"
        "x = torch.randn(16, 8, device='{device}')\n"
        "w = torch.randn(8, 4, device='{device}', requires_grad=True)\n"
        "loss = (x @ w).relu().sum()\n"
        "loss.backward()\n"
        "torch.{device}.synchronize()\n"
        "print(json.dumps(device_module.driver_counters()))\n")


def run_step(device, cache_dir) -> dict:
    env = {**os.environ, "TORCH_FL_OPENCL_CACHE_DIR": str(cache_dir)}
    env.pop("POCL_CACHE_DIR", None)  # PoCL's own cache goes under ours
    result = subprocess.run([sys.executable, "-c", STEP.format(device=device.type)], capture_output=True, text=True,
                            env=env, timeout=600)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


def test_a_second_process_builds_nothing_it_built_before(device, tmp_path):
    first = run_step(device, tmp_path)
    assert first["program_builds"] > 0 and first["program_cache_disk_hits"] == 0, first
    assert first["program_build_ms"] > 0
    second = run_step(device, tmp_path)
    assert second["program_builds"] == 0, second
    assert second["program_cache_disk_hits"] == first["program_builds"], (first, second)


def test_info_shows_the_drivers_counters(device):
    result = subprocess.run([sys.executable, "-m", "torch_fl", "info", "--json"], capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr
    counters = json.loads(result.stdout)["driver_counters"]
    assert {"program_cache_memory_hits", "program_cache_disk_hits", "program_builds", "program_build_ms"} <= set(counters)
