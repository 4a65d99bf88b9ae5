"""Opt-in compatibility for code written for CUDA: inside torch_fl.cuda_compat()
(or after enable(), or with TORCH_FL_CUDA_COMPAT=1), `.cuda()`, `device="cuda"`,
`"cuda:1"`, `torch.device("cuda")`, `.to(0)`, `torch.cuda.*`, `torch.cuda.amp`,
`torch.autocast("cuda")`, `torch.amp.GradScaler("cuda")` and
`torch.load(map_location="cuda")` mean the loaded vendor's device, and
`init_process_group("nccl")` / `new_group(backend="nccl")` the vendor's c10d
backend (one info line says so).

It works by wrapping the Python entry points that take a device (PyTorch parses
device strings in C++, where "cuda" cannot be renamed), so it is never on by
default; disable() puts every original object back. With a real CUDA device
present it refuses unless forced: silently moving work off a GPU would be worse
than an error."""
from __future__ import annotations

import contextlib
import functools
import inspect
import os
import sys
from dataclasses import dataclass
from typing import Any, Callable

import torch

from . import _backend, amp, device_module, distributed

ENV_VAR = "TORCH_FL_CUDA_COMPAT"

# torch functions that take a `device=` keyword (factories and *_like).
_FACTORIES = ("tensor", "as_tensor", "scalar_tensor", "zeros", "ones", "empty", "full", "rand", "randn", "randint",
              "randperm", "arange", "range", "linspace", "logspace", "eye", "empty_strided", "zeros_like",
              "ones_like", "empty_like", "full_like", "rand_like", "randn_like", "randint_like", "tril_indices",
              "triu_indices")
# torch.cuda functions and classes that the vendor module has under the same name.
_CUDA_NAMES = ("is_available", "device_count", "current_device", "set_device", "device", "synchronize",
               "memory_allocated", "memory_reserved", "max_memory_allocated", "max_memory_reserved", "memory_stats",
               "reset_peak_memory_stats", "empty_cache", "mem_get_info", "Stream", "Event", "current_stream",
               "default_stream", "stream", "set_stream", "manual_seed", "manual_seed_all", "seed", "seed_all",
               "initial_seed", "get_rng_state", "set_rng_state", "get_rng_state_all", "set_rng_state_all",
               "get_device_name", "get_device_properties", "get_device_capability", "is_initialized", "init",
               "utilization")


@dataclass
class _Patch:
    owner: Any
    name: str
    original: Any
    owned: bool  # the attribute was the owner's own (not inherited): restore it, else delete ours


_patches: list[_Patch] = []


def _vendor() -> str:
    return _backend.load().device


def _map_device(value: Any) -> Any:
    """"cuda", "cuda:N", torch.device("cuda", N) and an int index → the vendor's device."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return torch.device(_vendor(), value)
    if isinstance(value, str) and (value == "cuda" or value.startswith("cuda:")):
        return torch.device(value.replace("cuda", _vendor(), 1))
    if isinstance(value, torch.device) and value.type == "cuda":
        return torch.device(_vendor(), value.index) if value.index is not None else torch.device(_vendor())
    return value


def _map_cuda_spelling(value: Any) -> Any:
    """Only what is spelled for CUDA ("cuda", "cuda:N", torch.device("cuda", N)): an int
    passed to torch.cuda.* is already an index, or a seed, and stays as it is."""
    return value if isinstance(value, int) else _map_device(value)


def _with_cuda_spellings(function: Callable) -> Callable:
    """A torch.cuda.* function (or the torch.cuda.device context manager) of the vendor
    module, taking CUDA's spellings of a device wherever it takes a device:
    TrainingArguments calls torch.cuda.set_device(torch.device("cuda:0"))."""
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        return function(*(_map_cuda_spelling(a) for a in args),
                        **{key: _map_cuda_spelling(value) for key, value in kwargs.items()})
    return wrapper


def _with_device_keyword(function: Callable) -> Callable:
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        if "device" in kwargs:
            kwargs["device"] = _map_device(kwargs["device"])
        return function(*args, **kwargs)
    return wrapper


def _with_device_arguments(function: Callable) -> Callable:
    """Tensor.to / Module.to: a device may come first, positionally."""
    @functools.wraps(function)
    def wrapper(self, *args, **kwargs):
        if args and isinstance(args[0], (str, int, torch.device)) and not isinstance(args[0], bool):
            args = (_map_device(args[0]),) + args[1:]
        if "device" in kwargs:
            kwargs["device"] = _map_device(kwargs["device"])
        return function(self, *args, **kwargs)
    return wrapper


def _to_vendor(self, device=None, non_blocking: bool = False, **kwargs):
    """Tensor.cuda / Module.cuda."""
    index = device_module.current_device() if device is None else _map_device(device)
    target = index if isinstance(index, torch.device) else torch.device(_vendor(), index)
    if isinstance(self, torch.nn.Module):
        return self.to(target)
    return self.to(target, non_blocking=non_blocking, **kwargs)


class _autocast(torch.autocast):
    def __init__(self, device_type: str, *args, **kwargs):
        super().__init__(_vendor() if device_type == "cuda" else device_type, *args, **kwargs)


class _GradScaler(torch.amp.GradScaler):
    def __init__(self, device: str = "cuda", *args, **kwargs):
        super().__init__(_vendor() if device == "cuda" else device, *args, **kwargs)


def _asking_for_the_vendor(function: Callable) -> Callable:
    """torch.is_autocast_enabled() with no device is the vendor's (CUDA's without the layer)."""
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        return function(*args, **kwargs) if args or kwargs else function(_vendor())
    return wrapper


def _patch(owner: Any, name: str, replacement: Any) -> None:
    owned = name in vars(owner)
    _patches.append(_Patch(owner, name, getattr(owner, name, None), owned))
    setattr(owner, name, replacement)


def _real_cuda_present() -> bool:
    return bool(torch.backends.cuda.is_built()) and torch._C._cuda_getDeviceCount() > 0


def is_enabled() -> bool:
    return bool(_patches)


def enable(force: bool = False) -> None:
    """Makes CUDA spellings mean the vendor's device until disable()."""
    if _patches:
        return
    if _real_cuda_present() and not force:
        raise RuntimeError("torch_fl.cuda_compat: this machine has a real CUDA device, and compatibility mode would "
                           f"send code written for it to '{_vendor()}' instead; pass force=True if that is meant")
    vendor_module = getattr(torch, _vendor())
    for name in _FACTORIES:
        _patch(torch, name, _with_device_keyword(getattr(torch, name)))
    _patch(torch.Tensor, "to", _with_device_arguments(torch.Tensor.to))
    _patch(torch.nn.Module, "to", _with_device_arguments(torch.nn.Module.to))
    _patch(torch.Tensor, "cuda", _to_vendor)
    _patch(torch.nn.Module, "cuda", _to_vendor)
    _patch(torch.Tensor, "is_cuda", property(lambda self: self.device.type in ("cuda", _vendor())))
    for name in _CUDA_NAMES:
        if hasattr(vendor_module, name):
            attribute = getattr(vendor_module, name)
            # Functions with arguments, and the device context manager, may take a device;
            # the Stream and Event classes stay themselves (isinstance checks, subclassing).
            takes_device = name == "device" or (
                not isinstance(attribute, type) and bool(inspect.signature(attribute).parameters))
            _patch(torch.cuda, name, _with_cuda_spellings(attribute) if takes_device else attribute)
    _patch(torch.cuda.amp, "autocast", amp.autocast)
    _patch(torch.cuda.amp, "GradScaler", amp.GradScaler)
    _patch(torch, "autocast", _autocast)
    _patch(torch.amp, "autocast", _autocast)
    _patch(torch.amp, "GradScaler", _GradScaler)
    # Asked with no device, it answers for CUDA's autocast; autocast("cuda") now means the
    # vendor's (nn.DataParallel's parallel_apply asks is_autocast_enabled()). Asked for "cuda"
    # by name it stays CUDA's: torch's own autocast("cuda") (custom_fwd builds one) saves and
    # restores CUDA's state through it, and would write the vendor's into CUDA's.
    _patch(torch, "is_autocast_enabled", _asking_for_the_vendor(torch.is_autocast_enabled))
    if torch.distributed.is_available():
        _patch(torch.distributed, "init_process_group",
               _with_vendor_collectives(torch.distributed.init_process_group, position=0))
        _patch(torch.distributed, "new_group", _with_vendor_collectives(torch.distributed.new_group, position=2))
    # nn.DataParallel asks which accelerator is available and would hear "cuda" (is_available
    # is the vendor's now): its replicas' home would be cuda:0, beside parameters on the vendor's
    # device. data_parallel.py imports the function by name, so both names are patched (the
    # module from sys.modules: torch.nn.parallel.data_parallel is the function of that name).
    for owner in (torch._utils, sys.modules["torch.nn.parallel.data_parallel"]):
        _patch(owner, "_get_available_device_type", _vendor)
    load = torch.load
    _patch(torch, "load", functools.wraps(load)(
        lambda *args, map_location=None, **kwargs: load(*args, map_location=_map_device(map_location), **kwargs)))


def _with_vendor_collectives(function: Callable, position: int) -> Callable:
    """init_process_group / new_group with "nccl" meaning the vendor's c10d backend
    (`backend` is their positional argument number `position`)."""
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        if len(args) > position:
            args = args[:position] + (distributed.nccl_to_vendor(args[position]),) + args[position + 1:]
        if "backend" in kwargs:
            kwargs["backend"] = distributed.nccl_to_vendor(kwargs["backend"])
        return function(*args, **kwargs)
    return wrapper


def disable() -> None:
    """Puts back every object enable() replaced."""
    while _patches:
        patch = _patches.pop()
        if patch.owned:
            setattr(patch.owner, patch.name, patch.original)
        else:
            delattr(patch.owner, patch.name)


@contextlib.contextmanager
def cuda_compat(force: bool = False):
    """`with torch_fl.cuda_compat():` code written for CUDA runs on the vendor's device."""
    already = is_enabled()
    enable(force=force)
    try:
        yield
    finally:
        if not already:
            disable()


# torch_fl.cuda_compat.enable() / .disable() / .is_enabled(), beside the context manager itself.
cuda_compat.enable = enable
cuda_compat.disable = disable
cuda_compat.is_enabled = is_enabled


def apply_environment() -> None:
    if os.environ.get(ENV_VAR, "") not in ("", "0"):
        enable(force=os.environ[ENV_VAR] == "force")
