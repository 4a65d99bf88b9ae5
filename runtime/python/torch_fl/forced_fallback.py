"""Degradation without a rebuild: route named ops to the CPU fallback (reason
"forced") while a native kernel is suspect. TORCH_FL_FORCE_FALLBACK at start-up,
or torch_fl.force_fallback() at run time; names are ATen overloads
("aten::add.Tensor", "add.Tensor", "add" for all its overloads) or globs
("aten::conv*")."""
from __future__ import annotations

import difflib
import fnmatch
import os
from typing import Iterable

import torch

from . import _backend

ENV_VAR = "TORCH_FL_FORCE_FALLBACK"


def _aten_overloads() -> list[str]:
    """Every ATen overload the dispatcher knows, as "aten::name" or "aten::name.overload".
    Not torch._C._jit_get_all_schemas(): that also lists TorchScript's builtins
    (aten::acos.Scalar, ...), which the dispatcher cannot route, so "acos" failed."""
    return sorted(name for name in torch._C._dispatch_get_all_op_names() if name.startswith("aten::"))


def _resolve(patterns: Iterable[str]) -> list[str]:
    known = _aten_overloads()
    chosen: set[str] = set()
    for raw in patterns:
        pattern = raw.strip()
        if not pattern:
            continue
        qualified = pattern if "::" in pattern else f"aten::{pattern}"
        # A bare name means every overload of it, as in torch.ops.aten.<name>.
        matches = fnmatch.filter(known, qualified)
        if "." not in qualified.split("::", 1)[1]:
            matches += fnmatch.filter(known, qualified + ".*")
        if not matches:
            close = difflib.get_close_matches(qualified, known, n=5, cutoff=0.6)
            hint = f"; close names: {', '.join(close)}" if close else ""
            raise ValueError(f"torch_fl.force_fallback: '{raw}' names no ATen operator of torch "
                             f"{torch.__version__}{hint}")
        chosen.update(matches)
    return sorted(chosen)


def force_fallback(ops: Iterable[str]) -> list[str]:
    """Sends these ops (names or globs) to the CPU fallback from now on, replacing
    any earlier list; force_fallback([]) restores the native kernels. Returns the
    overloads now forced."""
    if isinstance(ops, str):
        ops = [ops]
    resolved = _resolve(ops)
    _backend.load().call("tfl_set_forced_fallbacks", "\n".join(resolved).encode())
    return resolved


def forced_fallbacks() -> list[str]:
    return [name for name in _backend.load().lib.tfl_forced_fallbacks().decode().split("\n") if name]


def apply_environment() -> None:
    """TORCH_FL_FORCE_FALLBACK=op[,op...] at start-up (torch_fl.init)."""
    text = os.environ.get(ENV_VAR, "")
    if text.strip():
        try:
            force_fallback(text.split(","))
        except ValueError as error:
            raise ValueError(f"{ENV_VAR}={text!r}: {error}") from None
