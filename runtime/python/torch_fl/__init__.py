"""Torch-FL: run unmodified PyTorch code on a vendor chip through PrivateUse1.

    import torch, torch_fl
    x = torch.randn(4, 4, device=torch_fl.device())     # e.g. device("mlu")

Importing loads the backend built from specs/<vendor>.yaml (TORCH_FL_VENDOR
chooses one when several are built), names PrivateUse1 after the vendor's
device, and registers torch.<device>.

The package is layered; a module imports only from its own layer or below
(tests/python/test_package_layers.py checks it):

    entry points   __init__ (re-exports only), cli, demo, __main__, and the
                   autoload hook (torch_fl_autoload, beside the package)
    start-up       _startup: init() loads the backend and installs each feature
    features       amp, compiler, cuda_compatibility, deepspeed_accelerator,
                   distributed, fallback, forced_fallback, formats, inventory,
                   lightning, memory_page, monitor, multiprocessing, placement,
                   prometheus_exporter, support
    device         device_module (torch.<device>), device_memory (torch.<device>.memory)
    foundation     _backend (the library and its C API), log, post_import, references;
                   torch_fl_wheels (beside the package: the installed wheels)
"""
from __future__ import annotations

from . import amp, device_module, distributed, placement  # noqa: F401  (public submodules)
from ._startup import device, device_count, init, set_default_device, vendor
from .cuda_compatibility import cuda_compat
from .fallback import fallback_count, fallback_report, fallback_stats, reset_fallback_stats
from .forced_fallback import force_fallback, forced_fallbacks
from .formats import (conversion_cache_stats, make_public, private_format_stats, private_formats_enabled,
                      reset_private_format_stats, set_private_formats, storage_format)
from .log import set_log_level
from .support import custom_ops, support_matrix

__all__ = [
    "amp", "conversion_cache_stats", "cuda_compat", "custom_ops", "device", "device_count", "device_module",
    "distributed", "fallback_count", "fallback_report", "fallback_stats", "force_fallback", "forced_fallbacks",
    "init", "make_public", "placement", "private_format_stats", "private_formats_enabled",
    "reset_fallback_stats", "reset_private_format_stats", "set_default_device", "set_log_level",
    "set_private_formats", "storage_format", "support_matrix", "vendor",
]

init()
