"""Sample inputs, on CPU, for every spec entry of the simulated chips' specs.

Each sampler yields (args, kwargs) for the entry's own overload. Shapes cover
contiguous, non-contiguous, broadcast, 0-dim and empty tensors where the op
allows them. A test fails if a native overload has no sampler here, so a spec
entry cannot be added without a correctness test.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator

import torch


@dataclass(frozen=True)
class CpuScalar:
    """A 0-dim CPU tensor that stays on CPU in the device call (a Python number's wrapper)."""
    tensor: torch.Tensor


Sample = tuple[tuple, dict]


def _g(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def randn(*shape: int, dtype=torch.float32, seed: int = 0) -> torch.Tensor:
    return torch.randn(shape, generator=_g(seed)).to(dtype)


def positive(*shape: int, seed: int = 0) -> torch.Tensor:
    return torch.rand(shape, generator=_g(seed)) + 0.1


def ints(*shape: int, dtype=torch.int64, seed: int = 0) -> torch.Tensor:
    return torch.randint(-5, 6, shape, generator=_g(seed)).to(dtype)


def tensor_pairs(make) -> Iterator[tuple[torch.Tensor, object]]:
    yield make(4, 5, seed=1), make(4, 5, seed=2)
    yield make(5, 4, seed=1).t(), make(4, 5, seed=2)  # non-contiguous self
    yield make(4, 5, seed=1), make(5, seed=2)  # broadcast
    yield make(seed=1), make(seed=2)  # 0-dim
    yield make(0, 5, seed=1), make(0, 5, seed=2)  # empty
    yield make(4, 5, seed=1), CpuScalar(make(seed=3))  # a CPU scalar operand


def binary(alpha: bool, int_too: bool = True) -> Callable[[], Iterator[Sample]]:
    def samples():
        makers = [randn] + ([ints] if int_too else [])
        for make in makers:
            for a, b in tensor_pairs(make):
                yield (a, b), ({"alpha": 2} if alpha else {})
    return samples


def binary_scalar(alpha: bool) -> Callable[[], Iterator[Sample]]:
    def samples():
        for make in (randn, ints):
            for a in (make(4, 5), make(5, 4).t(), make(), make(0, 3)):
                yield (a, 3), ({"alpha": 2} if alpha else {})
        yield (randn(3, 3), 0.5), {}
    return samples


def unary(make=randn) -> Callable[[], Iterator[Sample]]:
    def samples():
        for x in (make(4, 5), make(5, 4).t(), make(), make(0, 7), make(2, 3, 4)):
            yield (x,), {}
    return samples


def backward_pointwise() -> Iterator[Sample]:
    for shape in ((4, 5), (), (0, 2)):
        yield (randn(*shape, seed=1), torch.tanh(randn(*shape, seed=2))), {}
    yield (randn(5, 4, seed=1).t(), torch.tanh(randn(4, 5, seed=2))), {}


def threshold_backward() -> Iterator[Sample]:
    yield (randn(4, 5, seed=1), randn(4, 5, seed=2), 0.0), {}
    yield (randn(5, 4, seed=1).t(), randn(4, 5, seed=2), 0.5), {}
    yield (randn(0, 2, seed=1), randn(0, 2, seed=2), 0.0), {}


def mm() -> Iterator[Sample]:
    yield (randn(3, 4, seed=1), randn(4, 5, seed=2)), {}
    yield (randn(4, 3, seed=1).t(), randn(5, 4, seed=2).t()), {}
    yield (randn(0, 4, seed=1), randn(4, 5, seed=2)), {}


def addmm() -> Iterator[Sample]:
    yield (randn(3, 5), randn(3, 4, seed=1), randn(4, 5, seed=2)), {}
    yield (randn(5), randn(3, 4, seed=1), randn(4, 5, seed=2)), {"beta": 0.5, "alpha": 2.0}
    yield (randn(3, 5), randn(4, 3, seed=1).t(), randn(4, 5, seed=2)), {}


def reduction(int_too: bool) -> Callable[[], Iterator[Sample]]:
    def samples():
        makers = [randn] + ([ints] if int_too else [])
        for make in makers:
            x = make(3, 4, 5)
            yield (x, [1]), {}
            yield (x, [0, 2]), {"keepdim": True}
            yield (x, None), {}
            yield (make(5, 4).t(), [0]), {}
            yield (make(0, 4), [1]), {}
    return samples


def log_softmax() -> Iterator[Sample]:
    yield (randn(4, 10), 1, False), {}
    yield (randn(10, 4).t(), 1, False), {}
    yield (randn(2, 3, 4), 0, False), {}


def log_softmax_backward() -> Iterator[Sample]:
    out = torch.log_softmax(randn(4, 10, seed=1), 1)
    yield (randn(4, 10, seed=2), out, 1, torch.float32), {}


def nll_loss() -> Iterator[Sample]:
    logp = torch.log_softmax(randn(6, 5), 1)
    target = torch.tensor([0, 4, 2, 2, 1, 3])
    for reduction in (0, 1, 2):
        yield (logp, target, None, reduction, -100), {}
    yield (logp, target, positive(5), 1, -100), {}
    yield (logp, torch.tensor([0, 4, 2, -100, 1, 3]), None, 1, -100), {}


def nll_loss_backward() -> Iterator[Sample]:
    logp = torch.log_softmax(randn(6, 5), 1)
    target = torch.tensor([0, 4, 2, 2, 1, 3])
    for reduction, weight in ((1, None), (2, None), (1, positive(5))):
        _, total_weight = torch.ops.aten.nll_loss_forward(logp, target, weight, reduction, -100)
        grad = randn(6) if reduction == 0 else randn(seed=5)
        yield (grad, logp, target, weight, reduction, -100, total_weight), {}


def fill() -> Iterator[Sample]:
    yield (randn(4, 5), 1.5), {}
    yield (randn(5, 4).t(), -2), {}
    yield (ints(3, 3), 7), {}


def zero() -> Iterator[Sample]:
    yield (randn(4, 5),), {}
    yield (randn(5, 4).t(),), {}


def fractional_max_pool2d() -> Iterator[Sample]:
    # Explicit pooling regions (random_samples) make the op deterministic.
    x = randn(2, 3, 9, 9)
    samples = torch.rand(2, 3, 2, generator=_g(3))
    yield (x, [2, 2], [4, 4], samples), {}
    yield (x[0], [3, 3], [5, 5], samples[:1]), {}


def fractional_max_pool2d_backward() -> Iterator[Sample]:
    x = randn(2, 3, 9, 9)
    samples = torch.rand(2, 3, 2, generator=_g(3))
    _, indices = torch.ops.aten.fractional_max_pool2d(x, [2, 2], [4, 4], samples)
    yield (randn(2, 3, 4, 4, seed=4), x, [2, 2], [4, 4], indices), {}


def nll_loss2d() -> Iterator[Sample]:
    logp = torch.log_softmax(randn(2, 5, 3, 4), 1)
    target = ints(2, 3, 4) % 5
    for reduction in (0, 1, 2):
        yield (logp, target, None, reduction, -100), {}
    yield (logp, target, positive(5), 1, 2), {}


def nll_loss2d_backward() -> Iterator[Sample]:
    logp = torch.log_softmax(randn(2, 5, 3, 4), 1)
    target = ints(2, 3, 4) % 5
    for reduction, weight in ((0, None), (1, None), (2, positive(5))):
        _, total_weight = torch.ops.aten.nll_loss2d_forward(logp, target, weight, reduction, -100)
        grad = randn(2, 3, 4) if reduction == 0 else randn(seed=5)
        yield (grad, logp, target, weight, reduction, -100, total_weight), {}


def padding(rank: int) -> Callable[[], Iterator[Sample]]:
    def samples():
        pad = [1, 2, 2, 1, 1, 0][: 2 * rank]
        shape = (2, 3, 4, 5, 6)[: rank + 2]
        yield (randn(*shape), pad), {}
        yield (randn(*shape[1:]), pad), {}  # unbatched
    return samples


def padding_backward(forward: str, rank: int) -> Callable[[], Iterator[Sample]]:
    def samples():
        for (x, pad), _ in padding(rank)():
            out = getattr(torch.ops.aten, forward)(x, pad)
            yield (randn(*out.shape, seed=3), x, pad), {}
    return samples


SAMPLERS: dict[str, Callable[[], Iterator[Sample]]] = {
    "add.Tensor": binary(alpha=True),
    "sub.Tensor": binary(alpha=True),
    "mul.Tensor": binary(alpha=False),
    "div.Tensor": binary(alpha=False, int_too=False),
    "add.Scalar": binary_scalar(alpha=True),
    "sub.Scalar": binary_scalar(alpha=True),
    "mul.Scalar": binary_scalar(alpha=False),
    "div.Scalar": binary_scalar(alpha=False),
    "eq.Tensor": binary(alpha=False),
    "ne.Tensor": binary(alpha=False),
    "lt.Tensor": binary(alpha=False),
    "gt.Tensor": binary(alpha=False),
    "eq.Scalar": binary_scalar(alpha=False),
    "ne.Scalar": binary_scalar(alpha=False),
    "lt.Scalar": binary_scalar(alpha=False),
    "gt.Scalar": binary_scalar(alpha=False),
    "neg": unary(),
    "exp": unary(),
    "log": unary(positive),
    "sqrt": unary(positive),
    "sigmoid": unary(),
    "tanh": unary(),
    "relu": unary(),
    "tanh_backward": backward_pointwise,
    "sigmoid_backward": backward_pointwise,
    "threshold_backward": threshold_backward,
    "fill_.Scalar": fill,
    "zero_": zero,
    "mm": mm,
    "addmm": addmm,
    "sum.dim_IntList": reduction(int_too=True),
    "mean.dim": reduction(int_too=False),
    "_log_softmax": log_softmax,
    "_log_softmax_backward_data": log_softmax_backward,
    "nll_loss_forward": nll_loss,
    "nll_loss_backward": nll_loss_backward,
    "nll_loss2d_forward": nll_loss2d,
    "nll_loss2d_backward": nll_loss2d_backward,
    "fractional_max_pool2d": fractional_max_pool2d,
    "fractional_max_pool2d_backward": fractional_max_pool2d_backward,
    **{f"{mode}_pad{rank}d": padding(rank) for mode in ("reflection", "replication") for rank in (1, 2, 3)},
    **{f"{mode}_pad{rank}d_backward": padding_backward(f"{mode}_pad{rank}d", rank)
       for mode in ("reflection", "replication") for rank in (1, 2, 3)},
}

# Random ops are checked for reproducibility and distribution, not CPU parity.
RANDOM_OPS = {"normal_", "uniform_"}
# Not comparable with CPU at all: dropout draws its own mask (tests/python/test_training.py checks it).
NOT_COMPARABLE = RANDOM_OPS | {"native_dropout"}
