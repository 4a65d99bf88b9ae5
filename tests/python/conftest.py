"""Shared fixtures for the Python suite: the backend is loaded once per process
(one vendor per process: `make test` runs this suite once per built vendor)."""
from __future__ import annotations

import os

import pytest
import torch

import torch_fl
import chip_independent


def pytest_addoption(parser):
    chip_independent.add_option(parser)


def pytest_configure(config):
    config.addinivalue_line("markers", "without_device: the test needs the backend library but no device")
    config.addinivalue_line("markers", chip_independent.CHIP_INDEPENDENT)


def pytest_collection_modifyitems(config, items):
    """A vendor whose devices this machine lacks (a GPU vendor built on a CPU
    machine) is built and loaded, and its tests are skipped, saying why (but
    those marked without_device). The chip-independent tests outside this run's share
    are deselected."""
    chip_independent.deselect(config, items)
    if torch_fl.device_count() == 0:
        reason = f"no {torch_fl.vendor()} device on this machine (torch_fl.device_count() == 0)"
        for item in items:
            if item.get_closest_marker("without_device") is None:
                item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="session")
def device() -> torch.device:
    return torch_fl.device(0)


@pytest.fixture(autouse=True)
def fresh_device_state():
    """Each test starts where the last one would have if it had passed: device 0 current,
    the caching allocator emptied and its peaks reset. Without this, memory a failing test
    left behind (held by its traceback) or an asynchronous error it queued fails the next,
    unrelated test; here the error surfaces in the teardown of the test that queued it."""
    yield
    if torch_fl.device_count() == 0:
        return
    module = getattr(torch, torch_fl.device().type)
    for index in range(torch_fl.device_count()):
        module.synchronize(index)
    module.set_device(0)
    module.empty_cache()
    for index in range(torch_fl.device_count()):
        module.reset_peak_memory_stats(index)


@pytest.fixture
def fallback_mode():
    """Sets TORCH_FL_FALLBACK for one test and restores it afterwards."""
    previous = os.environ.get("TORCH_FL_FALLBACK")

    def set_mode(mode: str) -> None:
        os.environ["TORCH_FL_FALLBACK"] = mode

    yield set_mode
    if previous is None:
        os.environ.pop("TORCH_FL_FALLBACK", None)
    else:
        os.environ["TORCH_FL_FALLBACK"] = previous
