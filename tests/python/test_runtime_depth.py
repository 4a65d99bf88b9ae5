"""The device under real workloads: serialization, torch.accelerator,
asynchronous errors, and no leaked device memory."""
from __future__ import annotations

import io

import pytest
import torch
import torch.nn.functional as F

import torch_fl
import vendor_facts


def test_save_and_load_device_tensors_and_state_dicts(device):
    x = torch.randn(3, 4)
    model = torch.nn.Linear(4, 2).to(device)
    buffer = io.BytesIO()
    torch.save({"x": x.to(device), "model": model.state_dict()}, buffer)
    buffer.seek(0)
    loaded = torch.load(buffer)
    assert loaded["x"].device == torch_fl.device(0) and torch.equal(loaded["x"].cpu(), x)
    assert loaded["model"]["weight"].device.type == device.type
    buffer.seek(0)
    on_cpu = torch.load(buffer, map_location="cpu")
    assert on_cpu["x"].device.type == "cpu" and torch.equal(on_cpu["x"], x)
    cpu_buffer = io.BytesIO()
    torch.save(x, cpu_buffer)
    cpu_buffer.seek(0)
    last = torch_fl.device_count() - 1  # device 1 on the simulators; 0 on a one-GPU machine
    moved = torch.load(cpu_buffer, map_location=f"{device.type}:{last}")
    assert moved.device == torch_fl.device(last) and torch.equal(moved.cpu(), x)


def test_torch_accelerator_drives_the_device(device):
    assert torch.accelerator.current_accelerator().type == device.type
    assert torch.accelerator.device_count() == torch_fl.device_count()
    previous = torch.accelerator.current_device_index()
    last = torch_fl.device_count() - 1  # device 1 on the simulators; 0 on a one-GPU machine
    try:
        torch.accelerator.set_device_index(last)
        assert torch.accelerator.current_device_index() == last
        assert torch.empty(1, device=device.type).device.index == last
    finally:
        torch.accelerator.set_device_index(previous)
    stream = torch.accelerator.current_stream()
    assert stream.device.type == device.type
    torch.accelerator.synchronize()
    x = torch.empty(1 << 16, device=device)
    assert torch.accelerator.memory_allocated() >= x.nbytes
    assert torch.accelerator.memory_stats()["allocated_bytes.all.current"] >= x.nbytes


def test_an_error_in_asynchronous_work_surfaces_at_the_next_synchronisation(device):
    expected = vendor_facts.expected(vendor_facts.EXECUTION_FAILURE)  # first: a chip that cannot show it skips
    logp = torch.log_softmax(torch.randn(4, 5), 1).to(device)
    bad_target = torch.tensor([0, 1, 7, 2]).to(device)  # 7 is out of range: only the kernel can see it
    F.nll_loss(logp, bad_target)  # queued: the host is not blocked on the device
    with pytest.raises(RuntimeError, match=expected):
        getattr(torch, device.type).synchronize()
    # The error is reported once; the device stays usable.
    assert torch.ones(3).to(device).sum().item() == 3


BAD_INDEX_READERS = {
    "index_select": lambda table, index: torch.index_select(table, 0, index),
    "gather": lambda table, index: torch.gather(table, 0, index.view(-1, 1).expand(-1, table.shape[1])),
    "embedding": lambda table, index: F.embedding(index, table),
}


@pytest.mark.parametrize("bad", [7, -1], ids=["past_the_end", "negative"])
@pytest.mark.parametrize("reader", sorted(BAD_INDEX_READERS))
def test_a_bad_index_raises_instead_of_reading_zero(device, reader, bad):
    vendor_facts.expected(vendor_facts.EXECUTION_FAILURE)  # first: a chip that cannot report it skips
    read = BAD_INDEX_READERS[reader]
    table = torch.randn(5, 3)
    # Raised at the call (a check on the host) or at the read back (the kernel's
    # report, at the synchronisation every host read makes): never a silent 0.
    with pytest.raises((RuntimeError, IndexError), match="out of (bounds|range)"):
        read(table.to(device), torch.tensor([0, bad]).to(device)).cpu()
    good = torch.tensor([4, 0])
    assert torch.equal(read(table.to(device), good.to(device)).cpu(), read(table, good))  # reported once


def test_device_memory_returns_to_baseline(device):
    mod = getattr(torch, device.type)

    def train():
        model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4)).to(device)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        data = torch.randn(32, 16).to(device)
        for _ in range(20):
            opt.zero_grad()
            model(data).sum().backward()
            opt.step()

    # First use costs device memory that stays, and is no leak: a GPU loads each
    # kernel's module at its first launch, cuBLAS makes its handle and workspace.
    train()
    mod.synchronize()
    mod.empty_cache()
    baseline_free, _ = mod.mem_get_info(0)
    for i in range(10_000):
        t = torch.empty(1 + i % 4096, device=device)
        del t
    train()
    mod.synchronize()
    mod.empty_cache()
    assert mod.mem_get_info(0)[0] == baseline_free, "device memory leaked"


def test_a_child_forked_after_initialisation_cannot_use_the_device(device):
    import os

    torch.ones(2).to(device)  # initialised in the parent
    pid = os.fork()
    if pid == 0:  # the child: CPU work is fine, the device is refused
        code = 3
        try:
            assert torch.ones(3).sum().item() == 3
            assert getattr(torch, device.type)._is_in_bad_fork()
            torch.ones(2).to(device)
            code = 1  # no error: wrong
        except RuntimeError as error:
            code = 0 if "forked after it was initialised" in str(error) else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0
    assert torch.ones(2).to(device).sum().item() == 2  # the parent is unaffected


def test_dataloader_workers_doing_cpu_work(device):
    dataset = torch.utils.data.TensorDataset(torch.arange(64.0).reshape(32, 2))
    loader = torch.utils.data.DataLoader(dataset, batch_size=8, num_workers=2)
    total = sum(batch[0].to(device).sum().item() for batch in loader)
    assert total == sum(range(64))


def test_threads_on_several_streams_and_devices_get_correct_results(device):
    """Threads allocate, compute and copy at once, each on its own stream and
    device; every result is checked."""
    import threading

    mod = getattr(torch, device.type)
    errors: list[str] = []

    def worker(index: int) -> None:
        try:
            target = torch_fl.device(index % torch_fl.device_count())
            with mod.device(target.index):
                stream = mod.Stream()
                with mod.stream(stream):
                    for step in range(30):
                        base = torch.full((64, 64), float(index + step))
                        x = base.to(target)
                        y = (x @ torch.eye(64).to(target)) * 2 + 1
                        expected = base * 2 + 1
                        if not torch.equal(y.cpu(), expected):
                            errors.append(f"thread {index} step {step}: wrong result")
                            return
                stream.synchronize()
        except Exception as error:  # reported below, with the thread that saw it
            errors.append(f"thread {index}: {error!r}")

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors


def test_pinned_memory_and_asynchronous_copies(device):
    mod = getattr(torch, device.type)
    host = torch.randn(1 << 16)
    pinned = host.pin_memory()
    assert pinned.is_pinned() and not host.is_pinned() and torch.equal(pinned, host)
    assert pinned[100:].is_pinned(), "an address inside a pinned block is pinned"
    on_device = pinned.to(device, non_blocking=True)
    back = torch.empty_like(pinned).pin_memory()
    back.copy_(on_device, non_blocking=True)
    mod.synchronize()
    assert torch.equal(back, host)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.arange(16.0)), batch_size=4,
                                         pin_memory=True)
    assert all(batch[0].is_pinned() for batch in loader)


def _record_stream_case(device, matmuls: int) -> bool:
    """One try: x is freed while a side stream that read it is still busy. Returns
    False (nothing checked) when the side stream finished before the checks."""
    mod = getattr(torch, device.type)
    side = mod.Stream()
    big = torch.randn(768, 768).to(device)
    mod.synchronize()
    x = torch.ones(1 << 16, device=device)  # allocated on the current (default) stream
    address = x.data_ptr()
    with mod.stream(side):
        for _ in range(matmuls):
            big = big @ big / 768  # keep the side stream busy
        y = x * 2  # the side stream reads x
    x.record_stream(side)
    active_before = mod.memory_stats()["active_bytes.all.current"]
    allocated_before = mod.memory_allocated()
    del x
    stats = mod.memory_stats()
    # While the side stream may still read it, the block must not be handed out again.
    z = torch.empty(1 << 16, device=device)
    busy_throughout = not side.query()
    if busy_throughout:
        # The freed block is no longer allocated, but still active until the side stream passes.
        assert stats["allocated_bytes.all.current"] == allocated_before - (1 << 18)
        assert stats["active_bytes.all.current"] == active_before
        assert z.data_ptr() != address, "a block recorded on a busy stream was handed out again"
    side.synchronize()
    assert torch.equal(y.cpu(), torch.full((1 << 16,), 2.0))
    return busy_throughout


def test_record_stream_keeps_a_block_until_the_other_stream_is_done(device):
    """The checks need the side stream still busy after them: each try gives it
    four times more work until one does (the first almost always)."""
    tried = []
    for matmuls in (6, 24, 96):
        tried.append(matmuls)
        if _record_stream_case(device, matmuls):
            return
    pytest.fail(f"the side stream finished before the checks with {tried} matmuls: nothing was tested")


@pytest.mark.parametrize("expression", ["x * 2.0", "x + 1", "x.mul_(0.5)", "torch.where(x > 0, x, 0.0)"])
def test_a_python_number_operand_does_not_wait_for_queued_work(device, expression):
    """A Python number reaches the kernel as a CPU scalar that must move to the
    device; the move must be stream-ordered, not a host wait on the queue."""
    mod = getattr(torch, device.type)
    big = torch.randn(1536, 1536, device=device)
    x = torch.randn(4, device=device)
    expected = eval(expression, {"torch": torch, "x": x.cpu()})
    # Each once first: a kernel's first launch in a process may wait while the
    # platform compiles it (the OpenCL driver runs it synchronously, ocl_exit_drain.h).
    eval(expression, {"torch": torch, "x": x.clone()})
    big @ big
    mod.synchronize()
    product = big @ big  # tens of milliseconds of queued device work or more
    queued = mod.Event()
    queued.record()
    result = eval(expression, {"torch": torch, "x": x})
    still_running = not queued.query()
    torch.testing.assert_close(result.cpu(), expected)
    del product
    assert still_running, f"`{expression}` waited for the work queued before it"
