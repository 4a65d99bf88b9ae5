"""torch.distributed on the device: the spec's c10d backend (runtime/src/collectives/,
torch_fl/distributed.py) under torchrun with two processes, one device each
(distributed_worker.py), and in this process with a group of one for bad input."""
from __future__ import annotations

import datetime
import inspect
import logging
import os
import signal
import subprocess
import sys

import pytest
import torch
import torch.distributed as dist

import torch_fl
import torch_fl.distributed

import distributed_worker

HERE = os.path.dirname(os.path.abspath(__file__))

pytestmark = pytest.mark.skipif(not dist.is_available(), reason="this torch is built without torch.distributed")

# The backend names scripts of each chip's own PyTorch fork use; nvidia's is its own
# ("nccl" is PyTorch's, for torch.cuda tensors).
EXPECTED_BACKEND_NAMES = {"mlu": "cncl", "npu": "hccl", "nvidia": "nvgpu_nccl", "opencl": "ocl_gloo"}


def transport() -> str:
    backend = torch_fl.distributed.collective_backend()
    return backend.transport if backend else "none"


def needs_a_device_per_rank():
    """torchrun's two ranks take devices 0 and 1: a vendor library (NCCL) refuses two
    ranks on one device, where the staged backend shares it."""
    if transport() == "vendor_ccl" and torch_fl.device_count() < 2:
        pytest.skip(f"two ranks need two {torch_fl.vendor()} devices with a vendor collective library; "
                    f"this machine has {torch_fl.device_count()}")


def needs_staging(what: str):
    if transport() != "gloo_staged":
        pytest.skip(f"{what}: the staged (Gloo) backend's behaviour; the {torch_fl.vendor()} spec's transport is "
                    f"{transport()} (its backend is tested over a fake library in tests/cpp/device_ccl_*_test.cpp)")


def torchrun(run: str, out_dir, **env) -> list[dict]:
    """Runs distributed_worker.py's `run` on two ranks; returns what each rank saved."""
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2",
               os.path.join(HERE, "distributed_worker.py"), run, str(out_dir)]
    # A session of its own: on a timeout the ranks are killed with torchrun, not orphaned.
    launcher = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True, env=dict(os.environ, TORCH_FL_FALLBACK="silent", **env))
    try:
        stdout, stderr = launcher.communicate(timeout=180)
    except subprocess.TimeoutExpired:
        os.killpg(launcher.pid, signal.SIGKILL)
        stdout, stderr = launcher.communicate()
        pytest.fail(f"torchrun {run} did not finish in 180 s: {stderr[-6000:]}")
    assert launcher.returncode == 0, stdout[-3000:] + stderr[-6000:]
    return [torch.load(out_dir / f"rank{rank}.pt") for rank in range(2)]


@pytest.fixture(scope="module")
def one_process_reference(device):
    """Losses and parameters of the same training on the whole batch, in one process."""
    model = distributed_worker.make_model(device)
    losses = distributed_worker.train(model, device)
    return losses, {name: p.detach().cpu() for name, p in model.named_parameters()}


@pytest.mark.parametrize("wrapper", ["ddp", "fsdp"])
def test_two_process_training_under_torchrun_matches_one_process(wrapper, one_process_reference, tmp_path):
    needs_a_device_per_rank()
    ranks = torchrun(wrapper, tmp_path)
    expected_losses, expected_params = one_process_reference
    # Each rank's loss is its half's mean: their mean is the whole batch's.
    losses = [sum(pair) / 2 for pair in zip(ranks[0]["losses"], ranks[1]["losses"])]
    assert losses == pytest.approx(expected_losses, abs=1e-5)
    assert ranks[0]["losses"] != ranks[1]["losses"]  # the ranks did see different halves
    for name, expected in expected_params.items():
        torch.testing.assert_close(ranks[0]["params"][name], expected, atol=1e-5, rtol=1e-5, msg=name)
        assert torch.equal(ranks[0]["params"][name], ranks[1]["params"][name]), name
    if wrapper == "ddp":
        assert ranks[0]["buckets"] > 1  # PyTorch's C++ reducer sent the gradients in several buckets
    else:
        assert ranks[0]["sharded"] == "DTensor"
    assert ranks[0]["fallbacks"] == ranks[1]["fallbacks"]


def test_every_collective_and_declared_dtype_matches_gloo_on_cpu(device, tmp_path):
    needs_a_device_per_rank()
    ranks = torchrun("collectives", tmp_path)
    declared = torch_fl.distributed.collective_backend().dtypes
    for rank in ranks:
        assert rank["mismatches"] == []
        assert len(rank["checked"]) == len(distributed_worker._collectives(0, 2)) * len(declared)
        # Gloo refuses ReduceOp.AVG on integers: so does the device, and nothing else is refused.
        refused = {(name, dtype) for name, dtype, outcome in rank["checked"] if outcome == "refused"}
        assert {name for name, _ in refused} <= {"all_reduce[avg]"}
    if transport() != "gloo_staged":
        return  # only the staged backend checks that the ranks agree (the worker skips that part)
    for rank in range(2):
        mismatch = ranks[rank]["mismatched_shapes"]
        assert mismatch["type"] == "DistBackendError"
        assert f"all_reduce (" in mismatch["error"] and f"rank {rank} of 2" in mismatch["error"]
        assert "rank 0: all_reduce of float32 with 4 elements; rank 1: all_reduce of float32 with 6 elements" \
            in mismatch["error"]
        assert ranks[rank]["after_mismatch"] == [2.0] * 4  # the group still works


def test_a_rank_that_never_joins_the_collective_times_out_naming_it(device, tmp_path):
    # A vendor library's wait() orders the stream without blocking the host (as NCCL's
    # does): its watchdog aborts the group after the timeout and fails the Work, which
    # raises at the next wait() (tests/cpp/device_ccl_lifecycle_test.cpp), not in .item().
    needs_staging("an error raised by the synchronous collective itself")
    ranks = torchrun("timeout", tmp_path, COLLECTIVE_TIMEOUT="3")
    outcome = ranks[0]
    assert outcome["type"] == "DistBackendError", outcome
    assert "all_reduce (" in outcome["error"] and "rank 0 of 2" in outcome["error"]
    assert "Timed out" in outcome["error"]
    assert 2.5 < outcome["seconds"] < 20  # the 3 s timeout, not a hang


@pytest.fixture
def group_of_one(device):
    """A process group of this process alone, on the vendor's backend."""
    def start(backend):
        dist.init_process_group(backend, store=dist.HashStore(), rank=0, world_size=1,
                                timeout=datetime.timedelta(seconds=30))
        return dist.group.WORLD
    yield start
    if dist.is_initialized():
        dist.destroy_process_group()


def test_the_spec_names_the_backend_and_init_takes_it(device, group_of_one):
    backend = torch_fl.distributed.collective_backend()
    assert backend.name == torch_fl.distributed.backend_name()
    assert backend.name == EXPECTED_BACKEND_NAMES[torch_fl.vendor()] and backend.device == device.type
    assert torch.float32 in backend.dtypes and torch.int16 not in backend.dtypes
    group = group_of_one(torch_fl.distributed.backend_name())
    assert group._get_backend(device).name() == backend.name
    gathered = torch.full((4,), -1.0, device=device)  # a group of one: the output must still be written
    dist.all_gather_into_tensor(gathered, torch.arange(4.0, device=device))
    c = torch.full((3,), -1.0)
    dist.all_gather_into_tensor(c, torch.arange(3.0))  # CPU tensors: the same group, to Gloo unstaged
    assert gathered.cpu().tolist() == [0.0, 1.0, 2.0, 3.0] and c.tolist() == [0.0, 1.0, 2.0]


def test_a_group_destroyed_with_collectives_in_flight_does_not_hang(device, group_of_one):
    group_of_one(torch_fl.distributed.backend_name())
    t = torch.ones(1 << 16, device=device)
    works = [dist.all_reduce(t, async_op=True) for _ in range(4)]
    dist.destroy_process_group()
    for work in works:  # each either finished or says why not
        try:
            work.wait()
        except dist.DistBackendError as error:
            assert "shut down" in str(error)
    assert t.cpu().eq(1.0).all()


def test_bad_input_is_refused_naming_the_collective_and_rank(device, group_of_one):
    group_of_one(torch_fl.distributed.backend_name())
    vendor = torch_fl.vendor()
    # The staged backend takes CPU tensors too and names the mix; a vendor library's
    # backend takes device tensors only and names the CPU one.
    with pytest.raises(RuntimeError, match=rf"\[{vendor}\] all_gather \(\w+, rank 0 of 1\): tensors on "
                                           rf"((cpu and {device.type}:0|{device.type}:0 and cpu): one collective "
                                           "takes tensors of one device|cpu are not this backend's)"):
        dist.all_gather([torch.zeros(2, device=device)], torch.zeros(2))
    with pytest.raises(RuntimeError, match=r"all_reduce \(\w+, rank 0 of 1\): dtype int16 is not supported"):
        dist.all_reduce(torch.zeros(2, dtype=torch.int16, device=device))
    with pytest.raises(RuntimeError, match=r"all_reduce .*: tensors must be contiguous"):
        dist.all_reduce(torch.zeros(4, 4, device=device).t())
    t = torch.ones(3, device=device)
    dist.all_reduce(t)  # nothing was lost on the way
    assert t.cpu().tolist() == [1.0, 1.0, 1.0]


def test_nccl_means_the_vendor_backend_only_under_cuda_compat(device, group_of_one, caplog):
    if torch.cuda.is_available():
        pytest.skip("torch_fl.cuda_compat() is for machines without CUDA; this one has torch.cuda")
    with caplog.at_level(logging.INFO, logger="torch_fl"), torch_fl.cuda_compat():
        group = group_of_one("nccl")
        t = torch.ones(2, device="cuda")
        dist.all_reduce(t)
    swaps = [r for r in caplog.records if "distributed backend 'nccl' runs as" in r.getMessage()]
    assert len(swaps) == 1
    assert group._get_backend(device).name() == torch_fl.distributed.backend_name()
    assert t.device.type == device.type and t.cpu().tolist() == [1.0, 1.0]
    assert torch_fl.distributed.nccl_to_vendor("cpu:gloo,cuda:nccl") == \
        f"cpu:gloo,{device.type}:{torch_fl.distributed.backend_name()}"


def test_the_agreement_check_can_be_turned_off_and_a_bad_setting_is_refused(device, group_of_one, monkeypatch):
    needs_staging("TORCH_FL_COLLECTIVE_CHECKS")
    monkeypatch.setenv("TORCH_FL_COLLECTIVE_CHECKS", "yes")
    with pytest.raises(RuntimeError, match="TORCH_FL_COLLECTIVE_CHECKS=yes: expected 1"):
        group_of_one(torch_fl.distributed.backend_name())
    assert not dist.is_initialized()
    monkeypatch.setenv("TORCH_FL_COLLECTIVE_CHECKS", "0")
    group_of_one(torch_fl.distributed.backend_name())
    gathered = torch.full((2,), -1.0, device=device)
    dist.all_gather_into_tensor(gathered, torch.ones(2, device=device))
    assert gathered.cpu().tolist() == [1.0, 1.0]


@pytest.mark.without_device
def test_a_vendor_library_group_publishes_its_id_and_leaves_cpu_tensors_to_gloo():
    """transport: vendor_ccl (nvidia's NCCL): the group is made on any machine (rank 0
    makes the library's unique id and puts it in the store), CPU tensors go to its Gloo, and device tensors to the
    library, or, with no device, fail naming the vendor."""
    if transport() != "vendor_ccl":
        pytest.skip(f"the {torch_fl.vendor()} spec's transport is {transport()}, not vendor_ccl")
    torch_fl.init()
    backend = torch_fl.distributed.collective_backend()
    store = dist.HashStore()
    dist.init_process_group(backend.name, store=store, rank=0, world_size=1, timeout=datetime.timedelta(seconds=30))
    try:
        group = dist.group.WORLD
        assert group._get_backend(torch.device(backend.device)).name() == backend.name
        assert group._get_backend(torch.device("cpu")).name() == "gloo"
        assert store.num_keys() <= 1  # the id was taken off the store once read (what stays is PyTorch's)
        cpu = torch.arange(3.0)
        dist.all_reduce(cpu)
        assert cpu.tolist() == [0.0, 1.0, 2.0]
        if torch_fl.device_count() == 0:
            with pytest.raises(RuntimeError, match=rf"\[{torch_fl.vendor()}\]"):
                dist.all_reduce(torch.ones(2, device=backend.device))
        else:  # a group of one on the device: the library's calls run, the data is kept
            t = torch.arange(4.0, device=backend.device)
            dist.all_reduce(t)
            gathered = torch.full((4,), -1.0, device=backend.device)
            dist.all_gather_into_tensor(gathered, t)
            dist.broadcast(t, src=0)
            assert t.cpu().tolist() == gathered.cpu().tolist() == [0.0, 1.0, 2.0, 3.0]
    finally:
        dist.destroy_process_group()


@pytest.mark.parametrize("spelling", [None, 0, "NAME", "NAME:0", "DEVICE"], ids=str)
def test_get_backend_config_gives_init_process_groups_arguments(device, spelling):
    """get_backend_config(DEVICE) as the articles write it: init_process_group(**cfg) takes it."""
    argument = {"NAME": device.type, "NAME:0": f"{device.type}:0", "DEVICE": device}.get(spelling, spelling)
    config = torch_fl.distributed.get_backend_config(argument)
    assert config["backend"] == torch_fl.distributed.backend_name()
    assert config["init_method"] == "env://"
    assert config["timeout"] == torch.distributed.constants.default_pg_timeout
    assert set(config) <= set(inspect.signature(torch.distributed.init_process_group).parameters)
    assert torch_fl.distributed.get_backend_config("cpu")["backend"] == "gloo"
    with pytest.raises(ValueError, match="not this backend's device"):
        torch_fl.distributed.get_backend_config("cuda")


def test_get_backend_config_without_a_device_keeps_its_old_answer_with_a_warning(device):
    with pytest.warns(FutureWarning, match="Use backend_name"):
        assert torch_fl.distributed.get_backend_config() == torch_fl.distributed.backend_name()


def test_a_group_made_from_get_backend_config_runs_collectives_on_the_device(device, tmp_path):
    config = torch_fl.distributed.get_backend_config(device)
    config["init_method"] = f"file://{tmp_path / 'store'}"  # one process: no torchrun environment
    torch.distributed.init_process_group(**config, rank=0, world_size=1)
    try:
        x = torch.arange(4.0, device=device)
        torch.distributed.all_reduce(x)
        assert torch.equal(x.cpu(), torch.arange(4.0))
        assert torch.distributed.get_backend() == config["backend"]
    finally:
        torch.distributed.destroy_process_group()
