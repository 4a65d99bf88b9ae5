"""A script that ends right after a backward on the device exits cleanly. The autograd
device thread frees the graph task after the caller returns, and that free takes the GIL;
without torch_fl's drain at exit, about 1 run in 10 aborted in interpreter finalization
("terminate called without an active exception"). Several runs, so that the race shows."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

import torch_fl

# What this file tests is the same code for every vendor: chip_independent (conftest.py).
pytestmark = pytest.mark.chip_independent

SCRIPT = """
import torch, torch_fl
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2)).to(torch_fl.device())
x = torch.randn(16, 4, device=torch_fl.device())
for _ in range(3):
    model(x).sum().backward()
"""

RUNS = 12


def test_a_script_ending_right_after_backward_exits_cleanly(device, tmp_path):
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, TORCH_FL_VENDOR=torch_fl.vendor(), TORCH_FL_FALLBACK="silent")
    failures = []
    for _ in range(RUNS):
        run = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120)
        if run.returncode != 0:
            failures.append((run.returncode, run.stderr[-500:]))
    assert failures == [], f"{len(failures)} of {RUNS} runs failed at exit: {failures[0]}"
