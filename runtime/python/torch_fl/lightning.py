"""PyTorch Lightning's accelerator for the device, registered under the device's name
when Lightning is imported (a post-import hook: nothing is imported otherwise):

    trainer = pl.Trainer(accelerator="mlu", devices=1)
    trainer = pl.Trainer(accelerator="mlu", devices=2, strategy="ddp")

Lightning's DDP takes the process-group backend PyTorch maps the device to
(torch.distributed.Backend.default_device_backend_map), which the vendor's c10d backend
registers (distributed.py): cncl for the MLU, hccl for the NPU. Both packagings are
served: `pytorch_lightning` and `lightning.pytorch`.
"""
from __future__ import annotations

import logging
from typing import Any, Union

import torch

from . import _backend, device_module
from .post_import import after_import

logger = logging.getLogger("torch_fl")

# Each Lightning packaging: its accelerators module and its accelerator connector's.
PACKAGINGS = (("pytorch_lightning.accelerators", "pytorch_lightning.trainer.connectors.accelerator_connector",
               "pytorch_lightning.strategies"),
              ("lightning.pytorch.accelerators", "lightning.pytorch.trainer.connectors.accelerator_connector",
               "lightning.pytorch.strategies"))


def install() -> None:
    """Registers the accelerator with each Lightning packaging now if imported, else when it is."""
    for accelerators, connector, strategies in PACKAGINGS:
        after_import(accelerators, lambda module=accelerators: register(module))
        after_import(connector, lambda module=connector, strategies=strategies: place_single_device(module, strategies))
        after_import(strategies, lambda module=strategies: wrap_ddp_without_cuda_streams(module))


def parse_devices(devices: Union[int, str, list[int], tuple[int, ...]]) -> list[int]:
    """Trainer's `devices=` as Lightning takes it for GPUs: a count (-1 or "auto": all), a
    list of indices, or a string of either ("2", "0,1")."""
    count = device_module.device_count()
    name = _backend.load().device
    if isinstance(devices, str):
        text = devices.strip()
        if text in ("auto", "-1"):
            devices = -1
        elif "," in text:
            devices = [int(part) for part in text.split(",") if part.strip()]
        else:
            devices = int(text)
    if isinstance(devices, int):
        if devices == -1:
            devices = count
        if devices < 1 or devices > count:
            raise ValueError(f"torch_fl: devices={devices} asks for {devices} {name} device(s); "
                             f"this machine has {count}")
        return list(range(devices))
    indices = [int(index) for index in devices]
    missing = [index for index in indices if not 0 <= index < count]
    if not indices or missing:
        raise ValueError(f"torch_fl: devices={list(devices)} names {name} device(s) {missing or 'none'}; "
                         f"this machine has {count} ({name}:0 to {name}:{count - 1})")
    return indices


def _accelerator_class(base: type) -> type:
    name = _backend.load().device

    class TorchFLAccelerator(base):
        """Lightning's accelerator for the Torch-FL device."""

        def setup_device(self, device: torch.device) -> None:
            if device.type != name:
                raise ValueError(f"torch_fl: the {name} accelerator was given device {device}")
            device_module.set_device(device.index or 0)

        def teardown(self) -> None:
            device_module.empty_cache()

        def get_device_stats(self, device: Any) -> dict[str, Any]:
            return device_module.memory_stats(torch.device(device).index or 0)

        @staticmethod
        def parse_devices(devices: Any) -> list[int]:
            return parse_devices(devices)

        @staticmethod
        def get_parallel_devices(devices: list[int]) -> list[torch.device]:
            return [torch.device(name, index) for index in devices]

        @staticmethod
        def auto_device_count() -> int:
            return device_module.device_count()

        @staticmethod
        def is_available() -> bool:
            return device_module.device_count() > 0

        @staticmethod
        def name() -> str:
            return name

    TorchFLAccelerator.__qualname__ = TorchFLAccelerator.__name__ = f"{name.upper()}Accelerator"
    return TorchFLAccelerator


def register(module_name: str) -> None:
    import importlib
    accelerators = importlib.import_module(module_name)
    registry = accelerators.AcceleratorRegistry
    name = _backend.load().device
    if name in registry:
        logger.warning("torch_fl: Lightning already has an accelerator named %r (%s); the Torch-FL one is not "
                       "registered", name, registry[name]["accelerator"])
        return
    accelerator = _accelerator_class(accelerators.Accelerator)
    registry.register(name, accelerator, description=f"Torch-FL's {_backend.load().vendor} device")


def place_single_device(connector_module: str, strategies_module: str) -> None:
    """Lightning (2.6) gives a single-device run the CUDA or MPS device it was asked for, and
    CPU for every other accelerator, a registered one too: Trainer(accelerator="mlu",
    devices=1) would train on the CPU. Its strategy choice is wrapped so that a run on this
    accelerator gets the device (the accelerator's first parallel device) instead. The
    upstream fix would take any accelerator's parallel device there."""
    import importlib
    connector = importlib.import_module(connector_module).__dict__.get("_AcceleratorConnector")
    single = getattr(importlib.import_module(strategies_module), "SingleDeviceStrategy", None)
    choose = getattr(connector, "_choose_strategy", None)
    if connector is None or single is None or choose is None or getattr(choose, "_torch_fl", False):
        if not getattr(choose, "_torch_fl", False):
            logger.warning("torch_fl: this Lightning has no _AcceleratorConnector._choose_strategy; "
                           "Trainer(accelerator=%r, devices=1) may run on the CPU", _backend.load().device)
        return
    name = _backend.load().device

    def choose_strategy(self):
        chosen = choose(self)
        flag = self._accelerator_flag
        ours = _names_device(flag, name)
        devices = getattr(self, "_parallel_devices", None) or []
        if ours and isinstance(chosen, single) and chosen.root_device.type == "cpu" and devices:
            return single(device=devices[0])
        return chosen

    choose_strategy._torch_fl = True
    connector._choose_strategy = choose_strategy


def _names_device(flag, name: str) -> bool:
    """Whether Trainer's accelerator= (a string or an accelerator) is this device's. Another
    package's accelerator may have no name(), or one that is not our registry's classmethod."""
    if isinstance(flag, str):
        return flag == name
    flag_name = getattr(type(flag), "name", None)
    if not callable(flag_name):
        return False
    try:
        return flag_name() == name
    except TypeError:  # an instance method, or one that takes arguments: not ours
        return False


def wrap_ddp_without_cuda_streams(strategies_module: str) -> None:
    """Lightning's DDPStrategy builds DistributedDataParallel inside a torch.cuda stream
    whenever it passes device_ids, which is for every device but the CPU. For this device it
    passes none: DDP then takes the module's own device (PyTorch's rule for a single-device
    module) and builds on the current stream."""
    import importlib
    strategy = getattr(importlib.import_module(strategies_module), "DDPStrategy", None)
    determine = getattr(strategy, "determine_ddp_device_ids", None)
    if determine is None or getattr(determine, "_torch_fl", False):
        return
    name = _backend.load().device

    def determine_ddp_device_ids(self):
        return None if self.root_device.type == name else determine(self)

    determine_ddp_device_ids._torch_fl = True
    strategy.determine_ddp_device_ids = determine_ddp_device_ids
