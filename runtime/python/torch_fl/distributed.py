"""The vendor's c10d backend: torch.distributed on the device.

The spec's `distributed:` section names it (cncl for the MLU, hccl for the NPU,
the names torch_mlu and torch_npu scripts use). torch_fl.init() registers it
with `torch.distributed.Backend.register_backend(name, creator, devices=["cpu",
device])`, so that

    dist.init_process_group("cncl")       # this name
    dist.init_process_group()             # no name: the accelerator's backend
    dist.init_process_group(get_backend_config())

all give a process group whose collectives on device tensors stage through
pinned host memory on a copy stream and run on PyTorch's Gloo (runtime/src/
collectives/), and whose CPU collectives go straight to that Gloo. DDP (with
PyTorch's C++ reducer), FSDP2 and torchrun use it unchanged.

A script that says backend="nccl" gets it only inside the CUDA-compatibility
layer (torch_fl.cuda_compat(), TORCH_FL_CUDA_COMPAT=1), which swaps the name with
one info line: outside it, "nccl" stays PyTorch's.
"""
from __future__ import annotations

import datetime
import logging
from dataclasses import dataclass
from typing import Optional

import torch

from . import _backend

logger = logging.getLogger("torch_fl")


@dataclass(frozen=True)
class CollectiveBackend:
    """The spec's `distributed:` section."""
    name: str  # what init_process_group takes
    device: str
    dtypes: tuple[torch.dtype, ...]  # device tensors of other dtypes are refused, naming the collective


def collective_backend() -> Optional[CollectiveBackend]:
    """The loaded vendor's c10d backend, or None when its spec declares none."""
    backend = _backend.load()
    name = backend.lib.tfl_collective_backend().decode()
    if not name:
        return None
    dtypes = backend.lib.tfl_collective_dtypes().decode().split(",")
    return CollectiveBackend(name, backend.device, tuple(getattr(torch, dtype) for dtype in dtypes))


def get_backend_config() -> str:
    """What to pass to torch.distributed.init_process_group for the device (and CPU)."""
    backend = collective_backend()
    if backend is None:
        raise RuntimeError(f"torch_fl: the {_backend.load().vendor} spec declares no distributed backend "
                           "(its `distributed:` section)")
    return backend.name


def _create(store, rank: int, size: int, timeout: datetime.timedelta):
    """The creator register_backend calls: a whole process group whose one backend
    (a StagedBackend over a Gloo of this group) takes device and CPU tensors.

    It returns a ProcessGroup rather than a Backend, which init_process_group
    takes as the group itself: with no backend named, PyTorch 2.13 makes the
    group's default backend Gloo and registers a plugin's Backend as CUSTOM only,
    so DDP's first getDefaultBackend() fails. And CPU collectives must share the
    device collectives' queue: Gloo matches collectives across ranks by the order
    they reach it."""
    from torch._C._distributed_c10d import ProcessGroup, ProcessGroupGloo
    backend = collective_backend()
    gloo_holder = ProcessGroup(store, rank, size)
    gloo = ProcessGroupGloo(store, rank, size, timeout)
    gloo_holder._register_backend(torch.device("cpu"), ProcessGroup.BackendType.GLOO, gloo)
    group = ProcessGroup(store, rank, size)
    torch.ops.torch_fl.attach_staged_backend(gloo_holder.boxed(), group.boxed(), backend.name)
    return group


def register() -> None:
    """Registers the vendor's backend with torch.distributed (torch_fl.init() calls this)."""
    backend = collective_backend()
    if backend is None or not torch.distributed.is_available():
        return
    if backend.name.upper() in torch.distributed.Backend._plugins:
        return
    torch.distributed.Backend.register_backend(backend.name, _create, devices=["cpu", backend.device])


def nccl_to_vendor(backend: Optional[str]) -> Optional[str]:
    """The CUDA-compatibility layer's rewrite of a backend string: "nccl" (alone or as
    "cuda:nccl" / "<device>:nccl") becomes the vendor's backend, with one info line."""
    vendor = collective_backend()
    if vendor is None or not isinstance(backend, str) or "nccl" not in backend.lower():
        return backend
    if ":" in backend:
        pairs = [pair.split(":", 1) for pair in backend.lower().split(",")]
        rewritten = ",".join(f"{vendor.device if device == 'cuda' else device}:"
                             f"{vendor.name if name == 'nccl' else name}" for device, name in pairs)
    else:
        rewritten = vendor.name if backend.lower() == "nccl" else backend
    logger.info("torch_fl: CUDA compatibility: distributed backend %r runs as %r on %s",
                backend, rewritten, vendor.device)
    return rewritten
