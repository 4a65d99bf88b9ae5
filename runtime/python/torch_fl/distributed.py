"""The vendor's c10d backend: torch.distributed on the device.

The spec's `distributed:` section names it (cncl for the MLU, hccl for the NPU,
the names torch_mlu and torch_npu scripts use). torch_fl.init() registers it
with `torch.distributed.Backend.register_backend(name, creator, devices=["cpu",
device])`, so that

    dist.init_process_group("cncl")       # this name
    dist.init_process_group()             # no name: the accelerator's backend
    dist.init_process_group(**get_backend_config(device))

all give a process group whose collectives on device tensors run by the
spec's `distributed.transport` (runtime/src/collectives/):

- gloo_staged (the simulated chips): staged through pinned host memory on a
  copy stream and run on PyTorch's Gloo;
- vendor_ccl (nvidia: NCCL): the vendor library's own collectives on the
  device's streams, through its TflCollectives table;

and whose CPU collectives go to a Gloo of the same group. DDP (with PyTorch's
C++ reducer), FSDP2 and torchrun use it unchanged.

A script that says backend="nccl" gets it only inside the CUDA-compatibility
layer (torch_fl.cuda_compat(), TORCH_FL_CUDA_COMPAT=1), which swaps the name with
one info line: outside it, "nccl" stays PyTorch's.
"""
from __future__ import annotations

import datetime
import logging
from dataclasses import dataclass
import warnings
from typing import Any, Optional, Union

import torch

from . import _backend

logger = logging.getLogger("torch_fl")


@dataclass(frozen=True)
class CollectiveBackend:
    """The spec's `distributed:` section."""
    name: str  # what init_process_group takes
    device: str
    transport: str  # "gloo_staged" or "vendor_ccl"
    dtypes: tuple[torch.dtype, ...]  # device tensors of other dtypes are refused, naming the collective


def collective_backend() -> Optional[CollectiveBackend]:
    """The loaded vendor's c10d backend, or None when its spec declares none."""
    backend = _backend.load()
    name = backend.lib.tfl_collective_backend().decode()
    if not name:
        return None
    dtypes = backend.lib.tfl_collective_dtypes().decode().split(",")
    transport = backend.lib.tfl_collective_transport().decode()
    return CollectiveBackend(name, backend.device, transport, tuple(getattr(torch, dtype) for dtype in dtypes))


def backend_name() -> str:
    """The vendor's c10d backend, as init_process_group takes it ("cncl" for the MLU)."""
    backend = collective_backend()
    if backend is None:
        raise RuntimeError(f"torch_fl: the {_backend.load().vendor} spec declares no distributed backend "
                           "(its `distributed:` section)")
    return backend.name


_NO_ARGUMENT = object()


def get_backend_config(device: Union[None, int, str, torch.device] = _NO_ARGUMENT) -> Union[dict[str, Any], str]:
    """The keyword arguments of torch.distributed.init_process_group for `device`:

        dist.init_process_group(**torch_fl.distributed.get_backend_config(device))

    {"backend": the vendor's backend ("cpu" gets "gloo"), "init_method": "env://"
    (what torchrun sets up), "timeout": PyTorch's default}. `device` is the vendor's
    device (None, an index, "mlu", "mlu:1", a torch.device) or "cpu".

    Called without an argument it still returns the backend's name, as before,
    with a FutureWarning: a later release returns the dict there too, and
    backend_name() keeps the name. (The return type changes: a silent change would
    break `init_process_group(get_backend_config())`.)"""
    if device is _NO_ARGUMENT:
        warnings.warn("torch_fl.distributed.get_backend_config() without a device returns the backend's name; "
                      "a later release returns init_process_group's keyword arguments, as "
                      "get_backend_config(device) does now. Use backend_name() for the name.",
                      FutureWarning, stacklevel=2)
        return backend_name()
    vendor_device = _backend.load().device
    if device is None or isinstance(device, int):
        target = torch.device(vendor_device)
    else:
        try:
            target = torch.device(device)
        except (RuntimeError, TypeError) as error:
            raise ValueError(f"torch_fl.distributed.get_backend_config: {device!r} is not a device") from error
    if target.type == "cpu":
        name = "gloo"
    elif target.type == vendor_device:
        name = backend_name()
    else:
        raise ValueError(f"torch_fl.distributed.get_backend_config: {device!r} is not this backend's device "
                         f"({vendor_device}) nor 'cpu'")
    from torch.distributed.constants import default_pg_timeout
    return {"backend": name, "init_method": "env://", "timeout": default_pg_timeout}


# The store key under which rank 0 publishes the vendor library's unique id.
_UNIQUE_ID_KEY = "torch_fl/vendor_ccl_unique_id"


def _create(store, rank: int, size: int, timeout: datetime.timedelta):
    """The creator register_backend calls: a whole process group for device and
    CPU tensors (gloo_staged: one StagedBackend over a Gloo of this group for
    both; vendor_ccl: the vendor library for device tensors, Gloo for CPU).

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
    if backend.transport == "vendor_ccl":
        unique_id = torch.tensor(list(_exchange_unique_id(store, rank, size)), dtype=torch.uint8)
        torch.ops.torch_fl.attach_vendor_ccl_backend(gloo_holder.boxed(), group.boxed(), backend.name, unique_id,
                                                     int(timeout.total_seconds() * 1000))
    else:
        torch.ops.torch_fl.attach_staged_backend(gloo_holder.boxed(), group.boxed(), backend.name)
    return group


def _exchange_unique_id(store, rank: int, size: int) -> bytes:
    """Rank 0 makes the vendor library's unique id and every rank reads it from the
    group's store (prefixed with the group's name by init_process_group). Once all
    have read it, rank 0 removes it: a group made again under the same name (after
    destroy_process_group, with torchrun's store still there) must not read a stale id."""
    if rank == 0:
        store.set(_UNIQUE_ID_KEY, bytes(torch.ops.torch_fl.vendor_ccl_unique_id().tolist()))
    unique_id = store.get(_UNIQUE_ID_KEY)
    if store.add(_UNIQUE_ID_KEY + "/read", 1) == size:
        store.set(_UNIQUE_ID_KEY + "/all_read", b"1")
    if rank == 0:
        store.wait([_UNIQUE_ID_KEY + "/all_read"])
        for key in ("", "/read", "/all_read"):
            store.delete_key(_UNIQUE_ID_KEY + key)
    return unique_id


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
