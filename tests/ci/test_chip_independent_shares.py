"""tests/python/chip_independent.py: how `make test` shares the chip-independent tests
out among the simulated chips. A file left out of every share would never run in CI."""
from __future__ import annotations

import glob
import os
import re

import pytest

from tests.python import chip_independent
from tests.python.chip_independent import COST_SECONDS, Selection, share_of

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MARK = re.compile(r"^(pytestmark = |@)pytest\.mark\.chip_independent\b", re.MULTILINE)


def marked_files() -> set[str]:
    found = set()
    for path in glob.glob(os.path.join(REPO_ROOT, "tests", "*", "test_*.py")):
        with open(path) as f:
            if MARK.search(f.read()):
                found.add(os.path.relpath(path, REPO_ROOT))
    return found


def test_every_marked_file_has_a_cost_and_every_cost_a_marked_file():
    assert marked_files() == set(COST_SECONDS)


@pytest.mark.parametrize("count", [1, 2, 3, 4])
def test_each_file_runs_in_exactly_one_share(count):
    for path in COST_SECONDS:
        keeping = [index for index in range(1, count + 1) if Selection(index, count).keeps(path)]
        assert keeping == [share_of(path, count)]
    assert not any(Selection.parse("skip").keeps(path) for path in COST_SECONDS)
    assert all(Selection.parse("run").keeps(path) for path in COST_SECONDS)


@pytest.mark.parametrize("count", [2, 3])
def test_the_shares_cost_about_the_same(count):
    totals = [sum(cost for path, cost in COST_SECONDS.items() if share_of(path, count) == index)
              for index in range(1, count + 1)]
    # The greedy deal leaves shares at most one file's cost apart.
    assert max(totals) - min(totals) <= max(COST_SECONDS.values())
    assert sum(totals) == sum(COST_SECONDS.values())


@pytest.mark.parametrize("count", [1, 2, 3, 4])
def test_the_packaging_suites_files_are_in_the_first_share(count):
    """With a torch other than the default the Makefile runs the packaging suite for the first
    simulated chip only (runs_packaging): a packaging file in another share would never run."""
    packaging = [path for path in COST_SECONDS if path.startswith("tests/packaging/")]
    assert packaging
    assert all(share_of(path, count) == 1 for path in packaging)


@pytest.mark.parametrize("text", ["0/2", "3/2", "1/", "all", "-1/2", ""])
def test_a_bad_selection_says_what_is_expected(text):
    with pytest.raises(pytest.UsageError, match="expected run, skip or K/N"):
        Selection.parse(text)


class FakeConfig:
    """What deselect() reads of pytest's config: the option and the deselection hook."""
    def __init__(self, selection: str):
        self.selection = selection
        self.deselected: list = []
        self.hook = self

    def getoption(self, name):
        assert name == "--chip-independent"
        return self.selection

    def pytest_deselected(self, items):
        self.deselected += items


class FakeItem:
    def __init__(self, path: str, marked: bool = True):
        self.path = os.path.join(REPO_ROOT, path)
        self.marked = marked

    def get_closest_marker(self, name):
        return object() if name == "chip_independent" and self.marked else None

    def __repr__(self):
        return os.path.relpath(self.path, REPO_ROOT)


def test_a_marked_file_without_a_cost_is_refused_at_collection():
    with pytest.raises(pytest.UsageError, match="test_new_framework.py has tests marked chip_independent "
                                                "but no cost in COST_SECONDS"):
        chip_independent.deselect(FakeConfig("1/2"), [FakeItem("tests/python/test_new_framework.py")])


def test_deselect_keeps_this_share_and_reports_the_rest():
    mine = next(path for path in COST_SECONDS if share_of(path, 2) == 1)
    theirs = next(path for path in COST_SECONDS if share_of(path, 2) == 2)
    config = FakeConfig("1/2")
    items = [FakeItem(mine), FakeItem(theirs), FakeItem("tests/python/test_native_ops.py", marked=False)]
    chip_independent.deselect(config, items)
    assert [repr(item) for item in items] == [mine, "tests/python/test_native_ops.py"]
    assert [repr(item) for item in config.deselected] == [theirs]
