"""The PEP 517 backend of pyproject.toml: scikit-build-core, per vendor.

PEP 621 forbids a dynamic project name, yet each vendor's wheel needs its own
distribution (torch_fl_mlu, torch_fl_npu) so that two can be installed side
by side. This wrapper sets what differs per vendor and hands the rest to
scikit-build-core (pinned in requirements.txt and build-system.requires; the
private entry point below is checked by tests/packaging):

- the distribution name torch_fl_<vendor> and `torch==<the torch it builds against>`;
- the CMake vendor (-DTORCH_FL_VENDOR) and a build tree of its own,
  build/<vendor>-wheel. `make wheel` passes `-C build-dir=build/<vendor>`, the
  tree of `make backend`, so that a wheel after it is no second build. Sharing
  that tree is safe only without build isolation: scikit-build-core clears the
  CMake cache of a tree last configured from another isolated environment.

The vendor comes from the config setting `vendor` (`pip install . -C vendor=npu`),
else TORCH_FL_VENDOR, else mlu.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from scikit_build_core import build as _skbuild
from scikit_build_core._compat import tomllib
from scikit_build_core.build import wheel as _skbuild_wheel
from scikit_build_core.settings.skbuild_read_settings import SettingsReader

__all__ = ["build_wheel", "build_sdist", "get_requires_for_build_wheel", "get_requires_for_build_sdist"]

get_requires_for_build_sdist = _skbuild.get_requires_for_build_sdist
build_sdist = _skbuild.build_sdist


def get_requires_for_build_wheel(config_settings=None):
    return _skbuild.get_requires_for_build_wheel(_vendor_settings(config_settings)[1])


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    vendor, settings = _vendor_settings(config_settings)
    pyproject = _vendor_pyproject(vendor)
    reader = SettingsReader(pyproject, settings, state="wheel")
    reader.validate_may_exit()
    return _skbuild_wheel._build_wheel_impl_impl(wheel_directory, metadata_directory, editable=False,
                                                 state="wheel", settings=reader.settings,
                                                 pyproject=pyproject).wheel_filename


def _vendor_settings(config_settings) -> tuple[str, dict]:
    settings = dict(config_settings or {})
    vendor = str(settings.pop("vendor", "") or os.environ.get("TORCH_FL_VENDOR") or "mlu")
    if not re.fullmatch(r"[a-z][a-z0-9_]*", vendor) or not Path(f"specs/{vendor}.yaml").is_file():
        known = sorted(p.stem for p in Path("specs").glob("*.yaml"))
        raise ValueError(f"torch_fl wheel: no spec for vendor '{vendor}' (specs/{vendor}.yaml); "
                         f"known vendors: {', '.join(known)}")
    settings["cmake.define.TORCH_FL_VENDOR"] = vendor
    settings.setdefault("build-dir", f"build/{vendor}-wheel")
    return vendor, settings


def _vendor_pyproject(vendor: str) -> dict:
    with open("pyproject.toml", "rb") as f:
        pyproject = tomllib.load(f)
    project = pyproject["project"]
    project["name"] = f"torch_fl_{vendor}"
    project["description"] = f"{project['description']} ({vendor})"
    # The library links against this torch's C++ ABI: exactly this release.
    import torch  # the build environment's: the one the library links against
    project["dependencies"] = [f"torch=={torch.__version__.split('+')[0]}"]
    project["dynamic"] = [field for field in project.get("dynamic", []) if field != "dependencies"]
    return pyproject
