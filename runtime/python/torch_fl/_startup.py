"""Starting Torch-FL in a process: load the backend, register the device with
PyTorch, and install each feature. `import torch_fl` runs init(); so does the
autoload placeholder at the device's first use.

This module wires the package together, so it sits above every feature: a
feature never imports it (the package's import has run init() before any
feature can be called).
"""
from __future__ import annotations

import atexit
import sys
from typing import Optional, Union

import torch

from . import _backend, device_memory, device_module
from . import (accelerate_state, compiler, cuda_compatibility, data_parallel, deepspeed_accelerator, distributed,
               forced_fallback, lightning, multiprocessing)

_initialized = False


def init() -> str:
    """Loads the backend and registers the device with PyTorch; returns the device name. Idempotent."""
    global _initialized
    backend = _backend.load()
    if _initialized:
        return backend.device
    if torch._C._get_privateuse1_backend_name() != backend.device:
        torch.utils.rename_privateuse1_backend(backend.device)
    if getattr(getattr(torch, backend.device, None), "_torch_fl_placeholder", False):
        # Put there by the autoload hook (torch_fl_autoload), which loaded us on first use.
        setattr(torch, backend.device, device_module)
        sys.modules[f"torch.{backend.device}"] = device_module
    else:
        torch._register_device_module(backend.device, device_module)
    if not hasattr(torch.Tensor, backend.device):  # the autoload hook may have generated them
        torch.utils.generate_methods_for_privateuse1_backend(for_tensor=True, for_module=True, for_storage=True)
    multiprocessing.register_reductions(backend.device)
    compiler.install(backend.device)  # Dynamo and Inductor, when torch imports them
    lightning.install()  # Lightning's accelerator, when Lightning is imported
    deepspeed_accelerator.install()  # DeepSpeed's accelerator, when DeepSpeed is imported
    accelerate_state.install()  # Accelerate's multi-process state, when Accelerate is imported
    distributed.register()  # the spec's c10d backend
    data_parallel.install()  # nn.DataParallel's broadcast, scatter and gather for the device's tensors
    forced_fallback.apply_environment()
    device_memory.apply_environment()  # TORCH_FL_OOM_SNAPSHOT
    # Device work still queued at exit would run while the interpreter and
    # libtorch tear down: drain every device first.
    atexit.register(drain_devices)
    _initialized = True
    cuda_compatibility.apply_environment()  # after: it patches torch for the registered device
    return backend.device


def drain_devices() -> None:
    if device_module._is_in_bad_fork():
        return  # a forked child has no device work of its own (and its device cannot be used)
    try:
        count = device_module.device_count()
    except RuntimeError:
        return  # the driver never started (its error was raised where the device was first used)
    for index in range(count):
        try:
            device_module.synchronize(index)
        except RuntimeError:
            pass  # an asynchronous error nobody synchronized on: nothing left to report it to
    _drain_autograd_device_threads()


def _drain_autograd_device_threads() -> None:
    """Lets each autograd device thread drop the last backward's graph task before Python finalizes.

    torch stashes a Python object (a contextvars copy) in the thread-local state every backward
    captures. The device thread that ran the backward frees that graph task just after the
    caller has been told it finished, and freeing it takes the GIL. A script that ends right after
    `loss.backward()` can reach interpreter finalization first; the thread is then killed inside
    that free, and the process aborts ("terminate called without an active exception", about 1
    run in 10). A device thread takes its work in order and frees a graph task before taking the
    next, so a trivial backward run on each device, through the engine directly (no Python object
    stashed, so its own graph task frees without the GIL), returns only after the last one is freed."""
    engine = torch.autograd.Variable._execution_engine
    device_type = torch._C._get_privateuse1_backend_name()
    for index in range(device_module.device_count()):
        try:
            leaf = torch.zeros((), device=torch.device(device_type, index), requires_grad=True)
            engine.run_backward((leaf * 1,), (torch.ones((), device=leaf.device),), False, False, (), True, True)
        except Exception:  # noqa: BLE001 - at exit, a device that cannot run this has nothing to drain
            pass


def device(index: Optional[int] = None) -> torch.device:
    """torch.device of the loaded vendor, e.g. device("mlu") or device("mlu", 1)."""
    return torch.device(init(), index) if index is not None else torch.device(init())


def device_count() -> int:
    init()
    return device_module.device_count()


def set_default_device(where: Union[None, int, str, torch.device] = None) -> None:
    """Makes new tensors default to the vendor device (torch.set_default_device).

    `where` is what a user would write for it: nothing (the current device), an
    index (1), the device's name with or without an index ("npu", "npu:1"), or a
    torch.device. "cpu" goes back to CPU. Another device type is refused, naming
    this backend's device: a script written for another chip fails here, not at
    its first tensor."""
    name = init()
    if where is None or isinstance(where, int):
        torch.set_default_device(device(where))
        return
    try:
        target = torch.device(where)
    except (RuntimeError, TypeError) as error:
        raise ValueError(f"torch_fl.set_default_device: {where!r} is not a device: give an index, "
                         f"'{name}', '{name}:<index>' or 'cpu'") from error
    if target.type not in (name, "cpu"):
        raise ValueError(f"torch_fl.set_default_device: {where!r} is not this backend's device ({name}); "
                         f"give an index, '{name}', '{name}:<index>' or 'cpu'")
    torch.set_default_device(target)


def vendor() -> str:
    return _backend.load().vendor
