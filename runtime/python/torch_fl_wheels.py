"""The installed Torch-FL wheels, read without importing torch_fl (whose import loads a backend).

The foundation under both the autoload hook (torch_fl_autoload) and the package's
loader (torch_fl._backend): where each installed vendor's files are, what its
library was built for, what makes it unloadable, and which device the hook named
PrivateUse1 after. It imports nothing of Torch-FL's and not torch.
"""
from __future__ import annotations

import importlib.util
import json
import os
import struct

_registered: dict[str, str] = {}  # vendor → the device the autoload hook named PrivateUse1 after


def record_registered_device(vendor: str, device: str) -> None:
    _registered[vendor] = device


def registered_device(vendor: str) -> str | None:
    return _registered.get(vendor)


def installed_vendors() -> dict[str, str]:
    """vendor → its directory torch_fl/vendors/<vendor>/ in the installed wheels, without importing torch_fl."""
    spec = importlib.util.find_spec("torch_fl")
    found: dict[str, str] = {}
    for package_dir in (spec.submodule_search_locations or []) if spec else []:
        vendors_dir = os.path.join(package_dir, "vendors")
        for vendor in sorted(os.listdir(vendors_dir)) if os.path.isdir(vendors_dir) else []:
            if os.path.isfile(os.path.join(vendors_dir, vendor, "build_info.json")):
                found.setdefault(vendor, os.path.join(vendors_dir, vendor))
    return found


def read_build_info(vendor_dir: str) -> dict:
    with open(os.path.join(vendor_dir, "build_info.json")) as f:
        return json.load(f)


def public_version(version: str) -> str:
    """'2.13.0+cpu' → '2.13.0': the C++ ABI is the release's; the local label names the build flavour."""
    return version.split("+")[0]


def problem_with(vendor_dir: str, info: dict, torch_version: str) -> str | None:
    """Why the vendor's library cannot be loaded into this torch, or None; checks only what is cheap."""
    if public_version(info["torch_version"]) != public_version(torch_version):
        return (f"the torch_fl_{info['vendor']} wheel was built for torch {info['torch_version']}, "
                f"but this is torch {torch_version}; install torch=={public_version(info['torch_version'])} "
                f"or a torch_fl_{info['vendor']} wheel built for torch {torch_version}")
    library = os.path.join(vendor_dir, info["library"])
    try:
        with open(library, "rb") as f:
            header, size = f.read(64), os.fstat(f.fileno()).st_size
    except OSError as error:
        return f"the {info['vendor']} backend library is missing: {library} ({error.strerror})"
    if len(header) < 64 or header[:4] != b"\x7fELF" or header[4] != 2 or header[5] != 1:
        return f"the {info['vendor']} backend library is not a 64-bit little-endian shared library: {library}"
    # The section headers end the file: a truncated copy would crash dlopen (SIGBUS), not fail it.
    section_headers_offset, = struct.unpack_from("<Q", header, 0x28)
    entry_size, entries = struct.unpack_from("<HH", header, 0x3A)
    if section_headers_offset + entry_size * entries > size:
        return f"the {info['vendor']} backend library is truncated ({size} bytes): {library}"
    return None
