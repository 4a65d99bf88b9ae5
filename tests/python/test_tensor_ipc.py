"""Device memory shared between processes (#32): with a driver that has
TFL_CAP_IPC_MEMORY, a device tensor sent through torch.multiprocessing is the
same memory on both sides, as a CUDA tensor is. Without it (opencl), or with
TORCH_FL_IPC=0, it goes by value and says why (test_multiprocessing.py)."""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
import textwrap
from multiprocessing.reduction import ForkingPickler
from pathlib import Path

import pytest
import torch

import torch_fl


def shares_memory(device: torch.device) -> bool:
    return torch.ops.torch_fl._ipc_supported(device.index or 0)


@pytest.fixture
def ipc_device(device):
    if not shares_memory(device):
        pytest.skip(f"the {device.type} driver has no TFL_CAP_IPC_MEMORY: tensors go by value "
                    "(test_a_driver_without_ipc_says_why_it_copies)")
    return device


def run(args: list[str], cwd: Path, **env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=240, cwd=cwd,
                          env=dict(os.environ, TORCH_FL_FALLBACK="silent", **env))


def test_producer_and_consumer_share_memory(ipc_device, tmp_path):
    """Writes seen both ways through a view with an offset and a stride; a received
    tensor is not sent on; a block the producer frees is kept while the consumer holds
    it, and collected once released (tests/python/ipc_script.py)."""
    result = run([str(Path(__file__).with_name("ipc_script.py")), ipc_device.type], tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    assert result.stdout.splitlines() == [
        "consumer's writes seen", "producer's writes seen", "re-sharing refused",
        "a freed block is kept while the consumer holds it", "collected 1 released block(s)", "ok"]
    assert "by value" not in result.stderr


def test_spawned_dataloader_workers_share_device_batches(ipc_device, tmp_path):
    """A worker builds each batch on the device; the main process gets the worker's
    memory (no copy, no by-value warning), and the worker's blocks are not reused
    under the batches the main process still holds."""
    script = tmp_path / "loader.py"
    script.write_text(textwrap.dedent(f"""
        import torch, torch_fl
        from torch.utils.data import DataLoader, Dataset

        class MadeOnDevice(Dataset):
            def __len__(self):
                return 8
            def __getitem__(self, i):
                return torch.full((1024,), float(i), device="{ipc_device.type}:0")

        if __name__ == "__main__":
            loader = DataLoader(MadeOnDevice(), batch_size=2, num_workers=2, multiprocessing_context="spawn",
                                timeout=120, prefetch_factor=2)
            batches = list(loader)  # all held at once: the workers keep making and freeing theirs
            assert all(torch.ops.torch_fl._ipc_is_received(b) for b in batches)
            got = torch.stack([b.cpu() for b in batches])
            want = torch.arange(8.0).reshape(4, 2, 1).expand(4, 2, 1024)
            torch.testing.assert_close(got, want)
            print("ok")
    """))
    result = run([str(script)], tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip().endswith("ok")
    assert "by value" not in result.stderr


def test_a_tensor_sent_back_to_its_producer_is_its_own_storage(ipc_device):
    """As with CUDA: a round trip within one process aliases, and frees nothing early."""
    base = torch.arange(16.0, device=ipc_device)
    received = pickle.loads(ForkingPickler.dumps(base[4:]))
    assert received.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()
    assert received.storage_offset() == 4 and not torch.ops.torch_fl._ipc_is_received(received)
    base.add_(1)
    assert received.cpu().tolist() == [float(i) for i in range(5, 17)]
    del base, received
    assert getattr(torch, ipc_device.type).ipc_collect() == 0  # released when it came back: nothing waits


def test_a_tensor_sent_every_step_does_not_run_out_of_slots(ipc_device):
    """Each send takes a slot in a file of 16384; the released ones of a storage
    that lives on (a weight sent every step) are taken back at its next send."""
    weight = torch.ones(16, device=ipc_device)
    for _ in range(16384 + 100):
        received = pickle.loads(ForkingPickler.dumps(weight))  # back at its producer: released at once
    assert received.untyped_storage().data_ptr() == weight.untyped_storage().data_ptr()


def test_threads_sending_one_tensor_at_once_agree(ipc_device):
    """One tensor put on several queues is pickled by each queue's feeder thread at
    once: the first send's swap of its DataPtr must not be seen half done."""
    import threading

    for _ in range(200):
        tensor = torch.arange(64.0, device=ipc_device)
        start = threading.Barrier(3)
        sent, errors = [], []

        def send():
            start.wait()
            try:
                sent.append(ForkingPickler.dumps(tensor))
            except RuntimeError as error:
                errors.append(str(error))

        threads = [threading.Thread(target=send) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not errors, errors[0]
        for record in sent:  # received here, so their slots are released
            assert pickle.loads(record).untyped_storage().data_ptr() == tensor.untyped_storage().data_ptr()


def test_a_tensor_in_a_private_format_is_shared_in_its_public_layout(ipc_device):
    """The NPU keeps a conv's result in NC1HWC0; the receiver's view describes the
    public layout, so that is what is shared."""
    from torch_fl.formats import storage_format

    conv = torch.nn.Conv2d(3, 16, 3)
    x = torch.randn(2, 3, 8, 8)
    with torch.no_grad():
        expected = conv(x)
        y = conv.to(ipc_device)(x.to(ipc_device))
    private = storage_format(y)  # read before anything converts it
    received = pickle.loads(ForkingPickler.dumps(y))
    assert storage_format(y) is None, f"sent in {private}"
    torch.testing.assert_close(received.cpu(), expected, atol=1e-5, rtol=1e-5)
    if private is None:
        pytest.skip(f"the {ipc_device.type} spec keeps no private format for conv2d; checked the public path only")


def test_device_events_are_not_pickled(device):
    event = torch.Event(device=device)
    with pytest.raises(RuntimeError, match=f"{device.type} events cannot be shared between processes"):
        ForkingPickler.dumps(event)


def test_a_driver_without_ipc_says_why_it_copies(device, monkeypatch):
    from torch_fl import multiprocessing as reducer

    monkeypatch.setattr(reducer, "_warned", False)
    if shares_memory(device):
        monkeypatch.setenv("TORCH_FL_IPC", "0")
        reason = "TORCH_FL_IPC=0"
    else:
        reason = f"the {device.type} driver cannot share device memory between processes"
    x = torch.arange(4.0, device=device)
    with pytest.warns(UserWarning, match=f"by value .*because {reason}"):
        received = pickle.loads(ForkingPickler.dumps(x))
    x.add_(1)
    assert received.cpu().tolist() == [0.0, 1.0, 2.0, 3.0]


def test_sharing_is_refused_where_the_driver_cannot(device):
    if shares_memory(device):
        pytest.skip(f"the {device.type} driver shares memory")
    with pytest.raises(RuntimeError, match="cannot be shared between processes"):
        torch.ops.torch_fl._ipc_share(torch.ones(4, device=device))
