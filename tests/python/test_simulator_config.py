"""The simulated chips read their shape from TORCH_FL_<VENDOR>_*: a bad value is
a clear error naming the variable, the value and the accepted range, and an
out-of-memory message says what fragmentation left."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
import torch

import torch_fl

# What this file tests is the same code for every vendor: chip_independent (conftest.py).
pytestmark = pytest.mark.chip_independent

SIMULATED = {"mlu", "npu"}


def prefix() -> str:
    vendor = torch_fl.vendor()
    if vendor not in SIMULATED:
        pytest.skip(f"{vendor} is not a simulated chip: it has no TORCH_FL_{vendor.upper()}_* settings")
    return f"TORCH_FL_{vendor.upper()}"


def run_with(env: dict[str, str], code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, **env))


@pytest.mark.parametrize("variable,value,accepted", [
    ("MEMORY_MB", "abc", "from 1 to 1048576"),
    ("MEMORY_MB", "0", "from 1 to 1048576"),
    ("MEMORY_MB", "4096MB", "from 1 to 1048576"),
    ("MEMORY_MB", "99999999999999999999999", "from 1 to 1048576"),
    ("DEVICES", "-1", "from 0 to 64"),
    ("DEVICES", "65", "from 0 to 64"),
    ("PROTECT", "yes", "from 0 to 1"),
    ("SPIN_US", "50us", "from 0 to 100000"),
    ("SPIN_US", "100001", "from 0 to 100000"),
])
def test_bad_setting_is_refused_by_name(device, variable, value, accepted):
    name = f"{prefix()}_{variable}"
    result = run_with({name: value}, "import torch, torch_fl\ntorch.zeros(3, device=torch_fl.device())")
    assert result.returncode != 0
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("RuntimeError"), result.stderr[-2000:]
    assert f"{name}='{value}' is not valid" in last and accepted in last


def test_driver_that_cannot_start_fails_device_init_not_import(device):
    result = run_with({f"{prefix()}_DEVICES": "-1"},
                      "import torch, torch_fl\nprint('imported')\ngetattr(torch, torch_fl.device().type).init()")
    assert result.stdout.strip() == "imported"
    assert "_DEVICES='-1' is not valid" in result.stderr


def test_out_of_memory_message_gives_the_largest_free_block(device):
    # 12 MiB tensors: above the caching allocator's rounding, one driver allocation each.
    result = run_with({f"{prefix()}_MEMORY_MB": "96"}, """
import torch, torch_fl
device = torch_fl.device()
mib = 1 << 18  # float32 elements in 1 MiB
blocks = [torch.empty(12 * mib, device=device) for _ in range(7)]  # 84 of 96 MiB
del blocks[5], blocks[3], blocks[1]                                # 48 MiB free, in 12 MiB pieces
getattr(torch, device.type).empty_cache()
try:
    torch.empty(24 * mib, device=device)
except torch.OutOfMemoryError as error:
    print(error)
""")
    assert result.returncode == 0, result.stderr[-2000:]
    message = result.stdout
    free = re.search(r"(\d+) bytes free, the largest free block is (\d+) bytes", message)
    assert free, message
    assert int(free.group(1)) >= 24 << 20 > int(free.group(2)) == 12 << 20


def test_workers_that_never_spin_still_run_every_queue(device):
    # SPIN_US=0: an idle worker sleeps at once, so every op wakes it. Work on two
    # streams and a host wait still complete in order (the instruction benchmark runs so).
    result = run_with({f"{prefix()}_SPIN_US": "0"}, """
import torch, torch_fl
device = torch_fl.device()
module = getattr(torch, device.type)
x = torch.arange(1000.0, device=device)
main, side = module.current_stream(), module.Stream()
side.wait_stream(main)  # outside the `with`: in it, the current stream is `side` itself
with module.stream(side):
    y = x * 2
main.wait_stream(side)
for _ in range(50):
    y = y + 1
print(float(y.sum()))
""")
    assert result.returncode == 0, result.stderr[-2000:]
    assert float(result.stdout) == sum(2 * i + 50 for i in range(1000))


def test_the_alu_gives_large_kernels_atens_threads_and_small_ones_one(device):
    # `make test` runs the suites with OMP_NUM_THREADS=1 (Makefile, test-suites-%), which
    # leaves vendors/sim/alu.cpp's switch at one thread. Here the worker starts with two:
    # small kernels run on one, kernels of kParallelElements (32768) or more on both, in turn.
    prefix()
    result = run_with({"OMP_NUM_THREADS": "2"}, """
import torch, torch_fl
assert torch.get_num_threads() == 2, torch.get_num_threads()
device = torch_fl.device()
large = (torch.arange(1 << 20) % 7).float()  # sums stay exact in float32
small = torch.arange(100.0)
steps = [lambda t: (t * 2 + 1).sum(), lambda t: (t - 1).sum(), lambda t: t.cumsum(0)[-1]]
on_device = [float(step(t.to(device))) for _ in range(3) for t in (large, small) for step in steps]
on_cpu = [float(step(t)) for _ in range(3) for t in (large, small) for step in steps]
print(on_device == on_cpu, on_device[:6], on_cpu[:6])
""")
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.startswith("True"), result.stdout
