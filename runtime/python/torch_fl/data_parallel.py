"""nn.DataParallel on the device: torch.nn.parallel.comm for the vendor's tensors, and
autocast in the replicas.

DataParallel's Python is device-generic (torch.accelerator runs the replicas), but
four of the comm functions under it are not: broadcast, broadcast_coalesced,
scatter and gather call C++ (torch._C._broadcast_coalesced, _scatter, _gather)
that a CPU build of torch lacks and a CUDA build runs for CUDA tensors only, and
reduce_add asks NCCL first (which would take our tensors under the CUDA compat
layer, where `is_cuda` is true for them). install() puts a wrapper on each, in
torch.nn.parallel.comm and in torch.cuda.comm (which imports them by name): the
vendor's tensors, and CPU tensors sent to device indices on a machine without a
real CUDA device, are moved with ordinary device copies; anything else goes to
torch's own function. And parallel_apply runs the replicas, on threads of their own,
under autocast only if CUDA's is on (torch.is_autocast_enabled() with no device):
autocast on the device around DataParallel was silently dropped in the replicas. The
wrapper carries it (its dtype too) into each replica. Installed for every process that
loads the backend; uninstall() puts torch's functions back.

What CUDA's comm does is kept: complex tensors travel as real views, a tensor already on
a target device is returned itself, broadcast_coalesced copies one flat buffer per bucket
(not one per tensor), scatter copies on the streams it is given, gather keeps the first
input's dtype, and its checks are made, naming the argument at fault."""
from __future__ import annotations

import contextlib
import functools
import sys
from typing import Any, Callable, Sequence

import torch
import torch.nn.parallel.comm as comm
from torch._utils import (_flatten_dense_tensors, _get_device_index, _handle_complex, _reorder_tensors_as,
                          _take_tensors, _unflatten_dense_tensors)

from . import _backend, cuda_compatibility

# (module, name) -> torch's own object, for uninstall()
_originals: dict[tuple[Any, str], Callable] = {}


def _vendor() -> str:
    return _backend.load().device


def _ours(tensors: Sequence[torch.Tensor]) -> bool:
    """Whether these tensors' comm call is ours: any on the vendor's device, or all on
    CPU (or none) where a device index can only mean ours (no real CUDA device)."""
    types = {t.device.type for t in tensors}
    if _vendor() in types:
        if "cuda" in types:
            raise RuntimeError(f"torch.nn.parallel.comm: tensors on both cuda and {_vendor()}; "
                               f"copy them to one device type first")
        return True
    return types <= {"cpu"} and not cuda_compatibility._real_cuda_present()


def _device(index: Any) -> torch.device:
    return torch.device(_vendor(), _get_device_index(index, optional=True))


def _on(device: torch.device, tensor: torch.Tensor) -> torch.Tensor:
    """The tensor on `device`: itself if it is there already, as CUDA's comm returns it."""
    return tensor if tensor.device == device else tensor.to(device)


def _on_a_device(function: str, tensors: Sequence[torch.Tensor], what: str) -> None:
    for position, tensor in enumerate(tensors):
        if tensor.device.type != _vendor():
            raise RuntimeError(f"{function}: {what} {position} is on {tensor.device}; it must be on a {_vendor()} device")


def broadcast(tensor: torch.Tensor, devices=None, *, out=None):
    tensor = _handle_complex(tensor)
    if not ((devices is None) ^ (out is None)):
        raise RuntimeError(f"broadcast: exactly one of 'devices' and 'out' must be specified, "
                           f"but got devices={devices} and out={out}")
    if devices is not None:
        return tuple(_on(_device(d), tensor) for d in devices)
    _on_a_device("broadcast", out, "output")
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
    tensors = [_handle_complex(t) for t in tensors]
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
        for bucket in _take_tensors(tensors, buffer_size):
            if bucket[0].is_sparse:
                copies.extend(t.to(target) for t in bucket)
                continue
            flat = _flatten_dense_tensors(bucket).to(target)
            # Views of one buffer would share a version counter: `.data` gives each its own
            # (the NOTE [ Version Counter in comm.*_coalesced ] in torch's comm.py).
            copies.extend(t.data for t in _unflatten_dense_tensors(flat, bucket))
        outputs.append(list(_reorder_tensors_as(copies, tensors)))  # callers assign into it
    return outputs


def _stream_of(streams, position: int):
    stream = streams[position] if streams is not None and position < len(streams) else None
    return stream if stream is not None else contextlib.nullcontext()


def _check_shapes(function: str, tensors: Sequence[torch.Tensor], like: torch.Tensor, dim: int, what: str) -> None:
    """Every tensor has `like`'s shape except along dim, as CUDA's comm checks."""
    dim = dim % max(like.dim(), 1)
    for position, tensor in enumerate(tensors):
        if tensor.dim() != like.dim() or any(a != b for d, (a, b) in enumerate(zip(tensor.shape, like.shape))
                                             if d != dim):
            raise RuntimeError(f"{function}: {what} {position} has shape {tuple(tensor.shape)}, but it must match "
                               f"{tuple(like.shape)} in every dimension but {dim}")


def scatter(tensor: torch.Tensor, devices=None, chunk_sizes=None, dim: int = 0, streams=None, *, out=None):
    tensor = _handle_complex(tensor)
    if out is None:
        targets = [_device(d) for d in devices]
        if chunk_sizes is None:
            chunks = tensor.chunk(len(targets), dim)  # fewer chunks than devices for a short tensor, as CUDA's
        else:
            chunk_sizes = list(chunk_sizes)
            if (len(chunk_sizes) != len(targets) or sum(chunk_sizes) != tensor.size(dim)
                    or min(chunk_sizes, default=1) <= 0):
                raise RuntimeError(f"scatter: chunk_sizes {chunk_sizes} must give one positive size per device "
                                   f"({len(targets)}) summing to the size of dimension {dim}, {tensor.size(dim)}")
            chunks = tensor.split(chunk_sizes, dim)
        results = []
        for position, (target, chunk) in enumerate(zip(targets, chunks)):
            with _stream_of(streams, position):
                results.append(_on(target, chunk))
        return tuple(results)
    if devices is not None or chunk_sizes is not None:
        raise RuntimeError("scatter: 'devices' and 'chunk_sizes' must not be specified when 'out' is")
    _on_a_device("scatter", out, "output")
    _check_shapes("scatter", out, tensor, dim, "output")
    sizes = [o.size(dim) for o in out]
    if sum(sizes) != tensor.size(dim):
        raise RuntimeError(f"scatter: the output tensors' sizes along dimension {dim}, {sizes}, "
                           f"must sum to the input's, {tensor.size(dim)}")
    for position, (target, chunk) in enumerate(zip(out, tensor.split(sizes, dim))):
        with _stream_of(streams, position):
            target.copy_(chunk)
    return tuple(out)


def gather(tensors: Sequence[torch.Tensor], dim: int = 0, destination=None, *, out=None):
    """The tensors concatenated along dim on one device (or the CPU), in the first one's dtype."""
    tensors = [_handle_complex(t) for t in tensors]
    if not tensors:
        raise RuntimeError("gather: expected at least one tensor to gather from")
    if tensors[0].dim() == 0:
        raise RuntimeError("gather: 0-dimensional tensors have no dimension to gather along; unsqueeze them first")
    _on_a_device("gather", tensors, "input")
    _check_shapes("gather", tensors, tensors[0], dim, "input")
    dim = dim % tensors[0].dim()
    shape = list(tensors[0].shape)
    shape[dim] = sum(t.size(dim) for t in tensors)
    if out is not None:
        if destination is not None:
            raise RuntimeError("gather: 'destination' must not be specified when 'out' is")
        if list(out.shape) != shape:
            raise RuntimeError(f"gather: out has shape {tuple(out.shape)}, but the gathered shape is {tuple(shape)}")
    else:
        cpu = destination in ("cpu", -1) or (isinstance(destination, torch.device) and destination.type == "cpu")
        out = torch.empty(shape, dtype=tensors[0].dtype, device="cpu" if cpu else _device(destination))
    offset = 0
    for tensor in tensors:
        out.narrow(dim, offset, tensor.size(dim)).copy_(tensor)
        offset += tensor.size(dim)
    return out


def reduce_add(inputs: Sequence[torch.Tensor], destination=None):
    """The sum, on `destination`, of tensors of one shape on several devices (one of
    them `destination`, whose tensor is not copied)."""
    target = _device(destination)
    for position, tensor in enumerate(inputs):
        if tensor.device.type == "cpu":  # torch's own raises AssertionError here too
            raise AssertionError(f"reduce_add: input {position} is on the CPU; every input must be on a device")
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


def _dispatching(original: Callable, ours: Callable, tensors_of: Callable) -> Callable:
    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        if _ours(tensors_of(*args, **kwargs)):
            return ours(*args, **kwargs)
        return original(*args, **kwargs)
    wrapper._torch_fl_original = original
    return wrapper


def _tensors_in(parameter: str, many: bool) -> Callable:
    """The tensors a comm function was given in its first parameter (named as torch names it)."""
    def tensors_of(*args, **kwargs) -> list:
        given = args[0] if args else kwargs[parameter]
        return list(given) if many else [given]
    return tensors_of


class _UnderAutocast:
    """A replica called under the caller's autocast on the device (parallel_apply calls it)."""

    def __init__(self, module: Callable, device_type: str, dtype: torch.dtype, cache_enabled: bool):
        self.module, self.device_type, self.dtype, self.cache_enabled = module, device_type, dtype, cache_enabled

    def __call__(self, *args, **kwargs):
        with torch.autocast(self.device_type, dtype=self.dtype, cache_enabled=self.cache_enabled):
            return self.module(*args, **kwargs)


def _autocasting_parallel_apply(original: Callable) -> Callable:
    @functools.wraps(original)
    def parallel_apply(modules, inputs, kwargs_tup=None, devices=None):
        device_type = _vendor()
        accelerator = torch.accelerator.current_accelerator()
        if accelerator is not None and accelerator.type == device_type and torch.is_autocast_enabled(device_type):
            modules = [_UnderAutocast(module, device_type, torch.get_autocast_dtype(device_type),
                                      torch.is_autocast_cache_enabled()) for module in modules]
        return original(modules, inputs, kwargs_tup, devices)
    parallel_apply._torch_fl_original = original
    return parallel_apply


def _patch(owner: Any, name: str, wrapped: Callable) -> None:
    _originals[(owner, name)] = getattr(owner, name)
    setattr(owner, name, wrapped)


def install() -> None:
    """Wraps comm's functions for the vendor's tensors, and parallel_apply for its autocast. Idempotent."""
    if _originals:
        return
    cuda_comm = sys.modules.get("torch.cuda.comm")  # imported earlier, it holds torch's functions by name
    for name, ours, tensors_of in (("broadcast", broadcast, _tensors_in("tensor", many=False)),
                                   ("broadcast_coalesced", broadcast_coalesced, _tensors_in("tensors", many=True)),
                                   ("scatter", scatter, _tensors_in("tensor", many=False)),
                                   ("gather", gather, _tensors_in("tensors", many=True)),
                                   ("reduce_add", reduce_add, _tensors_in("inputs", many=True))):
        original = getattr(comm, name)
        wrapped = _dispatching(original, ours, tensors_of)
        for owner in (comm, cuda_comm):
            if owner is not None and getattr(owner, name, None) is original:
                _patch(owner, name, wrapped)
    # DataParallel calls parallel_apply by the name its module imported; users call torch.nn.parallel's.
    data_parallel_module = sys.modules["torch.nn.parallel.data_parallel"]
    wrapped = _autocasting_parallel_apply(data_parallel_module.parallel_apply)
    for owner in (data_parallel_module, torch.nn.parallel):
        _patch(owner, "parallel_apply", wrapped)


def uninstall() -> None:
    """Puts torch's own functions back."""
    for (owner, name), original in _originals.items():
        setattr(owner, name, original)
    _originals.clear()


def is_installed() -> bool:
    return bool(_originals)
