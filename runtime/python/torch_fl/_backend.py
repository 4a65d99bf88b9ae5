"""Finds and loads one vendor's backend library, and wraps its C entry points.

The library registers its kernels, device guard, hooks and allocator with
PyTorch when loaded; its small C API (see runtime/src/python_c_api.cpp) is
reached through ctypes, so no compiled Python extension is involved.
"""
from __future__ import annotations

import ctypes
import glob
import importlib.util
import os
import sys
from dataclasses import dataclass
from typing import Optional

import torch
import torch_fl_wheels

_REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

_ERRORS = {-1: RuntimeError, -2: IndexError, -3: ValueError, -4: torch.OutOfMemoryError}


class DriverDeviceProperties(ctypes.Structure):
    """tflDeviceProperties of runtime/include/torch_fl/driver_abi.h, field for field."""
    _fields_ = [("name", ctypes.c_char * 256), ("major", ctypes.c_int32), ("minor", ctypes.c_int32),
                ("total_memory", ctypes.c_size_t), ("multi_processor_count", ctypes.c_int32)]


@dataclass(frozen=True)
class Backend:
    vendor: str
    device: str
    library_path: str
    spec_path: str
    spec_sha256: str
    lib: ctypes.CDLL

    def call(self, name: str, *args) -> None:
        status = getattr(self.lib, name)(*args)
        if status != 0:
            message = self.lib.tfl_last_error().decode()
            raise _ERRORS.get(status, RuntimeError)(message)


def source_build_root() -> str:
    """Where `make backend` put this torch's builds in the source tree: build/ for the default
    torch, build/torch-<version>/ for another (make TORCH=<version>); never another torch's,
    whose library would not fit this torch's ABI. The rule is codegen/torch_versions.py's."""
    rule = _source_tree_versions()
    return rule.build_root(torch.__version__, _REPO_ROOT) if rule else os.path.join(_REPO_ROOT, "build")


def _source_tree_versions():
    """codegen/torch_versions.py of the source tree, loaded by path (the codegen package is not
    torch_fl's); None outside a source tree (an installed package has no codegen/)."""
    name = "torch_fl_source_tree_versions"
    if name not in sys.modules:
        path = os.path.join(_REPO_ROOT, "codegen", "torch_versions.py")
        if not os.path.isfile(path):
            return None
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # before it runs: its dataclasses look their module up
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
    return sys.modules[name]


def _make_backend(vendor: str) -> str:
    """The command that builds vendor's backend for this torch."""
    rule = _source_tree_versions()
    if rule is None or rule.public_version(torch.__version__) == rule.default_version(_REPO_ROOT):
        return f"make backend VENDOR={vendor}"
    return f"make backend VENDOR={vendor} TORCH={rule.public_version(torch.__version__)}"


def built_libraries() -> dict[str, str]:
    """vendor → backend library path, for every vendor built by `make backend` for this torch
    (<build root>/<vendor>/; sanitizer builds such as build/<vendor>-asan are not loadable)."""
    root = source_build_root()
    found = {}
    for path in glob.glob(os.path.join(root, "*", "vendors", "*", "libtorch_fl_*.so")):
        vendor = os.path.basename(path)[len("libtorch_fl_"):-len(".so")]
        if os.path.relpath(path, root).split(os.sep)[0] == vendor:
            found[vendor] = path
    return found


def installed_vendors() -> dict[str, str]:
    """vendor → torch_fl/vendors/<vendor>/ of each installed Torch-FL wheel; empty in the source tree."""
    return torch_fl_wheels.installed_vendors()


def _choose_installed(installed: dict[str, str], wanted: Optional[str]) -> tuple[str, str]:
    """The installed wheel's library, checked against this torch (the autoload hook's checks)."""
    if wanted and wanted not in installed:
        raise ImportError(f"torch_fl: TORCH_FL_VENDOR={wanted}, but the installed Torch-FL wheels are for "
                          f"{', '.join(sorted(installed))}")
    if not wanted and len(installed) > 1:
        raise ImportError(f"torch_fl: Torch-FL wheels for several vendors are installed ({', '.join(sorted(installed))}); "
                          "set TORCH_FL_VENDOR to choose one (one vendor per process)")
    vendor = wanted or next(iter(installed))
    info = torch_fl_wheels.read_build_info(installed[vendor])
    problem = torch_fl_wheels.problem_with(installed[vendor], info, torch.__version__)
    if problem:
        raise ImportError(f"torch_fl: {problem}")
    return vendor, os.path.join(installed[vendor], info["library"])


def _autoloaded_device(vendor: str) -> Optional[str]:
    """The device the autoload hook registered for this installed vendor, if it did."""
    return torch_fl_wheels.registered_device(vendor)


def _choose_library() -> tuple[str, str]:
    explicit = os.environ.get("TORCH_FL_LIBRARY")
    wanted = os.environ.get("TORCH_FL_VENDOR")
    if explicit:
        named = os.path.basename(explicit)[len("libtorch_fl_"):-len(".so")]
        if wanted and wanted != named:
            raise ImportError(f"torch_fl: TORCH_FL_LIBRARY={explicit} is the '{named}' backend, but "
                              f"TORCH_FL_VENDOR={wanted}; unset one of them")
        return named, explicit
    installed = installed_vendors()
    if installed:
        return _choose_installed(installed, wanted)
    libraries = built_libraries()
    if wanted:
        if wanted not in libraries:
            raise ImportError(f"torch_fl: no built backend for vendor '{wanted}' under {source_build_root()} "
                              f"(built: {', '.join(sorted(libraries)) or 'none'}); run `{_make_backend(wanted)}`")
        return wanted, libraries[wanted]
    if len(libraries) == 1:
        return next(iter(libraries.items()))
    if not libraries:
        raise ImportError(f"torch_fl: no backend is built under {source_build_root()}; run `{_make_backend('mlu')}`")
    raise ImportError(f"torch_fl: several backends are built ({', '.join(sorted(libraries))}); "
                      "set TORCH_FL_VENDOR to choose one (one vendor per process)")


def _declare(lib: ctypes.CDLL) -> None:
    c_int, c_char_p, c_uint64, c_int64 = ctypes.c_int, ctypes.c_char_p, ctypes.c_uint64, ctypes.c_int64
    for name in ("tfl_last_error", "tfl_vendor_name", "tfl_device_name", "tfl_spec_path", "tfl_spec_sha256",
                 "tfl_torch_version", "tfl_collective_backend", "tfl_collective_dtypes",
                 "tfl_collective_transport", "tfl_fallback_stats_json", "tfl_forced_fallbacks", "tfl_native_runs_json",
                 "tfl_driver_counters"):
        getattr(lib, name).restype = c_char_p
        getattr(lib, name).argtypes = []
    lib.tfl_memory_snapshot_json.restype = c_char_p
    lib.tfl_memory_snapshot_json.argtypes = [c_int]
    lib.tfl_memory_history_json.restype = c_char_p
    lib.tfl_memory_history_json.argtypes = [c_int]
    lib.tfl_storage_format.restype = c_char_p
    lib.tfl_storage_format.argtypes = [ctypes.c_void_p]
    signatures = {
        "tfl_device_count": [ctypes.POINTER(c_int)],
        "tfl_device_properties": [c_int, ctypes.POINTER(DriverDeviceProperties)],
        "tfl_in_bad_fork": [],
        "tfl_is_initialized": [],
        "tfl_current_device": [ctypes.POINTER(c_int)],
        "tfl_set_device": [c_int],
        "tfl_synchronize": [c_int],
        "tfl_memory_stats_json": [c_int, ctypes.POINTER(c_char_p)],
        "tfl_reset_peak_memory_stats": [c_int],
        "tfl_empty_cache": [],
        "tfl_memory_info": [c_int, ctypes.POINTER(c_uint64), ctypes.POINTER(c_uint64)],
        "tfl_device_busy_time": [c_int, ctypes.POINTER(c_uint64), ctypes.POINTER(c_uint64)],
        "tfl_op_calls": [c_int, ctypes.POINTER(c_uint64), ctypes.POINTER(c_uint64)],
        "tfl_record_memory_history": [c_uint64],
        "tfl_set_oom_observer": [ctypes.c_void_p],
        "tfl_reset_fallback_stats": [],
        "tfl_record_native_runs": [c_int],
        "tfl_set_forced_fallbacks": [c_char_p],
        "tfl_set_log_level": [c_int],
        "tfl_set_log_sink": [ctypes.c_void_p],
        "tfl_manual_seed": [c_int, c_uint64],
        "tfl_seed": [c_int, ctypes.POINTER(c_uint64)],
        "tfl_initial_seed": [c_int, ctypes.POINTER(c_uint64)],
        "tfl_get_rng_state": [c_int, ctypes.POINTER(ctypes.c_uint8)],
        "tfl_set_rng_state": [c_int, ctypes.POINTER(ctypes.c_uint8)],
        "tfl_conversion_cache_stats": [ctypes.POINTER(c_uint64)],
        "tfl_private_format_stats": [ctypes.POINTER(c_uint64)],
        "tfl_reset_private_format_stats": [],
        "tfl_set_private_formats": [c_int],
        "tfl_make_storage_public": [ctypes.c_void_p],
        "tfl_private_formats_enabled": [],
    }
    for name, argtypes in signatures.items():
        getattr(lib, name).restype = c_int
        getattr(lib, name).argtypes = argtypes


_loaded: Optional[Backend] = None


def load() -> Backend:
    """Loads the backend once per process; later calls return it."""
    global _loaded
    if _loaded is not None:
        return _loaded
    vendor, path = _choose_library()
    # PrivateUse1 can be claimed once per process: by one Torch-FL vendor, or by
    # another plugin. Check before loading, since loading registers kernels. The
    # autoload hook (torch_fl_autoload) names it after this vendor's device first.
    owner = torch._C._get_privateuse1_backend_name()
    if owner not in ("privateuseone", _autoloaded_device(vendor)):
        raise ImportError(f"torch_fl: cannot load the '{vendor}' backend ({path}): PrivateUse1 is already claimed "
                          f"by device '{owner}' in this process. One vendor per process: set TORCH_FL_VENDOR to choose "
                          "which backend to load, and load no other PrivateUse1 plugin beside it")
    torch.ops.load_library(path)
    lib = ctypes.CDLL(path)
    _declare(lib)
    device = lib.tfl_device_name().decode()
    _loaded = Backend(vendor=lib.tfl_vendor_name().decode(), device=device, library_path=path,
                      spec_path=lib.tfl_spec_path().decode(), spec_sha256=lib.tfl_spec_sha256().decode(), lib=lib)
    return _loaded


def repo_root() -> str:
    return _REPO_ROOT


def data_file(vendor: str, name: str) -> str:
    """A file the vendor's build ships beside its library (support_matrix.json, ...): from the
    installed wheel's torch_fl/vendors/<vendor>/, or in the source tree from generated/<vendor>/
    (build/torch-<version>/generated/<vendor>/ for a torch other than the default)."""
    installed = installed_vendors()
    if vendor in installed:
        return os.path.join(installed[vendor], name)
    rule = _source_tree_versions()
    generated = rule.generated_dir(torch.__version__, _REPO_ROOT) if rule else os.path.join(_REPO_ROOT, "generated")
    return os.path.join(generated, vendor, name)
