"""torch_fl.post_import: hooks that adapt a framework right after its first import
(DeepSpeed, Accelerate, Lightning, Dynamo). A hook that fails must not fail the
framework's import: it is logged, and the framework goes on without torch_fl."""
from __future__ import annotations

import importlib
import logging
import sys

import pytest

from torch_fl.post_import import _PostImportFinder, after_import


@pytest.fixture
def framework(tmp_path, monkeypatch):
    """A module not yet imported, on a temporary path: its name."""
    name = f"fake_framework_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text("LOADED = True\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    sys.modules.pop(name, None)
    sys.meta_path[:] = [f for f in sys.meta_path if getattr(f, "module_name", None) != name]


def test_a_failing_guarded_hook_is_logged_and_the_import_succeeds(framework, caplog):
    calls = []

    def hook():
        calls.append(sys.modules[framework].LOADED)
        raise RuntimeError("boom")

    after_import(framework, hook, failure=lambda: "Fake is imported, but its device could not be set")
    with caplog.at_level(logging.WARNING, logger="torch_fl"):
        module = importlib.import_module(framework)
    assert module.LOADED and calls == [True]  # the hook ran after the module's code
    warnings = [r.getMessage() for r in caplog.records if r.name == "torch_fl"]
    assert warnings == ["torch_fl: Fake is imported, but its device could not be set (RuntimeError: boom)"]


def test_a_hook_for_an_imported_module_runs_at_once_and_unguarded_it_raises(framework):
    importlib.import_module(framework)
    with pytest.raises(RuntimeError, match="boom"):
        after_import(framework, lambda: (_ for _ in ()).throw(RuntimeError("boom")))
    ran = []
    after_import(framework, lambda: ran.append(1), failure=lambda: "unused")
    assert ran == [1]


def test_installing_a_guarded_hook_twice_leaves_one_finder(framework):
    def hook():
        pass

    for _ in range(2):
        after_import(framework, hook, failure=lambda: "unused")
    finders = [f for f in sys.meta_path if isinstance(f, _PostImportFinder) and f.module_name == framework]
    assert len(finders) == 1
