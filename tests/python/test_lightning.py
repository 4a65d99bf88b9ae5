"""PyTorch Lightning on the device (torch_fl/lightning.py): Trainer(accelerator="<device>")
with one device, and with two under strategy="ddp" on the vendor's c10d backend, as a
user runs it (tests/python/lightning_script.py, in its own process: Lightning's DDP
starts the other rank by running the script again). Each matches the same training
on CPU (two CPU ranks on Gloo for DDP).

Needs pytorch-lightning (pinned in requirements.txt); without it the file skips."""
from __future__ import annotations

import json
import os
import sys

import pytest
import torch

import torch_fl
from processes import run_process_tree

# What this file tests is the same code for every vendor: chip_independent (conftest.py).
pytestmark = pytest.mark.chip_independent

pl = pytest.importorskip("pytorch_lightning", reason="pytorch-lightning is not installed (pinned in requirements.txt)")

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lightning_script.py")


def train(tmp_path, accelerator: str, devices: int) -> dict:
    output = tmp_path / f"{accelerator}_{devices}.json"
    run = run_process_tree([sys.executable, SCRIPT, accelerator, str(devices), str(output)], timeout=300,
                           cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-4000:]
    with open(output) as f:
        return json.load(f)


def assert_same_parameters(got: dict, expected: dict) -> None:
    assert got.keys() == expected.keys()
    for name in expected:
        torch.testing.assert_close(torch.tensor(got[name]), torch.tensor(expected[name]), rtol=1e-5, atol=1e-6,
                                   msg=name)


@pytest.mark.parametrize("devices", [1, 2], ids=["one-device", "ddp-two-devices"])
def test_lightning_trains_on_the_device_as_on_cpu(device, tmp_path, devices):
    if devices > torch_fl.device_count():
        pytest.skip(f"needs {devices} devices; this machine has {torch_fl.device_count()}")
    got = train(tmp_path, device.type, devices)
    expected = train(tmp_path, "cpu", devices)
    assert got["devices_seen"] == [[f"{device.type}:{rank}"] for rank in range(devices)]
    assert got["root_device"] == f"{device.type}:0"
    if devices > 1:
        assert got["backend"] == torch_fl.distributed.backend_name() and expected["backend"] == "gloo"
    assert_same_parameters(got["parameters"], expected["parameters"])


def test_the_accelerator_is_registered_under_the_device_name(device):
    from pytorch_lightning.accelerators import AcceleratorRegistry
    entry = AcceleratorRegistry[device.type]
    accelerator = entry["accelerator"]()
    assert accelerator.is_available() and accelerator.auto_device_count() == torch_fl.device_count()
    assert accelerator.get_parallel_devices(accelerator.parse_devices("auto")) == [
        torch.device(device.type, i) for i in range(torch_fl.device_count())]
    # Lightning's spellings: a count, "N" (a count), "i,j" (indices), a list of indices.
    assert accelerator.parse_devices(1) == [0] and accelerator.parse_devices("1") == [0]
    assert accelerator.parse_devices("0,") == [0] and accelerator.parse_devices([0]) == [0]
    assert "allocated_bytes.all.current" in accelerator.get_device_stats(torch.device(device.type, 0))


@pytest.mark.parametrize("devices", [99, [99], "0,99"], ids=str)
def test_devices_the_machine_lacks_are_refused_naming_the_count(device, devices):
    with pytest.raises(ValueError, match=f"this machine has {torch_fl.device_count()}"):
        pl.Trainer(accelerator=device.type, devices=devices, logger=False)
