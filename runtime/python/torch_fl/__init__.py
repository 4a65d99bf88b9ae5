"""Torch-FL: run unmodified PyTorch code on a vendor chip through PrivateUse1.

    import torch, torch_fl
    x = torch.randn(4, 4, device=torch_fl.device())     # e.g. device("mlu")

Importing loads the backend built from specs/<vendor>.yaml (TORCH_FL_VENDOR
chooses one when several are built), names PrivateUse1 after the vendor's
device, and registers torch.<device>.
"""
from __future__ import annotations

import atexit
import ctypes
import json
import sys
from typing import Optional

import torch

from . import _backend, amp, device_module, placement, forced_fallback as _forced_fallback, multiprocessing as _multiprocessing
from .forced_fallback import force_fallback, forced_fallbacks  # noqa: F401  (public API)
from .log import set_log_level  # noqa: F401  (public API)
from . import compiler as _compiler, cuda_compatibility as _cuda_compatibility, distributed as _distributed
from .cuda_compatibility import cuda_compat  # noqa: F401  (public API)

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
    _multiprocessing.register_reductions(backend.device)
    _compiler.install(backend.device)  # Dynamo and Inductor, when torch imports them
    _distributed.register()  # the spec's c10d backend
    _forced_fallback.apply_environment()
    # Device work still queued at exit would run while the interpreter and
    # libtorch tear down: drain every device first.
    atexit.register(_drain_devices)
    _initialized = True
    _cuda_compatibility.apply_environment()  # after: enabling it initialises torch_fl
    return backend.device


def _drain_devices() -> None:
    if device_module._is_in_bad_fork():
        return  # a forked child has no device work of its own (and its device cannot be used)
    for index in range(device_module.device_count()):
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


def set_default_device(index: Optional[int] = None) -> None:
    """Makes new tensors default to the vendor device (torch.set_default_device)."""
    torch.set_default_device(device(index))


def fallback_stats() -> dict[str, dict[str, int]]:
    """CPU fallbacks so far: {op: {dtype: count}}."""
    init()
    stats: dict[str, dict[str, int]] = {}
    for record in device_module._fallback_records():
        per_dtype = stats.setdefault(record["op"], {})
        per_dtype[record["dtype"]] = per_dtype.get(record["dtype"], 0) + record["count"]
    return stats


def fallback_count() -> int:
    return sum(sum(d.values()) for d in fallback_stats().values())


def conversion_cache_stats() -> dict[str, int]:
    """Hits, misses and live entries of the cache of converted inputs: the
    spec's `layout: {arg: {convert: fn, reuse: true}}` (e.g. conv weights in a
    vendor's blocked format, converted once while the weight is unchanged)."""
    init()
    values = (ctypes.c_uint64 * 3)()
    _backend.load().call("tfl_conversion_cache_stats", values)
    return {"hits": values[0], "misses": values[1], "entries": values[2]}


def private_format_stats() -> dict[str, int]:
    """Conversions of the spec's private formats (`formats:`, e.g. the NPU's
    NC1HWC0) since the last reset: `to_private` (a public tensor converted for a
    format-aware op), `to_public` (a private storage converted back, once, for
    anything that is not format-aware) and `created` (private results)."""
    init()
    values = (ctypes.c_uint64 * 3)()
    _backend.load().call("tfl_private_format_stats", values)
    return {"to_private": values[0], "to_public": values[1], "created": values[2]}


def reset_private_format_stats() -> None:
    init()
    _backend.load().call("tfl_reset_private_format_stats")


def set_private_formats(enabled: bool) -> None:
    """Whether format-aware ops keep results in the spec's private formats (the
    default; TORCH_FL_PRIVATE_FORMATS=0 starts with them off). Off, every result
    is public and a format-aware op converts its input per call. Tensors already
    private stay so until something reads them."""
    init()
    _backend.load().call("tfl_set_private_formats", 1 if enabled else 0)


def make_public(tensor: torch.Tensor) -> torch.Tensor:
    """Converts tensor's device storage out of a private format now (a no-op when
    public) and returns tensor. Only code that reads raw device pointers needs it
    (`data_ptr()`, DLPack): every PyTorch op sees public values regardless."""
    init()
    if tensor.device.type != "cpu":
        _backend.load().call("tfl_make_storage_public", tensor.untyped_storage()._cdata)
    return tensor


def private_formats_enabled() -> bool:
    init()
    return bool(_backend.load().lib.tfl_private_formats_enabled())


def storage_format(tensor: torch.Tensor) -> Optional[str]:
    """The private format tensor's device storage is in ("NC1HWC0"), or None when
    it is public. Values never depend on it: whatever is not format-aware sees
    the public layout."""
    init()
    if tensor.device.type == "cpu":
        return None
    name = _backend.load().lib.tfl_storage_format(tensor.untyped_storage()._cdata).decode()
    return name or None


def reset_fallback_stats() -> None:
    init()
    _backend.load().call("tfl_reset_fallback_stats")


def fallback_report() -> str:
    """A readable summary: ops by fallback count, with each one's dtype and reason."""
    init()
    records = sorted(device_module._fallback_records(), key=lambda r: -r["count"])
    if not records:
        return "no CPU fallbacks"
    lines = [f"{'count':>7}  {'op':<40} {'dtype':<10} reason"]
    lines += [f"{r['count']:>7}  {r['op']:<40} {r['dtype']:<10} {r['reason']}" for r in records]
    return "\n".join(lines)


def support_matrix() -> dict:
    """The generated support matrix of the loaded vendor: support_matrix.json of the installed
    wheel, or generated/<vendor>/ in the source tree."""
    with open(_backend.data_file(_backend.load().vendor, "support_matrix.json")) as f:
        return json.load(f)


def custom_ops() -> dict[str, dict]:
    """The vendor ops (torch.ops.<vendor>.*) of the loaded spec, by name, with their matrix rows."""
    return {row["name"]: row for row in support_matrix().get("custom_ops", [])}


def vendor() -> str:
    return _backend.load().vendor


init()
