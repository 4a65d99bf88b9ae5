"""What every emitter produces: blocks of C++ with their comment, and the small
pieces of text they share (a kernel's provenance, a dtype set)."""
from __future__ import annotations

from dataclasses import dataclass

from . import cpp_text
from .plan_model import KernelPlan
from .spec_model import DTYPES


@dataclass(frozen=True)
class CppBlock:
    comment: tuple[str, ...]  # escaped: each follows `//` on its own line
    lines: tuple[str, ...]


def comments(*lines: str) -> tuple[str, ...]:
    return tuple(cpp_text.comment(line) for line in lines)


def source(kernel: KernelPlan) -> str:
    return str(kernel.provenance)


def dtype_list(dtypes: tuple[str, ...]) -> str:
    return ", ".join(f"c10::ScalarType::{DTYPES[d]}" for d in dtypes)
