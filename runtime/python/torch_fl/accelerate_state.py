"""Accelerate's multi-process state on the device: a post-import hook on accelerate.state
(nothing is imported otherwise).

Accelerate decides whether a process started by `accelerate launch` (or torchrun) is one
rank of several in PartialState._prepare_backend, which knows vendors only through their
module names (`is_mlu_available()` is `find_spec("torch_mlu")`). For an out-of-tree
device it answers DistributedType.NO, and every rank then trains alone on device 0,
without a word: the silent failure this hook exists for.

It acts only where the user chose the device with the documented line,
ACCELERATE_TORCH_DEVICE=<device>, in a process that has LOCAL_RANK and is not told to use
the CPU, and only when Accelerate found nothing itself. Then the answer is the vendor's
c10d backend with Accelerate's MULTI_<DEVICE> type, and Accelerate's own set_device
places rank r on device r % device_count. A device name Accelerate has no MULTI_ type
for (opencl's "ocl") is refused, naming why, instead of training alone.

Its fp16 GradScaler is chosen the same way (get_grad_scaler): for the device chosen with
the line, it is the device's own, where Accelerate would give a CUDA one that disables itself.
"""
from __future__ import annotations

import os
import sys

from . import _backend
from .post_import import after_import

ACCELERATE_MODULE = "accelerate.state"
DEVICE_VARIABLE = "ACCELERATE_TORCH_DEVICE"


def install() -> None:
    after_import(ACCELERATE_MODULE, _wrap_prepare_backend, failure=lambda: (
        f"Accelerate is imported, but its multi-process state could not be given the {_backend.load().device} device"))


def _wrap_prepare_backend() -> None:
    state = sys.modules[ACCELERATE_MODULE]
    original = state.PartialState._prepare_backend
    if getattr(original, "_torch_fl_original", None) is not None:
        return

    def _prepare_backend(self, cpu: bool = False, sagemaker_dp=False, backend=None):
        _wrap_get_grad_scaler()
        chosen, distributed_type = original(self, cpu, sagemaker_dp, backend)
        if distributed_type == state.DistributedType.NO and _is_our_rank(cpu):
            if self.device is not None:
                # ACCELERATE_TORCH_DEVICE=mlu made it torch.device("mlu"), the current device,
                # device 0 on every rank (mlu:0 names it outright); cleared, Accelerate's
                # set_device gives rank r its own.
                self.device = None
            return _our_backend(state.DistributedType, backend)
        return chosen, distributed_type

    _prepare_backend._torch_fl_original = original
    state.PartialState._prepare_backend = _prepare_backend


# Where get_grad_scaler is looked up: its module, the package that re-exports it, and
# accelerate.accelerator, which imports it by name. accelerate.state is imported halfway
# through accelerate.utils, before get_grad_scaler exists, so it is wrapped when the first
# PartialState is set up (Accelerator sets one up before it makes its scaler); a module
# imported after that takes the wrapped one from accelerate.utils.
_GRAD_SCALER_OWNERS = ("accelerate.utils.modeling", "accelerate.utils", "accelerate.accelerator")


def _wrap_get_grad_scaler() -> None:
    """Accelerate's get_grad_scaler (fp16) also knows vendors by module name: for the device it
    returns torch.amp.GradScaler("cuda"), which disables itself on a machine without CUDA, and
    fp16 trains with no loss scaling, without a word. For the device chosen with the
    documented line it is the device's GradScaler (ShardedGradScaler for FSDP)."""
    modeling = sys.modules.get("accelerate.utils.modeling")
    original = getattr(modeling, "get_grad_scaler", None)
    if original is None or getattr(original, "_torch_fl_original", None) is not None:
        return

    def get_grad_scaler(distributed_type=None, **kwargs):
        device = _backend.load().device
        if os.environ.get(DEVICE_VARIABLE, "").split(":")[0] != device:
            return original(distributed_type, **kwargs)
        state = sys.modules[ACCELERATE_MODULE]
        if distributed_type == state.DistributedType.FSDP:
            from torch.distributed.fsdp.sharded_grad_scaler import ShardedGradScaler
            return ShardedGradScaler(device=device, **kwargs)
        import torch
        return torch.amp.GradScaler(device, **kwargs)

    get_grad_scaler._torch_fl_original = original
    for owner in _GRAD_SCALER_OWNERS:
        module = sys.modules.get(owner)
        if module is not None and getattr(module, "get_grad_scaler", None) is original:
            module.get_grad_scaler = get_grad_scaler


def uninstall() -> None:
    """Gives Accelerate back its own _prepare_backend and get_grad_scaler (for tests, and
    users who want them)."""
    state = sys.modules.get(ACCELERATE_MODULE)
    if state is None:
        return
    original = getattr(state.PartialState._prepare_backend, "_torch_fl_original", None)
    if original is not None:
        state.PartialState._prepare_backend = original
    for owner in _GRAD_SCALER_OWNERS:
        module = sys.modules.get(owner)
        original = getattr(getattr(module, "get_grad_scaler", None), "_torch_fl_original", None)
        if original is not None:
            module.get_grad_scaler = original


def _is_our_rank(cpu: bool) -> bool:
    """One of several launched processes told to use the device. A single launched process
    (torchrun --nproc_per_node 1) is Accelerate's own NO, as before."""
    chosen = os.environ.get(DEVICE_VARIABLE, "").split(":")[0]
    return (not cpu and chosen == _backend.load().device and int(os.environ.get("LOCAL_RANK", -1)) != -1
            and int(os.environ.get("WORLD_SIZE", 1)) > 1)


def _our_backend(distributed_types, backend):
    from . import distributed
    name = _backend.load().device
    distributed_type = getattr(distributed_types, f"MULTI_{name.upper()}", None)
    if distributed_type is None:
        raise RuntimeError(
            f"[{_backend.load().vendor}] accelerate launch with several processes needs a device type Accelerate "
            f"knows (it has MULTI_MLU, MULTI_NPU, ...; none for '{name}'): each rank would train alone on {name}:0. "
            f"Launch with torchrun and torch.nn.parallel.DistributedDataParallel, or use one process")
    return backend or distributed.backend_name(), distributed_type
