"""DeepSpeed on the device (torch_fl/deepspeed_accelerator.py).

deepspeed.initialize with ZeRO stages 1, 2 and 3 trains on two processes, one per device,
over the vendor's c10d backend (tests/python/deepspeed_script.py, started as DeepSpeed's
launcher starts ranks), and ends with the parameters of the same training in one process
on DeepSpeed's CPU accelerator. Stage 3 partitions each parameter across the ranks,
gathers it for every forward and backward (all_gather_into_tensor) and reduce-scatters
the gradients (reduce_scatter_tensor). Then the accelerator's own answers, in this process.

Needs deepspeed (pinned in requirements.txt); without it the file skips."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
import torch

import torch_fl
from processes import free_port

# What this file tests is the same code for every vendor: chip_independent (conftest.py).
pytestmark = pytest.mark.chip_independent

deepspeed = pytest.importorskip("deepspeed", reason="deepspeed is not installed (pinned in requirements.txt)")

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "deepspeed_script.py")


def train(output, stage: int, world_size: int, accelerator: str | None = None, timeout: float = 300) -> dict:
    """Runs the script on world_size ranks, with the variables DeepSpeed's launcher sets.
    A rank that fails or hangs ends the others (a survivor would wait in a collective
    forever); each rank's output goes to a file, read back for the failure message."""
    env = dict(os.environ, WORLD_SIZE=str(world_size), MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()))
    # Named even for the device: on a machine that also has a real CUDA device (the nvidia
    # vendor's), DeepSpeed would otherwise keep CUDA (deepspeed_accelerator._in_tree_accelerator).
    env["DS_ACCELERATOR"] = accelerator or torch._C._get_privateuse1_backend_name()
    logs = [output.parent / f"{output.stem}.rank{rank}.log" for rank in range(world_size)]
    ranks = []
    try:
        for rank, log in enumerate(logs):
            with open(log, "w") as sink:
                ranks.append(subprocess.Popen([sys.executable, SCRIPT, str(stage), str(output)],
                                              env=dict(env, RANK=str(rank), LOCAL_RANK=str(rank)), stdout=sink,
                                              stderr=subprocess.STDOUT))
        deadline = time.monotonic() + timeout
        while None in (states := [rank.poll() for rank in ranks]):  # every rank polled, each time
            failed = [r for r, state in enumerate(states) if state not in (None, 0)]
            assert not failed and time.monotonic() < deadline, (
                f"rank {failed[0]} failed" if failed else f"the ranks did not finish in {timeout} s") + \
                "".join(f"\n--- rank {r}:\n{log.read_text()[-3000:]}" for r, log in enumerate(logs))
            time.sleep(0.2)
        for r, rank in enumerate(ranks):
            assert rank.returncode == 0, f"rank {r} failed:\n{logs[r].read_text()[-4000:]}"
    finally:
        for rank in ranks:
            if rank.poll() is None:
                rank.kill()
                rank.wait()
    with open(output) as f:
        return json.load(f)


@pytest.fixture(scope="module")
def one_cpu_process(tmp_path_factory) -> dict:
    """The same training in one process on DeepSpeed's CPU accelerator (Gloo)."""
    if torch_fl.device_count() < 2:  # before the CPU run: its only use is the two-device tests
        pytest.skip(f"needs 2 devices; this machine has {torch_fl.device_count()}")
    return train(tmp_path_factory.mktemp("cpu") / "cpu.json", 1, 1, accelerator="cpu")


@pytest.mark.parametrize("stage", [1, 2, 3])
def test_zero_trains_on_two_devices_as_in_one_cpu_process(device, tmp_path, stage, one_cpu_process):
    got = train(tmp_path / "device.json", stage, 2)
    assert (got["accelerator"], got["device"]) == (device.type, f"{device.type}:0")
    assert got["backend"] == torch_fl.distributed.backend_name()
    assert one_cpu_process["device"] == "cpu" and one_cpu_process["backend"] == "gloo"
    # Stage 3 holds a shard of each parameter: gathered for use, gradients reduce-scattered.
    used = {"all_gather_into_tensor", "reduce_scatter_tensor"} if stage == 3 else {"all_gather_into_tensor", "all_reduce"}
    assert used <= set(got["collectives"]), got["collectives"]
    assert "coalesced" not in got["collectives"]  # what docs/frameworks.md says of DeepSpeed 0.19.8
    expected = one_cpu_process["parameters"]
    assert got["parameters"].keys() == expected.keys()
    for name in expected:
        torch.testing.assert_close(torch.tensor(got["parameters"][name]), torch.tensor(expected[name]),
                                   rtol=1e-5, atol=1e-5, msg=name)


@pytest.fixture
def accelerator(device):
    from deepspeed.accelerator import get_accelerator
    from torch_fl import deepspeed_accelerator
    other = deepspeed_accelerator._in_tree_accelerator()
    if other is not None and os.environ.get("DS_ACCELERATOR") != device.type:
        pytest.skip(f"a real {other} device is present: DeepSpeed keeps it in this process "
                    f"(DS_ACCELERATOR={device.type} picks ours; the two-device runs set it)")
    return get_accelerator()


def test_deepspeed_takes_the_device_when_imported(device, accelerator):
    assert type(accelerator).__name__ == f"{device.type.upper()}_Accelerator"
    assert accelerator.device_name() == device.type and accelerator.device_name(1) == f"{device.type}:1"
    assert accelerator.current_device_name() == f"{device.type}:{torch_fl.device_module.current_device()}"
    assert accelerator.device_count() == torch_fl.device_count() and accelerator.is_available()
    assert accelerator.communication_backend_name() == torch_fl.distributed.backend_name()
    assert not accelerator.is_synchronized_device()  # asynchronous streams, as CUDA


def test_tensors_streams_events_and_memory_are_the_devices(device, accelerator):
    x = accelerator.FloatTensor([1.0, 2.0])
    assert x.device == device and x.dtype == torch.float32 and accelerator.on_accelerator(x)
    # As DeepSpeed's CUDA accelerator: torch.tensor with the dtype, so a number is a value, not a size.
    half = accelerator.HalfTensor(3)
    assert (half.dtype, half.shape, half.item()) == (torch.float16, torch.Size([]), 3.0)
    assert accelerator.LongTensor([[1, 2]], requires_grad=False).device == device
    assert not accelerator.on_accelerator(torch.ones(1))
    stream = accelerator.Stream()
    with accelerator.stream(stream):
        y = x * 2
        event = accelerator.Event()
        event.record()
    event.synchronize()
    assert y.tolist() == [2.0, 4.0]
    assert accelerator.memory_allocated() == torch_fl.device_module.memory_allocated() > 0
    assert accelerator.total_memory() == torch_fl.device_module.get_device_properties(0).total_memory
    assert 0 < accelerator.available_memory() <= accelerator.total_memory()


def test_dtypes_follow_the_spec(device, accelerator):
    amp = torch_fl.device_module.get_amp_supported_dtype()
    assert accelerator.supported_dtypes() == [torch.float32, *amp]
    assert accelerator.is_bf16_supported() == (torch.bfloat16 in amp)
    # float64 gradient norms are all_reduced: only where the collectives take float64.
    assert accelerator.is_fp64_supported() == (torch.float64 in torch_fl.distributed.collective_backend().dtypes)


def test_the_default_generator_is_the_devices_rng(device, accelerator):
    generator = accelerator.default_generator(0)
    state = generator.get_state()
    first = torch.rand(4, device=device)
    generator.set_state(state)  # what activation checkpointing does to replay dropout
    assert torch.equal(torch.rand(4, device=device), first)


def test_ranges_reach_the_profiler(device, accelerator):
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as profile:
        accelerator.range_push("zero step")
        torch.ones(2, device=device).sum().item()
        accelerator.range_pop()
    assert "zero step" in [event.name for event in profile.events()]


def test_what_the_device_lacks_refuses(device, accelerator):
    assert accelerator.create_op_builder("FusedAdamBuilder") is None  # DeepSpeed's "not available"
    assert accelerator.get_op_builder("CPUAdamBuilder") is None
    with pytest.raises(NotImplementedError, match=f"the {device.type} device has no graph capture"):
        accelerator.create_graph()


def run_choosing(**env: str) -> subprocess.CompletedProcess:
    script = ("import torch_fl, deepspeed\n"
              "from deepspeed.accelerator import get_accelerator\n"
              "print(get_accelerator().device_name())\n")
    environment = {k: v for k, v in os.environ.items() if k != "DS_ACCELERATOR"}
    return subprocess.run([sys.executable, "-c", script], env=dict(environment, **env), capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("chosen", ["cpu", "device"])
def test_ds_accelerator_decides(device, chosen):
    name = device.type if chosen == "device" else chosen
    run = run_choosing(DS_ACCELERATOR=name)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split()[-1] == name


def test_a_real_gpu_keeps_deepspeeds_own_choice(device, monkeypatch):
    """With our wheel on a machine that also has a CUDA GPU, DeepSpeed finds the GPU as it
    did before; only DS_ACCELERATOR=<device> picks ours there."""
    from torch_fl import cuda_compatibility, deepspeed_accelerator
    monkeypatch.setattr(cuda_compatibility, "_real_cuda_present", lambda: True)
    assert deepspeed_accelerator._in_tree_accelerator() == "cuda"
    monkeypatch.setattr(cuda_compatibility, "_real_cuda_present", lambda: False)
    assert deepspeed_accelerator._in_tree_accelerator() is None


def test_the_launchers_device_list(device, accelerator):
    """What DeepSpeed's launcher sets for each node: the devices 0..k-1, and a refusal of
    others, which the runtime would not renumber (each rank uses <device>:LOCAL_RANK)."""
    assert accelerator.visible_devices_envs() == ["TORCH_FL_VISIBLE_DEVICES"]
    env = {}
    accelerator.set_visible_devices_envs(env, [0, 1])
    assert env == {"TORCH_FL_VISIBLE_DEVICES": "0,1"}
    with pytest.raises(ValueError, match="does not renumber devices"):
        accelerator.set_visible_devices_envs(env, [1])
