"""PrivateUse1 can be claimed once per process: loading a second vendor, or
loading while another plugin owns PrivateUse1, fails at import naming both."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
import torch

import torch_fl
from torch_fl import _backend

# What this file tests is the same code for every vendor: chip_independent (conftest.py).
pytestmark = pytest.mark.chip_independent


def run_python(code: str, **env) -> subprocess.CompletedProcess:
    environment = dict(os.environ, **env)
    if "TORCH_FL_VENDOR" in env:  # choosing by vendor: not an explicit library (as under sanitizers)
        environment.pop("TORCH_FL_LIBRARY", None)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env=environment)


def test_another_plugin_owning_privateuse1_is_named(device):
    result = run_python("import torch\n"
                        "torch.utils.rename_privateuse1_backend('otherchip')\n"
                        "import torch_fl\n")
    assert result.returncode != 0
    assert "ImportError" in result.stderr
    assert f"cannot load the '{torch_fl.vendor()}' backend" in result.stderr
    assert "already claimed by device 'otherchip'" in result.stderr


def test_a_second_vendor_in_the_same_process_is_refused(device):
    others = sorted(set(_backend.built_libraries()) - {torch_fl.vendor()})
    if not others:
        pytest.skip("only one vendor is built; `make test` builds every specs/*.yaml")
    first, second = torch_fl.vendor(), others[0]
    result = run_python("import os, torch_fl\n"
                        "from torch_fl import _backend\n"
                        f"os.environ['TORCH_FL_VENDOR'] = '{second}'\n"
                        "_backend._loaded = None\n"
                        "_backend.load()\n", TORCH_FL_VENDOR=first)
    assert result.returncode != 0
    assert f"cannot load the '{second}' backend" in result.stderr
    assert f"already claimed by device '{device.type}'" in result.stderr


def test_torch_fl_vendor_chooses_the_backend(device):
    built = _backend.built_libraries()
    assert torch_fl.vendor() in built, built  # the loaded vendor at least: the loop tests something
    for vendor in built:
        result = run_python("import torch_fl; print(torch_fl.vendor(), torch_fl.device().type)",
                            TORCH_FL_VENDOR=vendor)
        assert result.returncode == 0, result.stderr
        assert result.stdout.split()[0] == vendor


def test_an_unbuilt_vendor_is_a_clear_import_error():
    result = run_python("import torch_fl", TORCH_FL_VENDOR="nosuchchip")
    assert result.returncode != 0
    assert "no built backend for vendor 'nosuchchip'" in result.stderr


# The choice of library itself, in this process (the tests above load it in fresh
# processes, where `make mutation` cannot see the package code they run).

def test_the_library_choice_follows_the_environment(monkeypatch, tmp_path):
    built = _backend.built_libraries()
    assert built and all(os.path.basename(path) == f"libtorch_fl_{vendor}.so" for vendor, path in built.items())
    monkeypatch.setattr(_backend, "installed_vendors", lambda: {})
    monkeypatch.delenv("TORCH_FL_LIBRARY", raising=False)
    vendor = sorted(built)[0]
    monkeypatch.setenv("TORCH_FL_VENDOR", vendor)
    assert _backend._choose_library() == (vendor, built[vendor])
    monkeypatch.setenv("TORCH_FL_VENDOR", "nosuchchip")
    with pytest.raises(ImportError, match=r"no built backend for vendor 'nosuchchip'.*make backend VENDOR=nosuchchip"):
        _backend._choose_library()
    explicit = str(tmp_path / "libtorch_fl_abc.so")
    monkeypatch.setenv("TORCH_FL_LIBRARY", explicit)
    with pytest.raises(ImportError, match=r"is the 'abc' backend, but TORCH_FL_VENDOR=nosuchchip"):
        _backend._choose_library()
    monkeypatch.delenv("TORCH_FL_VENDOR")
    assert _backend._choose_library() == ("abc", explicit)
    monkeypatch.delenv("TORCH_FL_LIBRARY")
    monkeypatch.setattr(_backend, "built_libraries", lambda: {"abc": "/x/libtorch_fl_abc.so",
                                                              "xyz": "/y/libtorch_fl_xyz.so"})
    with pytest.raises(ImportError, match=r"several backends are built \(abc, xyz\); set TORCH_FL_VENDOR"):
        _backend._choose_library()
    monkeypatch.setattr(_backend, "built_libraries", lambda: {"xyz": "/y/libtorch_fl_xyz.so"})
    assert _backend._choose_library() == ("xyz", "/y/libtorch_fl_xyz.so")


def test_an_installed_wheel_is_chosen_by_the_vendor_asked_for(monkeypatch):
    installed = {"abc": "/site/torch_fl/vendors/abc", "xyz": "/site/torch_fl/vendors/xyz"}
    with pytest.raises(ImportError, match=r"TORCH_FL_VENDOR=nosuchchip, but the installed Torch-FL wheels are "
                                          r"for abc, xyz"):
        _backend._choose_installed(installed, "nosuchchip")
    with pytest.raises(ImportError, match=r"wheels for several vendors are installed \(abc, xyz\); set TORCH_FL_VENDOR to choose one "
                                          r"\(one vendor per process\)$"):
        _backend._choose_installed(installed, None)


def _wheel(directory, vendor: str, torch_version: str) -> str:
    """An installed vendor wheel's torch_fl/vendors/<vendor>/, as the autoload hook reads it."""
    vendor_dir = directory / vendor
    vendor_dir.mkdir()
    (vendor_dir / f"libtorch_fl_{vendor}.so").write_bytes(b"\x7fELF" + b"\0" * 60)
    (vendor_dir / "build_info.json").write_text(json.dumps(
        {"vendor": vendor, "torch_version": torch_version, "library": f"libtorch_fl_{vendor}.so"}))
    return str(vendor_dir)


def test_an_installed_wheel_is_loaded_from_its_own_directory_when_it_fits_this_torch(monkeypatch, tmp_path):
    import torch_fl_wheels
    monkeypatch.delenv("TORCH_FL_LIBRARY", raising=False)
    monkeypatch.delenv("TORCH_FL_VENDOR", raising=False)
    fitting = _wheel(tmp_path, "abc", torch.__version__)
    monkeypatch.setattr(_backend, "installed_vendors", lambda: {"abc": fitting})
    monkeypatch.setattr(torch_fl_wheels, "problem_with", lambda vendor_dir, info, version: None)
    assert _backend._choose_library() == ("abc", os.path.join(fitting, "libtorch_fl_abc.so"))
    monkeypatch.setattr(torch_fl_wheels, "problem_with", lambda vendor_dir, info, version: "built for torch 1.0")
    with pytest.raises(ImportError, match=r"^torch_fl: built for torch 1.0$"):
        _backend._choose_library()


def test_nothing_built_says_how_to_build(monkeypatch):
    monkeypatch.delenv("TORCH_FL_LIBRARY", raising=False)
    monkeypatch.setattr(_backend, "installed_vendors", lambda: {})
    monkeypatch.setattr(_backend, "built_libraries", lambda: {})
    monkeypatch.setenv("TORCH_FL_VENDOR", "abc")
    with pytest.raises(ImportError, match=r"\(built: none\); run `make backend VENDOR=abc( TORCH=[0-9.]+)?`$"):
        _backend._choose_library()
    monkeypatch.delenv("TORCH_FL_VENDOR")
    with pytest.raises(ImportError, match=r"no backend is built under .*; run `make backend VENDOR=mlu( TORCH=[0-9.]+)?`$"):
        _backend._choose_library()


def test_another_torchs_builds_and_data_are_looked_for_under_build_torch_version(monkeypatch, tmp_path):
    """The source tree's rule (codegen/torch_versions.py): the default torch's builds are under
    build/ and its output is the committed generated/; another torch's are under build/torch-<v>/."""
    (tmp_path / ".ci").mkdir()
    (tmp_path / ".ci" / "torch_versions").write_text("2.98.0 | - | the default\n2.99.1 | - | another\n")
    (tmp_path / "codegen").mkdir()
    shutil.copy(os.path.join(_backend.repo_root(), "codegen", "torch_versions.py"), tmp_path / "codegen")
    monkeypatch.setattr(_backend, "_REPO_ROOT", str(tmp_path))
    monkeypatch.setattr(_backend, "installed_vendors", lambda: {})
    monkeypatch.setattr(torch, "__version__", "2.98.0+cpu")
    assert _backend.source_build_root() == str(tmp_path / "build")
    assert _backend.data_file("abc", "support_matrix.json") == str(tmp_path / "generated" / "abc" /
                                                                    "support_matrix.json")
    monkeypatch.setattr(torch, "__version__", "2.99.1+cpu")
    for build in ("abc", "abc-asan"):  # a sanitizer build (build/<vendor>-asan) is not loadable
        (tmp_path / "build" / "torch-2.99.1" / build / "vendors" / "abc").mkdir(parents=True)
        (tmp_path / "build" / "torch-2.99.1" / build / "vendors" / "abc" / "libtorch_fl_abc.so").write_bytes(b"")
    root = str(tmp_path / "build" / "torch-2.99.1")
    assert _backend.source_build_root() == root
    assert _backend.built_libraries() == {"abc": os.path.join(root, "abc", "vendors", "abc", "libtorch_fl_abc.so")}
    assert _backend.data_file("abc", "support_matrix.json") == os.path.join(root, "generated", "abc",
                                                                             "support_matrix.json")
    monkeypatch.setenv("TORCH_FL_VENDOR", "xyz")
    monkeypatch.delenv("TORCH_FL_LIBRARY", raising=False)
    with pytest.raises(ImportError, match=f"under {root} \\(built: abc\\); run `make backend VENDOR=xyz TORCH=2.99.1`$"):
        _backend._choose_library()


def test_loading_beside_another_privateuse1_plugin_is_refused_in_this_process(monkeypatch):
    loaded = _backend.load()
    monkeypatch.setattr(_backend, "_loaded", None)
    monkeypatch.setenv("TORCH_FL_LIBRARY", loaded.library_path)
    monkeypatch.setattr(torch._C, "_get_privateuse1_backend_name", lambda: "otherchip")
    monkeypatch.setattr(_backend, "_autoloaded_device", lambda vendor: None)
    with pytest.raises(ImportError, match=rf"^torch_fl: cannot load the '{loaded.vendor}' backend \(.*\): PrivateUse1 "
                                          r"is already claimed by device 'otherchip' in this process\. One vendor per "
                                          r"process: set TORCH_FL_VENDOR to choose which backend to load, and load "
                                          r"no other PrivateUse1 plugin beside it$"):
        _backend.load()
    # The autoload hook named PrivateUse1 after this vendor's device: that is no other plugin.
    monkeypatch.setattr(_backend, "_autoloaded_device",
                        lambda vendor: "otherchip" if vendor == loaded.vendor else None)
    again = _backend.load()
    assert (again.vendor, again.device, again.library_path) == (loaded.vendor, loaded.device, loaded.library_path)
