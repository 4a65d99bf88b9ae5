""".ci/pip_cap.py: which configured pip constraints exclude a release setup installs."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", ".ci", "pip_cap.py")


@pytest.fixture
def pip_config(tmp_path, monkeypatch):
    """A pip configuration of our own, capping torch and torchvision as this machine's does."""
    constraints = tmp_path / "constraints.txt"
    constraints.write_text("# on disk\ntorch<=2.14.1\nTorchVision <= 0.29.1  # comment\nnot a requirement ===\n")
    config = tmp_path / "pip.conf"
    config.write_text(f"[global]\nconstraint = {constraints}\n")
    monkeypatch.setenv("PIP_CONFIG_FILE", str(config))
    monkeypatch.delenv("PIP_CONSTRAINT", raising=False)
    return constraints


def run(*pins: str, env_extra: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, SCRIPT, *pins], capture_output=True, text=True,
                          env=dict(os.environ, **(env_extra or {})))


def test_a_release_above_the_cap_is_reported_with_its_file_and_line(pip_config):
    above = run("torch==2.15.0", "torchvision==0.30.0")
    assert above.returncode == 1
    assert above.stdout.splitlines() == [f"{pip_config}:2: torch<=2.14.1", f"{pip_config}:3: TorchVision <= 0.29.1"]


def test_a_release_within_the_cap_or_another_package_passes(pip_config):
    for pins in (["torch==2.14.1"], ["torch==2.13.0+cpu"], ["numpy==9.0"]):
        result = run(*pins)
        assert (result.returncode, result.stdout) == (0, ""), pins


def test_pip_constraint_in_the_environment_replaces_the_configured_one_as_in_pip(pip_config, tmp_path):
    other = tmp_path / "other.txt"
    other.write_text("torch<2.14\n")
    assert run("torch==2.14.1", env_extra={"PIP_CONSTRAINT": str(other)}).stdout == f"{other}:1: torch<2.14\n"
    assert run("torch==2.15.0", env_extra={"PIP_CONSTRAINT": str(other)}).stdout == f"{other}:1: torch<2.14\n"
    # what setup sets to install above the cap: nothing is excluded then
    assert run("torch==2.15.0", env_extra={"PIP_CONSTRAINT": os.devnull}).returncode == 0


def test_a_malformed_pin_is_a_usage_error():
    result = run("torch>=2.15")
    assert result.returncode == 2 and "usage" in result.stderr
