"""The packaging suite's marker and its share of the chip-independent tests (the suite
imports no backend in its own process)."""
from __future__ import annotations

from tests.python import chip_independent


def pytest_addoption(parser):
    chip_independent.add_option(parser)


def pytest_configure(config):
    config.addinivalue_line("markers", chip_independent.CHIP_INDEPENDENT)


def pytest_collection_modifyitems(config, items):
    chip_independent.deselect(config, items)
