"""Issue #40 item 2: the device module as PyTorch reads it.

torch's own Python reads attributes of `torch.<device>` generically (for
PrivateUse1 as for CUDA): checkpoint's RNG stashing, torch.manual_seed, autocast,
FSDP, serialization... A missing attribute there is not an error: it is mostly
read with getattr/hasattr and a default, so the feature silently degrades.
This test finds those reads in the *installed* torch (so a new release's new
reads fail here) and checks that torch.<device> has each one.
"""
from __future__ import annotations

import ast
import os
from functools import lru_cache

import pytest
import torch

import torch_fl

# What this file tests is the same code for every vendor: chip_independent (conftest.py).
pytestmark = pytest.mark.chip_independent

# The calls that hand back a device module.
_SOURCE_CALLS = {"_get_device_module", "get_device_module"}
# Names under which torch's generic code keeps a device module it got elsewhere
# (a parameter, another class): FSDP's device handle forwards every read to it.
_CONVENTIONAL = {"device_module", "device_mod", "custom_device_mod", "_device_module",
                 "backend_module", "device_handle", "_device_handle"}
# Test helpers, not code users run: today they add only `_sleep` (a CUDA test kernel).
_SKIP_DIRS = ("testing/_internal",)

# Attributes torch reads that torch.<device> does not need: {attr: why}.
EXCEPTIONS: dict[str, str] = {
    **dict.fromkeys(("Scheduling", "PythonWrapperCodegen", "CppWrapperCodegen", "WrapperFxCodegen"),
                    "torch.compile (inductor) codegen classes; torch_fl has no inductor backend"),
    **dict.fromkeys(("set_rng_ctx", "unset_rng_ctx"), "read in an `if device.type == 'hpu'` branch only"),
    **dict.fromkeys(("_get_generator", "default_generators"),
                    "graph-safe RNG: read for types given to register_graphsafe_rng_device_type only"),
    "sparse": "hasattr-guarded: legacy typed sparse tensor classes (torch.cuda.sparse.FloatTensor)",
    "_utils": "hasattr-guarded: torch.load parses '<device>:N' itself without _utils._get_device_index",
    **dict.fromkeys(("MemPool", "use_mem_pool"),
                    "symmetric memory's allocation pools (torch >= 2.15): its ops run on CUDA devices only"),
    "_lazy_call": "hasattr-guarded (torch >= 2.14): without it the callable runs at once, as it should "
                  "here: the backend is initialised when loaded",
}


def _name(node: ast.AST) -> str | None:  # the last identifier of `f`, `a.b.f`
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None


def _call_of(node: ast.AST, *names: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names


class _Scanner:
    """The reads of device module attributes in one file. A variable assigned a
    device module counts as one throughout the file, not only in its function,
    so that `self.device_module = ...` in __init__ counts in the other methods."""

    def __init__(self, tree: ast.Module):
        self.tree, self.keys, self.accessors = tree, set(), set()
        # NAME = "literal", for getattr(mod, NAME): torch.random names its reads so.
        self.strings = {t.id: n.value.value for n in ast.walk(tree) if isinstance(n, ast.Assign)
                        and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)
                        for t in n.targets if isinstance(t, ast.Name)}
        for node in [*ast.walk(tree)] * 2:  # twice: `m = self.device_module` may come first
            if isinstance(node, ast.Assign) and self.is_module(node.value):
                self.keys.update(ast.unparse(t) for t in node.targets)

    def is_module(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Call) and _name(node.func) in _SOURCE_CALLS:
            return True
        if _call_of(node, "getattr") and len(node.args) >= 2 and ast.unparse(node.args[0]) == "torch":
            # getattr(torch, device_type[, None]), not getattr(torch, dtype_name) nor a literal.
            return not isinstance(node.args[1], ast.Constant) and any(
                word in ast.unparse(node.args[1]) for word in ("device", "backend"))
        return isinstance(node, (ast.Name, ast.Attribute)) and (
            _name(node) in _CONVENTIONAL or ast.unparse(node) in self.keys)

    def reads(self) -> list[tuple[int, str]]:
        """(line, attribute) of each read, in line order; and self.accessors: the functions that
        read getattr(mod, <their parameter>), whose callers name the attribute."""
        found = set()
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and self.is_module(node.value):
                found.add((node.lineno, node.attr))
            elif _call_of(node, "getattr", "hasattr") and len(node.args) >= 2 and self.is_module(node.args[0]):
                what = node.args[1]
                name = what.value if isinstance(what, ast.Constant) else self.strings.get(_name(what))
                if isinstance(name, str):
                    found.add((node.lineno, name))
        for func in (n for n in ast.walk(self.tree) if isinstance(n, ast.FunctionDef)):
            params = {a.arg for a in func.args.args}
            # (A __getattr__ that forwards to a device module is a proxy, not a reader.)
            if not func.name.startswith("__") and any(
                    _call_of(n, "getattr") and len(n.args) >= 2 and _name(n.args[1]) in params
                    and isinstance(n.args[1], ast.Name) and self.is_module(n.args[0]) for n in ast.walk(func)):
                self.accessors.add(func.name)
        return sorted(found)


@lru_cache(maxsize=None)
def torch_reads(root: str = os.path.dirname(torch.__file__)) -> dict[str, str]:
    """{attribute: "torch/file.py:line"} of the first read of each, in sorted file order."""
    sources = {}  # sorted, so that "first" is the same on every machine
    for directory, _, files in sorted(os.walk(root)):
        rel_dir = os.path.relpath(directory, os.path.dirname(root)).replace(os.sep, "/")
        for file in sorted(f for f in files if f.endswith(".py") and not any(d in rel_dir for d in _SKIP_DIRS)):
            with open(os.path.join(directory, file), encoding="utf-8") as source:
                sources[f"{rel_dir}/{file}"] = source.read()
    found: dict[str, str] = {}
    accessors: set[str] = set()
    words = (*_SOURCE_CALLS, *_CONVENTIONAL, "getattr(torch,")
    for path, text in sources.items():
        if any(word in text for word in words):  # parse only these: seconds, not a minute
            scanner = _Scanner(ast.parse(text))
            for line, attr in scanner.reads():
                found.setdefault(attr, f"{path}:{line}")
            accessors |= scanner.accessors
    # Calls of an accessor with a literal, anywhere: _get_custom_mod_func("device_count").
    for path, text in sources.items():
        if any(f"{name}(" in text for name in accessors):
            for node in ast.walk(ast.parse(text)):
                if (isinstance(node, ast.Call) and _name(node.func) in accessors and node.args
                        and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                    found.setdefault(node.args[0].value, f"{path}:{node.lineno}")
    return found


DEV = torch_fl.device(0)
mod = getattr(torch, DEV.type)  # torch.mlu, torch.npu, ...


def test_the_scan_finds_the_reads_known_today():
    # Guards the scanner itself: a scan that finds nothing would pass everything below.
    assert {"_initialized", "get_rng_state", "set_rng_state", "_is_in_bad_fork", "manual_seed_all",
            "get_amp_supported_dtype", "device_count"} <= torch_reads().keys()


def test_the_memory_summary_is_a_table_of_the_stats():
    text = mod.memory_summary()
    assert "allocated_bytes.all.current" in text and DEV.type in text


def test_device_module_has_every_attribute_torch_reads():
    missing = {attr: where for attr, where in torch_reads().items()
               if attr not in EXCEPTIONS and not hasattr(mod, attr)}
    assert not missing, (f"torch {torch.__version__} reads these attributes of the device module, which "
                         f"torch.{DEV.type} lacks (add each, or an EXCEPTIONS entry saying why "
                         f"not):\n" + "\n".join(f"  {a:24} first read at {w}" for a, w in missing.items()))
    # An attribute that has since been added is no longer an exception.
    assert not [attr for attr in EXCEPTIONS if hasattr(mod, attr)], "drop these from EXCEPTIONS"


# Behaviour, with torch.cuda's meaning, of the reads that matter most (_initialized and
# checkpointing with dropout: test_tensor_identity.py).
needs_device = pytest.mark.skipif(torch_fl.device_count() == 0, reason="no device on this machine")


@needs_device
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_bad_fork_is_a_child_forked_after_init():
    # torch.manual_seed seeds the device only where this is false.
    torch.ones(1, device=DEV)
    assert mod._is_in_bad_fork() is False
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: answer, then leave at once, whatever happens (no pytest in here)
        try:
            os.write(write, b"1" if mod._is_in_bad_fork() is True else b"0")
        finally:
            os._exit(0)
    os.close(write)
    answer, _ = os.read(read, 1), os.waitpid(pid, 0)
    os.close(read)
    assert answer == b"1"


@needs_device
def test_rng_state_round_trip_repeats_draws():
    state = mod.get_rng_state()
    first = torch.randn(64, device=DEV).cpu()
    mod.set_rng_state(state)
    assert torch.equal(torch.randn(64, device=DEV).cpu(), first)
    assert not torch.equal(torch.randn(64, device=DEV).cpu(), first)  # and the state moved on
