"""Host memory that an asynchronous device-to-host copy writes must be valid
when the copy runs, and the copy must be complete when the caller may read it.

CUDA's rule, which we follow: into pageable host memory the copy is
synchronous even with non_blocking=True; only a pinned destination is written
asynchronously, and its block is not reused until the copy has completed."""
from __future__ import annotations

import pytest
import torch


def _busy_stream(device: torch.device) -> torch.Tensor:
    """Queues enough work that a copy queued next runs tens of milliseconds later."""
    a = torch.randn(1024, 1024, device=device)
    for _ in range(6):
        a = a @ a / 32
    return a


# Each copy's source is a product queued just before it: tens of milliseconds on the slowest
# device here (opencl on PoCL), a window in which a copy left queued would be seen unfinished
# (or writing freed memory). 1500 x 1500 took 0.9 s a product there, 40 s for this file.
N = 768


def test_nonblocking_copy_into_pageable_memory_is_complete_on_return(device):
    d = torch.randn(N, N, device=device)
    expected = (d @ d).flatten().cpu()
    for _ in range(20):
        host = torch.empty(N * N)
        host.copy_((d @ d).flatten(), non_blocking=True)
        # No synchronize: pageable memory must already hold the result.
        torch.testing.assert_close(host, expected)


def test_pageable_destination_freed_right_after_a_nonblocking_copy(device):
    """Before the fix this crashed the process (a queued copy wrote freed host memory)."""
    d = torch.randn(N, N, device=device)
    # Each destination dies at once; a copy still queued would write freed memory.
    for _ in range(20):
        torch.empty(N * N).copy_((d @ d).flatten(), non_blocking=True)
    getattr(torch, device.type).synchronize()
    assert torch.isfinite(torch.empty(N * N).copy_(d.flatten())).all()


def test_nonblocking_to_cpu_gives_pinned_memory_valid_after_synchronize(device):
    source = _busy_stream(device)
    host = source.to("cpu", non_blocking=True)  # torch pins the destination for an accelerator source
    assert host.is_pinned()
    getattr(torch, device.type).synchronize()
    torch.testing.assert_close(host, source.cpu())


def test_pinned_block_is_not_reused_while_its_copy_is_queued(device):
    module = getattr(torch, device.type)
    n = 1 << 20
    for _ in range(5):  # until the copy was really still queued when the block was asked for again
        source = torch.full((n,), 3.0, device=device)
        busy = _busy_stream(device)
        pinned = torch.empty(n, pin_memory=True)
        pinned.copy_(source, non_blocking=True)
        del pinned  # its copy is queued behind the matmuls
        other = torch.empty(n, pin_memory=True)
        other.fill_(7.0)
        was_queued = not module.current_stream().query()
        module.synchronize()
        # Had `other` reused the block, the queued copy would have overwritten it with 3.0.
        assert torch.equal(other, torch.full((n,), 7.0))
        del busy
        if was_queued:
            return
    pytest.skip("the device finished each copy before the block was asked for again: block reuse was not exercised")
