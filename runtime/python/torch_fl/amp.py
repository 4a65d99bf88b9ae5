"""torch_fl.amp: torch.amp for whichever vendor is loaded, so that code that
said `torch.cuda.amp` says `torch_fl.amp` and runs on any Torch-FL device.
The autocast policy is the spec's (specs/common/autocast.yaml and the vendor's
overrides); GradScaler's unscale and update run as ATen ops on the device."""
from __future__ import annotations

from typing import Any, Optional

import torch

from . import _backend


def _device_type() -> str:
    return _backend.load().device


class autocast(torch.autocast):
    """torch.autocast on the loaded vendor's device (dtype float16 by default, as torch.cuda.amp)."""

    def __init__(self, enabled: bool = True, dtype: Optional[torch.dtype] = torch.float16, cache_enabled: bool = True):
        super().__init__(_device_type(), dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(torch.amp.GradScaler):
    """torch.amp.GradScaler on the loaded vendor's device."""

    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True, **kwargs: Any) -> None:
        super().__init__(_device_type(), init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval, enabled=enabled, **kwargs)
