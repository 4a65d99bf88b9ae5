"""PyTorch's autoload hook for an installed Torch-FL wheel (entry point group
`torch.backends`, called at the end of `import torch`; TORCH_DEVICE_BACKEND_AUTOLOAD=0
turns it off).

Loading the backend library costs tens of milliseconds, so the hook only names
the device and leaves the load to its first use: it renames PrivateUse1 after
the vendor's device and registers `torch.<device>` as a placeholder. PyTorch
calls `torch.<device>._lazy_init()` before a factory or `.to()` touches the
device, and any other attribute of `torch.<device>` goes through the same
load; then `import torch_fl` replaces the placeholder with the real module.

The hook never breaks `import torch`. What it can check without loading the
library (the torch the wheel was built for, the library file, the vendor
choice, PrivateUse1 still free) gives one warning at import and leaves the
reason in the placeholder, whose use raises RuntimeError saying it. A library
that fails to load raises at first use the same way. This module lives outside
the torch_fl package, whose import loads the backend; what it reads of the
installed wheels is torch_fl_wheels', shared with the package's loader.
"""
from __future__ import annotations

import importlib.abc
import importlib.util
import os
import sys
import threading
import types
import warnings

from torch_fl_wheels import installed_vendors, problem_with, read_build_info, record_registered_device

_WARNING_PREFIX = "torch_fl autoload"
_done = False


def autoload() -> None:
    global _done
    if _done:  # each installed vendor wheel declares the entry point
        return
    _done = True
    try:
        _autoload()
    except Exception as error:  # noqa: BLE001 - never break `import torch`
        warnings.warn(f"{_WARNING_PREFIX}: skipped ({type(error).__name__}: {error}); torch works without "
                      "the device (TORCH_DEVICE_BACKEND_AUTOLOAD=0 turns autoload off)", RuntimeWarning,
                      stacklevel=2)


def _autoload() -> None:
    import torch  # partly imported (we run inside `import torch`); what the hook uses is defined

    vendors = installed_vendors()
    wanted = os.environ.get("TORCH_FL_VENDOR")
    if wanted:
        if wanted not in vendors:
            _warn(f"TORCH_FL_VENDOR={wanted}, but the installed Torch-FL wheels are for "
                  f"{', '.join(vendors) or 'no vendor'}")
            return
        vendors = {wanted: vendors[wanted]}
    if not vendors:
        return
    infos = {vendor: read_build_info(path) for vendor, path in vendors.items()}
    if len(vendors) > 1:
        # Only one vendor per process can own PrivateUse1; which one is the user's choice.
        reason = (f"Torch-FL wheels for several vendors are installed ({', '.join(vendors)}): set "
                  "TORCH_FL_VENDOR to the one this process uses")
        for info in infos.values():
            _install_placeholder(torch, info["device"], reason)
        _refuse_device_strings_until_chosen(torch, [info["device"] for info in infos.values()], reason)
        return
    (vendor, vendor_dir), = vendors.items()
    info = infos[vendor]
    device = info["device"]
    owner = torch._C._get_privateuse1_backend_name()
    if owner not in ("privateuseone", device):
        _warn(f"the {device} device is not registered: PrivateUse1 is already claimed by device '{owner}' in this process")
        return
    problem = problem_with(vendor_dir, info, torch.__version__)
    if problem:
        _warn(f"the {device} device is unavailable: {problem}. torch works; using the device raises this error")
    if owner == "privateuseone":
        torch.utils.rename_privateuse1_backend(device)
    record_registered_device(vendor, device)
    _install_placeholder(torch, device, problem)
    if problem is None and not hasattr(torch.Tensor, device):
        torch.utils.generate_methods_for_privateuse1_backend(for_tensor=True, for_module=True, for_storage=True)
    if problem is None and os.environ.get(CUDA_COMPAT_VARIABLE, "") not in ("", "0"):
        _load_for_cuda_compat()
    elif problem is None:
        sys.meta_path.insert(0, _LoadBeforeFrameworks())


# torch_fl.cuda_compatibility.ENV_VAR (not imported from there: that loads the backend).
CUDA_COMPAT_VARIABLE = "TORCH_FL_CUDA_COMPAT"


def _load_for_cuda_compat() -> None:
    """A script written for CUDA asks torch.cuda.is_available() before it touches any
    device: with the compatibility layer asked for, the backend loads now, inside
    `import torch` (its init() turns the layer on), instead of at the device's first
    use, which such a script would never reach. Only then: otherwise `import torch`
    does not pay for the load."""
    try:
        import torch_fl  # noqa: F401
    except Exception as error:  # noqa: BLE001 - never break `import torch`
        _warn(f"{CUDA_COMPAT_VARIABLE} is set, but the backend failed to load ({type(error).__name__}: {error}); "
              "CUDA code runs as it would without Torch-FL")


# The modules where training frameworks choose their device: torch_fl's import installs
# its integration with each (torch_fl/deepspeed_accelerator.py, lightning.py,
# accelerate_state.py) as a hook on them, and autoload defers that import to the device's first use, which a framework
# asks about before any tensor exists. Their first import is therefore such a use.
FRAMEWORK_MODULES = frozenset({"deepspeed.accelerator.real_accelerator", "pytorch_lightning.accelerators",
                               "lightning.pytorch.accelerators", "accelerate.state"})
# Accelerate (under every transformers Trainer) is told the device by this variable
# (docs/frameworks.md); without it, importing Accelerate does not load the backend.
ACCELERATE_DEVICE_VARIABLE = "ACCELERATE_TORCH_DEVICE"


_finder_lock = threading.Lock()


class _LoadBeforeFrameworks(importlib.abc.MetaPathFinder):
    """Loads the backend (import torch_fl) right before a framework module's first import,
    then hands the lookup back: torch_fl's own hooks, now first on sys.meta_path, see it."""

    def find_spec(self, fullname, path, target=None):
        if fullname not in FRAMEWORK_MODULES:
            return None
        if fullname == "accelerate.state" and not _names_a_torch_fl_device(
                os.environ.get(ACCELERATE_DEVICE_VARIABLE)):
            return None
        with _finder_lock:  # two threads importing two frameworks: one removes it
            if self in sys.meta_path:
                sys.meta_path.remove(self)  # once: torch_fl now hooks every framework module itself
        try:
            import torch_fl  # noqa: F401
        except Exception as error:  # noqa: BLE001 - the framework still imports, on its own devices
            _warn(f"{fullname.split('.')[0]} is imported, but the backend failed to load "
                  f"({type(error).__name__}: {error}); it will not see the device")
            return None
        return importlib.util.find_spec(fullname)


def _names_a_torch_fl_device(value: str | None) -> bool:
    """ACCELERATE_TORCH_DEVICE=mlu (or mlu:1) where PrivateUse1 is ours; cpu, cuda, ... are not."""
    import torch
    return bool(value) and value.split(":")[0] == torch._C._get_privateuse1_backend_name()


def _warn(message: str) -> None:
    warnings.warn(f"{_WARNING_PREFIX}: {message}", RuntimeWarning, stacklevel=4)


def _install_placeholder(torch, device: str, problem: str | None) -> None:
    if hasattr(torch, device):
        return
    placeholder = DevicePlaceholder(device, problem)
    setattr(torch, device, placeholder)
    sys.modules[f"torch.{device}"] = placeholder


def _refuse_device_strings_until_chosen(torch, devices: list[str], reason: str) -> None:
    """With no vendor chosen, PrivateUse1 has no name, so `device="mlu"` would meet PyTorch's
    "Expected one of cpu, cuda, ... device type" error, which does not say what to do. A torch
    function mode sees the string first (the argument parser only checks it is a str) and raises
    the reason instead. It is pushed only in this misconfigured case (it costs every torch call a
    Python frame), on the importing thread (modes are per thread), and stands aside once a vendor
    is loaded. It sees `torch.device("mlu")`, `Module.to("mlu")` and `set_default_device` too;
    a string nested in a list, or `torch.load(map_location="mlu")`, keeps PyTorch's message."""
    from torch.overrides import TorchFunctionMode

    class RefuseUnchosenVendorDevices(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if torch._C._get_privateuse1_backend_name() == "privateuseone":
                for value in (*args, *kwargs.values()):
                    if isinstance(value, str) and value.split(":")[0] in devices:
                        raise RuntimeError(f"torch_fl: {reason} (device '{value}' in {_name_of(func)})")
            return func(*args, **kwargs)

    RefuseUnchosenVendorDevices().__enter__()


def _name_of(func) -> str:
    from torch.overrides import resolve_name
    return resolve_name(func) or getattr(func, "__name__", repr(func))


class DevicePlaceholder(types.ModuleType):
    """`torch.<device>` until the backend is loaded: the first use loads it (import torch_fl),
    or raises RuntimeError with the reason it cannot be loaded."""

    _torch_fl_placeholder = True  # torch_fl.init() replaces it

    def __init__(self, device: str, problem: str | None) -> None:
        super().__init__(f"torch.{device}", f"torch.{device}: loads the Torch-FL backend on first use")
        self._device = device
        self._problem = problem

    def _load(self) -> types.ModuleType:
        if self._problem is not None:
            raise RuntimeError(f"torch_fl: {self._problem}")
        try:
            import torch_fl
        except Exception as error:
            self._problem = f"the {self._device} backend failed to load: {type(error).__name__}: {error}"
            raise RuntimeError(f"torch_fl: {self._problem}") from error
        return torch_fl.device_module

    def _lazy_init(self) -> None:
        self._load()._lazy_init()

    def is_available(self) -> bool:
        """False, not an error, when the backend cannot load (as torch.cuda.is_available)."""
        try:
            return self._load().is_available()
        except RuntimeError:
            return False

    def device_count(self) -> int:
        try:
            return self._load().device_count()
        except RuntimeError:
            return 0

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._load(), name)
