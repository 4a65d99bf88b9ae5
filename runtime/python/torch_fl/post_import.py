"""Hooks that run right after a module's first import (a meta path finder): how
torch_fl extends Dynamo, Inductor and Lightning without importing them itself, which
would cost `import torch_fl` seconds, or fail where they are not installed."""
from __future__ import annotations

import importlib.abc
import importlib.util
import logging
import sys
from typing import Callable, Optional

logger = logging.getLogger("torch_fl")


class _PostImportFinder(importlib.abc.MetaPathFinder):
    """Runs a hook right after one module's code has run (its first import)."""

    def __init__(self, module_name: str, hook: Callable[[], None]):
        self.module_name = module_name
        self.hook = hook

    def find_spec(self, fullname, path, target=None):
        if fullname != self.module_name:
            return None
        sys.meta_path.remove(self)  # once; and the lookup below must not find us again
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return spec
        exec_module, hook = spec.loader.exec_module, self.hook

        def exec_then_hook(module):
            exec_module(module)
            hook()

        spec.loader.exec_module = exec_then_hook
        return spec


def after_import(module_name: str, hook: Callable[[], None], *,
                 failure: Optional[Callable[[], str]] = None) -> None:
    """Runs hook now if module_name is imported, else right after its first import (once).

    failure: the hook adapts a framework from inside the framework's own import, which
    it must not fail: an exception is logged as the warning "torch_fl: <failure()>
    (<type>: <error>)" instead, and the framework goes on as if torch_fl were absent."""
    if failure is not None:
        hook = _guarded(hook, failure)
    if module_name in sys.modules:
        hook()
    elif not any(isinstance(f, _PostImportFinder) and (f.module_name, f.hook) == (module_name, hook)
                 for f in sys.meta_path):
        sys.meta_path.insert(0, _PostImportFinder(module_name, hook))


class _guarded:
    """A hook whose exception is logged, not raised; equal to another guard of the same
    hook, so that installing twice still leaves one finder."""

    def __init__(self, hook: Callable[[], None], failure: Callable[[], str]):
        self.hook, self.failure = hook, failure

    def __eq__(self, other) -> bool:
        return isinstance(other, _guarded) and other.hook == self.hook

    def __hash__(self) -> int:
        return hash(self.hook)

    def __call__(self) -> None:
        try:
            self.hook()
        except Exception as error:  # noqa: BLE001 - runs inside the framework's import
            logger.warning("torch_fl: %s (%s: %s)", self.failure(), type(error).__name__, error)
