"""The spec's private formats (`formats:`, e.g. the NPU's NC1HWC0) and the cache of
converted inputs (`layout: {arg: {convert: fn, reuse: true}}`), seen from Python."""
from __future__ import annotations

import ctypes
from typing import Optional

import torch

from . import _backend


def conversion_cache_stats() -> dict[str, int]:
    """Hits, misses and live entries of the cache of converted inputs: the
    spec's `layout: {arg: {convert: fn, reuse: true}}` (e.g. conv weights in a
    vendor's blocked format, converted once while the weight is unchanged)."""
    values = (ctypes.c_uint64 * 3)()
    _backend.load().call("tfl_conversion_cache_stats", values)
    return {"hits": values[0], "misses": values[1], "entries": values[2]}


def private_format_stats() -> dict[str, int]:
    """Conversions of the spec's private formats since the last reset: `to_private`
    (a public tensor converted for a format-aware op), `to_public` (a private storage
    converted back, once, for anything that is not format-aware) and `created`
    (private results)."""
    values = (ctypes.c_uint64 * 3)()
    _backend.load().call("tfl_private_format_stats", values)
    return {"to_private": values[0], "to_public": values[1], "created": values[2]}


def reset_private_format_stats() -> None:
    _backend.load().call("tfl_reset_private_format_stats")


def set_private_formats(enabled: bool) -> None:
    """Whether format-aware ops keep results in the spec's private formats (the
    default; TORCH_FL_PRIVATE_FORMATS=0 starts with them off). Off, every result
    is public and a format-aware op converts its input per call. Tensors already
    private stay so until something reads them."""
    _backend.load().call("tfl_set_private_formats", 1 if enabled else 0)


def private_formats_enabled() -> bool:
    return bool(_backend.load().lib.tfl_private_formats_enabled())


def make_public(tensor: torch.Tensor) -> torch.Tensor:
    """Converts tensor's device storage out of a private format now (a no-op when
    public) and returns tensor. Only code that reads raw device pointers needs it
    (`data_ptr()`, DLPack): every PyTorch op sees public values regardless."""
    if tensor.device.type != "cpu":
        _backend.load().call("tfl_make_storage_public", tensor.untyped_storage()._cdata)
    return tensor


def storage_format(tensor: torch.Tensor) -> Optional[str]:
    """The private format tensor's device storage is in ("NC1HWC0"), or None when
    it is public. Values never depend on it: whatever is not format-aware sees
    the public layout."""
    if tensor.device.type == "cpu":
        return None
    name = _backend.load().lib.tfl_storage_format(tensor.untyped_storage()._cdata).decode()
    return name or None
