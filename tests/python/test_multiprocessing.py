"""Device tensors sent to other processes (spawned DataLoader workers,
torch.multiprocessing queues) arrive on the same device index of the other
process's backend, and nobody is left waiting. Here by value (TORCH_FL_IPC=0, and
every driver without IPC); shared memory is test_tensor_ipc.py's."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
import torch

import torch_fl


def run_script(code: str, directory) -> subprocess.CompletedProcess:
    """Runs code as a script file: spawned children re-import __main__ from it."""
    script = directory / "script.py"
    script.write_text(textwrap.dedent(code))
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=240,
                          env=dict(os.environ, TORCH_FL_FALLBACK="silent", TORCH_FL_IPC="0"))


def test_spawned_dataloader_workers_get_the_datasets_device_tensors(device, tmp_path):
    result = run_script(f"""
        import torch, torch_fl
        from torch.utils.data import DataLoader, Dataset

        class OnDevice(Dataset):
            def __init__(self):
                self.data = torch.arange(12.0).reshape(6, 2).to("{device.type}:{torch_fl.device_count() - 1}")
            def __len__(self):
                return 6
            def __getitem__(self, i):
                return self.data[i] * 2

        if __name__ == "__main__":
            loader = DataLoader(OnDevice(), batch_size=3, num_workers=1, multiprocessing_context="spawn",
                                timeout=120)
            batches = list(loader)
            assert [b.device for b in batches] == [torch.device("{device.type}", {torch_fl.device_count() - 1})] * 2, batches
            torch.testing.assert_close(torch.cat([b.cpu() for b in batches]), torch.arange(12.0).reshape(6, 2) * 2)
            print("ok")
    """, tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip().endswith("ok")
    assert "sent to other processes by value" in result.stderr


def test_queue_round_trip_of_device_tensors_and_parameters(device, tmp_path):
    result = run_script(f"""
        import torch, torch_fl
        import torch.multiprocessing as mp

        def child(inbox, outbox, received):
            tensor, parameter = inbox.get(timeout=120)
            assert tensor.device == torch.device("{device.type}", 0) and isinstance(parameter, torch.nn.Parameter)
            assert parameter.requires_grad and parameter.device.type == "{device.type}"
            outbox.put(tensor + 1)
            received.wait(120)  # torch.multiprocessing's rule: the sender outlives the receiver's unpickling

        if __name__ == "__main__":
            ctx = mp.get_context("spawn")
            inbox, outbox, received = ctx.Queue(), ctx.Queue(), ctx.Event()
            process = ctx.Process(target=child, args=(inbox, outbox, received))
            process.start()
            inbox.put((torch.arange(4.0, device="{device.type}"), torch.nn.Parameter(torch.ones(2, device="{device.type}"))))
            back = outbox.get(timeout=120)
            received.set()
            process.join(timeout=120)
            assert process.exitcode == 0
            torch.testing.assert_close(back.cpu(), torch.arange(4.0) + 1)
            print("ok")
    """, tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip().endswith("ok")


def test_a_non_leaf_tensor_that_requires_grad_is_refused_when_pickled(device):
    from multiprocessing.reduction import ForkingPickler

    x = torch.ones(2, device=device, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="autograd does not cross process boundaries"):
        ForkingPickler.dumps(x)


def test_cpu_tensors_keep_pytorchs_shared_memory_reducer(device):
    from multiprocessing.reduction import ForkingPickler

    cpu = torch.ones(3)
    ForkingPickler.dumps(cpu)
    assert cpu.is_shared()  # PyTorch's reducer moved it to shared memory: not our by-value path


def test_a_device_tensor_is_pickled_by_value_in_this_process(device, monkeypatch):
    """What a queue's writer and reader do, in one process: the copy arrives on the same
    device, holds the same values, and is a separate tensor. The warning comes once."""
    import pickle
    import warnings
    from multiprocessing.reduction import ForkingPickler

    from torch_fl import multiprocessing as by_value
    monkeypatch.setattr(by_value, "_warned", False)
    monkeypatch.setenv("TORCH_FL_IPC", "0")
    last = torch_fl.device(torch_fl.device_count() - 1)
    x = torch.arange(4.0, device=last)
    with pytest.warns(UserWarning, match="sent to other processes by value") as warned:
        received = pickle.loads(ForkingPickler.dumps(x))
    assert warned[0].filename == __file__  # points at the code that sent it
    assert received.device == last and torch.equal(received.cpu(), x.cpu())
    x.add_(1)
    assert received.cpu().tolist() == [0.0, 1.0, 2.0, 3.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once per process
        frozen = pickle.loads(ForkingPickler.dumps(torch.nn.Parameter(torch.ones(2, device=device), requires_grad=False)))
        trained = pickle.loads(ForkingPickler.dumps(torch.nn.Parameter(torch.ones(2, device=device))))
    assert isinstance(frozen, torch.nn.Parameter) and not frozen.requires_grad and frozen.device == device
    assert isinstance(trained, torch.nn.Parameter) and trained.requires_grad
    assert torch.equal(frozen.cpu(), torch.ones(2))


def test_a_strided_view_arrives_with_its_strides_offset_and_bits(device, monkeypatch):
    """As a CPU tensor does through torch's own reducer: the whole storage travels, and
    the tensor over it keeps its strides, offset and conjugate bit (the OpenReg suite's
    IPC round trip received a contiguous copy)."""
    import pickle
    import warnings
    from multiprocessing.reduction import ForkingPickler

    monkeypatch.setenv("TORCH_FL_IPC", "0")
    base = torch.arange(12.0, device=device)
    view = base[3::2]
    z = torch.complex(torch.arange(3.0), torch.ones(3)).to(device).conj()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        received, received_z = pickle.loads(ForkingPickler.dumps((view, z)))
    assert (received.stride(), received.storage_offset()) == ((2,), 3)
    assert received.untyped_storage().nbytes() == base.untyped_storage().nbytes()
    assert torch.equal(received.cpu(), view.cpu())
    assert received_z.is_conj() and torch.equal(received_z.resolve_conj().cpu(), z.resolve_conj().cpu())
