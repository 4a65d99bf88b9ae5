"""PrivateUse1 can be claimed once per process: loading a second vendor, or
loading while another plugin owns PrivateUse1, fails at import naming both."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

import torch_fl
from torch_fl import _backend


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
    assert "already claimed by 'otherchip'" in result.stderr


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
    assert f"already claimed by '{first}'" in result.stderr


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
    with pytest.raises(ImportError, match=r"wheels for several vendors are installed \(abc, xyz\)"):
        _backend._choose_installed(installed, None)
