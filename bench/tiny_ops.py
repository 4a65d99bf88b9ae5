"""The tiny-op set both dispatch benchmarks measure (runtime_bench in time,
instruction_bench in instructions): 4x4 float32 operands, so the op's own
arithmetic is negligible and what is measured is the path to it."""
from __future__ import annotations

from typing import Callable

import torch
import torch.nn.functional as F

TinyOp = Callable[[torch.Tensor, torch.Tensor], object]

TINY_OPS: dict[str, TinyOp] = {
    "add": lambda a, b: a + b, "mul": lambda a, b: a * b, "div": lambda a, b: a / b,
    "neg": lambda a, b: -a, "exp": lambda a, b: a.exp(), "relu": lambda a, b: a.relu(),
    "sigmoid": lambda a, b: a.sigmoid(), "sum": lambda a, b: a.sum(0), "mm": lambda a, b: a @ b,
    "addmm": lambda a, b: torch.addmm(a, a, b),
    # A Python number as the other operand: the most common form in model code.
    "mul_number": lambda a, b: a * 2.0, "add_number": lambda a, b: a + 1,
    "sub_number": lambda a, b: a - 0.5, "mul__number": lambda a, b: b.mul_(1.0),
    "softmax": lambda a, b: torch.softmax(a, 1), "log_softmax": lambda a, b: torch.log_softmax(a, 1),
    "gelu": lambda a, b: F.gelu(a),
}


def tiny_operands() -> tuple[torch.Tensor, torch.Tensor]:
    torch.manual_seed(0)
    return torch.randn(4, 4), torch.randn(4, 4)
