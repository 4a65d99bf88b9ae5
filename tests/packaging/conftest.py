"""The packaging suite's marker (the suite imports no backend in its own process)."""
from __future__ import annotations

from tests.python.chip_independent import CHIP_INDEPENDENT


def pytest_configure(config):
    config.addinivalue_line("markers", CHIP_INDEPENDENT)
