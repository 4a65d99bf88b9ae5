"""The tiny-op set both dispatch benchmarks measure (runtime_bench in time,
instruction_bench in instructions): 4x4 float32 operands, so the op's own
arithmetic is negligible and what is measured is the path to it. The set is
what model code runs: arithmetic with tensor and Python-number operands,
activations, normalisation, embedding lookups and a loss."""
from __future__ import annotations

from typing import Callable, NamedTuple

import torch
import torch.nn.functional as F


class Operands(NamedTuple):
    a: torch.Tensor       # 4x4 float32
    b: torch.Tensor       # 4x4 float32
    index: torch.Tensor   # 4 int64 indices into a's rows (embedding) or classes (a loss's target)
    total: torch.Tensor   # 4x4 float32 that in-place ops accumulate into (a and b stay as they are)

    def to(self, device) -> "Operands":
        return Operands(*(t.to(device) for t in self))


TinyOp = Callable[[Operands], object]

TINY_OPS: dict[str, TinyOp] = {
    "add": lambda o: o.a + o.b, "add_": lambda o: o.total.add_(o.b),
    "mul": lambda o: o.a * o.b, "div": lambda o: o.a / o.b,
    "neg": lambda o: -o.a, "exp": lambda o: o.a.exp(), "relu": lambda o: o.a.relu(),
    "sigmoid": lambda o: o.a.sigmoid(), "sum": lambda o: o.a.sum(0), "mm": lambda o: o.a @ o.b,
    "addmm": lambda o: torch.addmm(o.a, o.a, o.b),
    # A Python number as the other operand: the most common form in model code.
    "mul_number": lambda o: o.a * 2.0, "add_number": lambda o: o.a + 1,
    "sub_number": lambda o: o.a - 0.5, "mul__number": lambda o: o.b.mul_(1.0),
    "softmax": lambda o: torch.softmax(o.a, 1), "log_softmax": lambda o: torch.log_softmax(o.a, 1),
    "gelu": lambda o: F.gelu(o.a),
    "layer_norm": lambda o: F.layer_norm(o.a, (4,)),
    "embedding": lambda o: F.embedding(o.index, o.a),
    "cross_entropy": lambda o: F.cross_entropy(o.a, o.index),
}


def tiny_operands() -> Operands:
    torch.manual_seed(0)
    return Operands(torch.randn(4, 4), torch.randn(4, 4), torch.tensor([3, 0, 2, 1]), torch.zeros(4, 4))
