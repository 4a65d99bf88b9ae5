"""The chip_independent marker: a test of code that is the same for every vendor (the
frameworks' device pickup, the CLI, process exit, the simulators' shared settings, the
wheel's failure modes). A vendor differs there only in its name and device type.

`make test` runs each such file once per torch, not once per vendor: the files are shared
out among the simulated chips (they have devices on any machine), each chip's suites
running its share (`--chip-independent=K/N`, the Makefile's CHIP_INDEPENDENT). Most of
them start processes (torch imported afresh each time), so running them for every vendor
cost CI more than any other suite did. `--chip-independent=run` (the default) runs them
all, `skip` none.

A share is a set of whole files, dealt out by their cost below so that the shares take
about the same time: a file marked chip_independent that the table lacks is an error at
collection, so that none is left out of every share."""
from __future__ import annotations

import functools
import os
from dataclasses import dataclass

import pytest

CHIP_INDEPENDENT = "chip_independent: the code under test is the same for every vendor (tests/python/chip_independent.py)"

# CPU seconds of each file's chip-independent tests for one vendor (npu, torch 2.13.0, one
# OpenMP thread: a pytest plugin summing getrusage of the process and its children per test).
# Only their ratios matter: they balance the shares.
COST_SECONDS = {
    "tests/packaging/test_wheel.py": 60,
    "tests/python/test_deepspeed.py": 42,
    "tests/python/test_cli.py": 26,
    "tests/python/test_simulator_config.py": 23,
    "tests/python/test_hf_trainer.py": 21,
    "tests/python/test_process_exit.py": 20,
    "tests/python/test_lightning.py": 18,
    "tests/python/test_one_vendor_per_process.py": 12,
    "tests/python/test_cuda_compat.py": 5,
    "tests/python/test_prometheus.py": 4,
    "tests/python/test_device_module_audit.py": 3,
}

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@dataclass(frozen=True)
class Selection:
    """Which chip-independent files a run keeps: all, none, or share `index` (1-based) of `count`."""
    index: int
    count: int

    @staticmethod
    def parse(text: str) -> "Selection":
        if text == "run":
            return Selection(1, 1)
        if text == "skip":
            return Selection(0, 1)
        index, _, count = text.partition("/")
        if not (index.isdigit() and count.isdigit() and 1 <= int(index) <= int(count)):
            raise pytest.UsageError(f"--chip-independent={text!r}: expected run, skip or K/N with 1 <= K <= N "
                                    "(share K of N)")
        return Selection(int(index), int(count))

    def keeps(self, path: str) -> bool:
        return self.index != 0 and share_of(path, self.count) == self.index


@functools.cache
def _deal(count: int) -> dict[str, int]:
    """Each file's share (1..count): the costliest file first, each to the share with the
    least cost so far (ties to the lower share)."""
    totals = [0] * count
    assigned = {}
    for name, cost in sorted(COST_SECONDS.items(), key=lambda item: (-item[1], item[0])):
        least = totals.index(min(totals))
        totals[least] += cost
        assigned[name] = least + 1
    return assigned


def share_of(path: str, count: int) -> int:
    """The share (1..count) that runs a file."""
    return _deal(count)[path]


def add_option(parser) -> None:
    """Both suites' conftest.py call this; a session holding both (`pytest tests`) adds it once."""
    try:
        parser.addoption("--chip-independent", default="run", metavar="run|skip|K/N",
                         help="the tests marked chip_independent: all (run), none (skip), or share K of N "
                              "(tests/python/chip_independent.py)")
    except ValueError:  # "option names {'--chip-independent'} already added"
        pass


def deselect(config, items) -> None:
    """Drops the chip-independent tests outside this run's share (reported as deselected)."""
    selection = Selection.parse(config.getoption("--chip-independent"))
    kept, dropped = [], []
    for item in items:
        if item.get_closest_marker("chip_independent") is None:
            kept.append(item)
            continue
        path = os.path.relpath(str(item.path), REPO_ROOT)
        if path not in COST_SECONDS:
            raise pytest.UsageError(f"{path} has tests marked chip_independent but no cost in COST_SECONDS "
                                    "(tests/python/chip_independent.py): add its CPU seconds there so that "
                                    "a share runs it")
        (kept if selection.keeps(path) else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
