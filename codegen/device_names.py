"""Which names a spec's `device:` can take, by the installed torch's rules.

The backend renames PyTorch's PrivateUse1 device to the spec's `device`
(torch.utils.rename_privateuse1_backend). PyTorch refuses an in-tree device
type's name (cuda, cpu, ...) or, for others (meta, lazy, ...), accepts it and
keeps parsing the name as its own device; and torch.device() only parses a
device type made of lowercase letters and `_` ("MLU" and "dev2" never parse).

The in-tree names are c10's DeviceType enumerators, read from the installed
torch's headers: reading them costs nothing, importing torch seconds.
"""
from __future__ import annotations

import functools
import importlib.util
import os
import re
from typing import Optional

# What torch.device() parses as a device type (c10/core/Device.cpp): letters
# and `_`; PrivateUse1 names are compared as written, and PyTorch's are lowercase.
NAME_RULE = re.compile(r"[a-z_]+")

# Where c10's DeviceType enum is declared, by torch version.
_HEADERS = ("torch/headeronly/core/DeviceType.h", "c10/core/DeviceType.h")
_ENUM = re.compile(r"enum\s+class\s+DeviceType\s*:\s*int8_t\s*\{(?P<body>.*?)\}", re.S)
_ENUMERATOR = re.compile(r"^\s*(?P<name>[A-Za-z][A-Za-z0-9]*)\s*=\s*\d+", re.M)
# Not a device type: the enum's size; PrivateUse1 is the device being named.
_NOT_TAKEN = {"compile_time_max_device_types", "privateuse1"}


def _enum_body() -> Optional[str]:
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return None
    include = os.path.join(spec.submodule_search_locations[0], "include")
    for header in _HEADERS:
        try:
            with open(os.path.join(include, header), encoding="utf-8", errors="replace") as f:
                match = _ENUM.search(f.read())
        except OSError:
            continue
        if match:
            return match.group("body")
    return None


@functools.lru_cache(maxsize=1)
def torch_device_types() -> frozenset[str]:
    """The names of PyTorch's own device types (cpu, cuda, meta, xla, ...), lowercase."""
    body = _enum_body()
    if body is None:
        raise RuntimeError("c10's DeviceType enum was not found in the installed torch's headers "
                           f"({', '.join(_HEADERS)} under torch/include)")
    names = {m.group("name").lower() for m in _ENUMERATOR.finditer(re.sub(r"//[^\n]*", "", body))}
    return frozenset(names - _NOT_TAKEN)


def problem(name: str) -> Optional[tuple[str, str]]:
    """(what is wrong, a suggestion) with `name` as a device name, or None."""
    if not NAME_RULE.fullmatch(name):
        return (f"device '{name}' is not a name torch.device() parses: lowercase letters and _ only",
                f"e.g. '{re.sub(r'[^a-z_]', '', name.lower()) or 'mychip'}'")
    if name in torch_device_types():
        return (f"device '{name}' is one of PyTorch's own device types, which a backend cannot rename "
                "PrivateUse1 to", "name the chip, e.g. 'mlu' or 'npu'")
    return None
