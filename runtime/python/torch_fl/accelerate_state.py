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
"""
from __future__ import annotations

import logging
import os

from . import _backend
from .post_import import after_import

logger = logging.getLogger("torch_fl")

ACCELERATE_MODULE = "accelerate.state"
DEVICE_VARIABLE = "ACCELERATE_TORCH_DEVICE"


def install() -> None:
    after_import(ACCELERATE_MODULE, _patch)


def _patch() -> None:
    try:
        _wrap_prepare_backend()
    except Exception as error:  # noqa: BLE001 - runs inside Accelerate's import
        logger.warning("torch_fl: Accelerate is imported, but its multi-process state could not be given the %s "
                       "device (%s: %s)", _backend.load().device, type(error).__name__, error)


def _wrap_prepare_backend() -> None:
    import importlib
    state = importlib.import_module(ACCELERATE_MODULE)
    original = state.PartialState._prepare_backend
    if getattr(original, "_torch_fl_original", None) is not None:
        return

    def _prepare_backend(self, cpu: bool = False, sagemaker_dp=False, backend=None):
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


def uninstall() -> None:
    """Gives Accelerate back its own _prepare_backend (for tests, and users who want it)."""
    import sys
    state = sys.modules.get(ACCELERATE_MODULE)
    if state is None:
        return
    original = getattr(state.PartialState._prepare_backend, "_torch_fl_original", None)
    if original is not None:
        state.PartialState._prepare_backend = original


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
