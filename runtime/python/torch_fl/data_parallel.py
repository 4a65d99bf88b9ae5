"""nn.DataParallel on the device: torch.nn.parallel.comm for the vendor's tensors.

DataParallel's Python is device-generic (torch.accelerator runs the replicas), but
four of the comm functions under it are not: broadcast, broadcast_coalesced,
scatter and gather call C++ (torch._C._broadcast_coalesced, _scatter, _gather)
that a CPU build of torch lacks and a CUDA build runs for CUDA tensors only, and
reduce_add asks NCCL first (which would take our tensors under the CUDA compat
layer, where `is_cuda` is true for them). install() puts a wrapper on each: the
vendor's tensors, and CPU tensors sent to device indices on a machine without a
real CUDA device, are moved with ordinary device copies; anything else goes to
torch's own function. Installed for every process that loads the backend (the
wrappers are only reached by code that calls comm); uninstall() puts torch's back.

What CUDA does with these is kept: a tensor already on a target device is returned
itself, broadcast_coalesced copies one flat buffer per bucket (not one per tensor),
scatter copies on the streams it is given, and errors name the argument at fault."""
from __future__ import annotations

import contextlib
import functools
from typing import Any, Callable, Sequence

import torch
import torch.nn.parallel.comm as comm
from torch._utils import (_flatten_dense_tensors, _get_device_index, _reorder_tensors_as, _take_tensors,
                          _unflatten_dense_tensors)

from . import _backend, cuda_compatibility

_originals: dict[str, Callable] = {}


def _vendor() -> str:
    return _backend.load().device


def _ours(tensors: Sequence[torch.Tensor]) -> bool:
    """Whether these tensors' comm call is ours: any on the vendor's device, or all on
    CPU where a device index can only mean ours (no real CUDA device)."""
    types = {t.device.type for t in tensors}
    if _vendor() in types:
        return True
    return types == {"cpu"} and not cuda_compatibility._real_cuda_present()


def _device(index: Any) -> torch.device:
    return torch.device(_vendor(), _get_device_index(index, optional=True))


def _on(device: torch.device, tensor: torch.Tensor) -> torch.Tensor:
    """The tensor on `device`: itself if it is there already, as CUDA's comm returns it."""
    return tensor if tensor.device == device else tensor.to(device)


def broadcast(tensor: torch.Tensor, devices=None, *, out=None):
    if not ((devices is None) ^ (out is None)):
        raise RuntimeError(f"broadcast: exactly one of 'devices' and 'out' must be specified, "
                           f"but got devices={devices} and out={out}")
    if devices is not None:
        return tuple(_on(_device(d), tensor) for d in devices)
    for target in out:
        if target.shape != tensor.shape:
            raise RuntimeError(f"broadcast: an output tensor has shape {tuple(target.shape)}, "
                               f"but the input has {tuple(tensor.shape)}")
        target.copy_(tensor)
    return tuple(out)


def broadcast_coalesced(tensors: Sequence[torch.Tensor], devices, buffer_size: int = 10485760):
    """One list of copies per device, in the order of `tensors`. Dense tensors travel as
    one flat buffer per bucket of at most buffer_size bytes (one copy, not one per
    tensor); the source device's list is the inputs themselves."""
    targets = [_device(d) for d in devices]
    sources = {t.device for t in tensors}
    if len(sources) > 1:
        raise RuntimeError(f"broadcast_coalesced: all tensors must be on one device, got {sorted(map(str, sources))}")
    outputs: list[list[torch.Tensor]] = []
    for target in targets:
        if tensors and tensors[0].device == target:
            outputs.append(list(tensors))
            continue
        copies: list[torch.Tensor] = []
        for bucket in _take_tensors(list(tensors), buffer_size):
            if bucket[0].is_sparse:
                copies.extend(t.to(target) for t in bucket)
                continue
            flat = _flatten_dense_tensors(bucket).to(target)
            # Views of one buffer would share a version counter: `.data` gives each its own
            # (the NOTE [ Version Counter in comm.*_coalesced ] in torch's comm.py).
            copies.extend(t.data for t in _unflatten_dense_tensors(flat, bucket))
        outputs.append(_reorder_tensors_as(copies, tensors))
    return outputs


def _stream_of(streams, position: int):
    stream = streams[position] if streams is not None and position < len(streams) else None
    return stream if stream is not None else contextlib.nullcontext()


def scatter(tensor: torch.Tensor, devices=None, chunk_sizes=None, dim: int = 0, streams=None, *, out=None):
    if out is None:
        targets = [_device(d) for d in devices]
        if chunk_sizes is None:
            chunks = tensor.chunk(len(targets), dim)  # fewer chunks than devices for a short tensor, as CUDA's
        else:
            chunk_sizes = list(chunk_sizes)
            if len(chunk_sizes) != len(targets) or sum(chunk_sizes) != tensor.size(dim):
                raise RuntimeError(f"scatter: chunk_sizes {chunk_sizes} must give one size per device "
                                   f"({len(targets)}) summing to the size of dimension {dim}, {tensor.size(dim)}")
            chunks = tensor.split(chunk_sizes, dim)
        results = []
        for position, (target, chunk) in enumerate(zip(targets, chunks)):
            with _stream_of(streams, position):
                results.append(_on(target, chunk))
        return tuple(results)
    if devices is not None or chunk_sizes is not None:
        raise RuntimeError("scatter: 'devices' and 'chunk_sizes' must not be specified when 'out' is")
    sizes = [o.size(dim) for o in out]
    if sum(sizes) != tensor.size(dim):
        raise RuntimeError(f"scatter: the output tensors' sizes along dimension {dim}, {sizes}, "
                           f"must sum to the input's, {tensor.size(dim)}")
    for position, (target, chunk) in enumerate(zip(out, tensor.split(sizes, dim))):
        with _stream_of(streams, position):
            target.copy_(chunk)
    return tuple(out)


def gather(tensors: Sequence[torch.Tensor], dim: int = 0, destination=None, *, out=None):
    if out is not None:
        if destination is not None:
            raise RuntimeError("gather: 'destination' must not be specified when 'out' is")
        return torch.cat([t.to(out.device) for t in tensors], dim, out=out)
    if destination == "cpu" or destination == -1 or (isinstance(destination, torch.device)
                                                      and destination.type == "cpu"):
        target = torch.device("cpu")
    else:
        target = _device(destination)
    return torch.cat([t.to(target) for t in tensors], dim)


def reduce_add(inputs: Sequence[torch.Tensor], destination=None):
    """The sum, on `destination`, of tensors of one shape on several devices (one of
    them `destination`, whose tensor is not copied)."""
    target = _device(destination)
    for position, tensor in enumerate(inputs):
        if tensor.device.type == "cpu":
            raise RuntimeError(f"reduce_add: input {position} is on the CPU; every input must be on a device")
        if tensor.shape != inputs[0].shape:
            raise ValueError(f"reduce_add: input {position} has shape {tuple(tensor.shape)}, "
                             f"but input 0 has {tuple(inputs[0].shape)}")
    roots = [position for position, tensor in enumerate(inputs) if tensor.device == target]
    if not roots:
        raise RuntimeError(f"reduce_add: no input is on the destination, {target}")
    root = roots[0]
    if len(inputs) == 1:
        return inputs[0]
    total = None
    for position, tensor in enumerate(inputs):
        if position != root:
            total = inputs[root] + tensor.to(target) if total is None else total.add_(tensor.to(target))
    return total


def _dispatching(name: str, ours: Callable, tensors_of: Callable) -> Callable:
    original = getattr(comm, name)

    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        tensors = tensors_of(*args, **kwargs)
        if tensors and _ours(tensors):
            return ours(*args, **kwargs)
        return original(*args, **kwargs)
    wrapper._torch_fl_original = original
    return wrapper


def _first(tensor, *args, **kwargs) -> list:
    return [tensor]


def _all(tensors, *args, **kwargs) -> list:
    return list(tensors)


def install() -> None:
    """Wraps comm's functions for the vendor's tensors. Idempotent."""
    if _originals:
        return
    for name, ours, tensors_of in (("broadcast", broadcast, _first), ("broadcast_coalesced", broadcast_coalesced, _all),
                                   ("scatter", scatter, _first), ("gather", gather, _all),
                                   ("reduce_add", reduce_add, _all)):
        _originals[name] = getattr(comm, name)
        setattr(comm, name, _dispatching(name, ours, tensors_of))


def uninstall() -> None:
    """Puts torch's own comm functions back."""
    for name, original in _originals.items():
        setattr(comm, name, original)
    _originals.clear()


def is_installed() -> bool:
    return bool(_originals)
