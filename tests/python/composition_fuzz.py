"""A differential fuzzer of compositions (issue #41): a base tensor, a chain of
views of it, then in-place writes, setitem forms and out= calls through the last
view. Each chain is Python source, one statement a line, so what runs is what a
failure prints. It runs three ways: on CPU, on the device, and on the device with
every native kernel forced to the CPU fallback; the values of the base, the view
and a second view of the base, and the view's sizes, strides, storage offset and
aliasing must agree with CPU's.

Chains are drawn from a seeded generator (chain i of seed s is always the same),
each statement checked on CPU as it is drawn, so that most chains are valid; a
statement that raises on CPU must raise on the device too. A failing chain is
shrunk, statement by statement, to one that still fails."""
from __future__ import annotations

import dataclasses
import random
import time
import warnings
from typing import Callable

import torch

DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32,
          torch.int16, torch.int8, torch.uint8, torch.bool, torch.complex64]
# view(dtype) pairs of one item size: a reinterpretation, not a conversion. Floats
# become integers, never the other way: integer bits read as floats are NaNs whose
# payload depends on the order of a sum, which CPU does not fix either.
SAME_ITEMSIZE = {
    torch.float32: [torch.int32], torch.float64: [torch.int64], torch.float16: [torch.int16],
    torch.bfloat16: [torch.int16], torch.uint8: [torch.int8], torch.int8: [torch.uint8],
}


def values(shape, dtype: torch.dtype, seed: int = 0) -> torch.Tensor:
    """Deterministic CPU values of any dtype: small integers (exact in every dtype),
    negative ones too, so clamps, masks and comparisons have both sides."""
    g = torch.Generator().manual_seed(seed)
    ints = torch.randint(-6, 7, tuple(shape), generator=g)
    if dtype == torch.bool:
        return ints > 0
    if dtype == torch.uint8:
        return (ints + 6).to(dtype)
    if dtype.is_complex:
        imag = torch.randint(-6, 7, tuple(shape), generator=g)
        return torch.complex(ints.float(), imag.float()).to(dtype)
    return ints.to(dtype)


@dataclasses.dataclass
class Chain:
    """Statements over `base` (the tensor), `w` (a second view of it) and `v` (the
    chain's view); `dev` names the device they run on."""
    seed: int
    statements: list[str]

    def source(self, device: str) -> str:
        head = ["import torch", "from composition_fuzz import values", f"dev = torch.device({device!r})"]
        return "\n".join(head + self.statements)


@dataclasses.dataclass
class Outcome:
    error: type | None
    tensors: dict[str, torch.Tensor]   # base, w, v (on CPU)
    layout: dict[str, tuple]           # sizes, strides, offset, conj/neg bits of each
    aliases: bool                      # v shares base's storage


def run(chain: Chain, device: torch.device) -> Outcome:
    scope = {"torch": torch, "values": values, "dev": device}
    error = None
    with warnings.catch_warnings():
        # Deprecation warnings (index_put_ on an expanded tensor) are CPU's too.
        warnings.simplefilter("ignore")
        try:
            for statement in chain.statements:
                exec(statement, scope)  # noqa: S102: the chain is this module's own output
        except Exception as exc:  # noqa: BLE001: any exception is an outcome to compare
            error = type(exc)
    tensors, layout = {}, {}
    for name in ("base", "w", "v"):
        t = scope.get(name)
        if isinstance(t, torch.Tensor):
            tensors[name] = t.detach().resolve_conj().resolve_neg().cpu()
            layout[name] = (tuple(t.shape), t.stride(), t.storage_offset(), t.dtype, t.is_conj(), t.is_neg())
    base, v = scope.get("base"), scope.get("v")
    aliases = (isinstance(base, torch.Tensor) and isinstance(v, torch.Tensor)
               and v.untyped_storage().data_ptr() == base.untyped_storage().data_ptr())
    return Outcome(error, tensors, layout, aliases)


def value_mismatch(want: torch.Tensor, got: torch.Tensor) -> str | None:
    """Integers and bools must be equal; floating values within torch.testing's
    tolerance for the dtype (a mean over a strided view and over its dense copy
    add in different orders)."""
    try:
        torch.testing.assert_close(got, want, equal_nan=True, check_dtype=True, check_stride=False)
    except AssertionError as exc:
        return f"values differ: {exc}\n  device {got.flatten()[:12].tolist()}\n  CPU    {want.flatten()[:12].tolist()}"
    return None


def differences(expected: Outcome, actual: Outcome) -> list[str]:
    """What differs between CPU's outcome and the device's, in words."""
    if (expected.error is None) != (actual.error is None):
        return [f"CPU raised {expected.error}, the device raised {actual.error}"]
    found = []
    for name, want in expected.tensors.items():
        got = actual.tensors.get(name)
        if got is None:
            found.append(f"{name} missing on the device")
            continue
        if expected.layout[name] != actual.layout[name]:
            found.append(f"{name}: (sizes, strides, offset, dtype, conj, neg) {actual.layout[name]} "
                         f"!= CPU's {expected.layout[name]}")
        else:
            mismatch = value_mismatch(want, got)
            if mismatch:
                found.append(f"{name}: {mismatch}")
    if expected.aliases != actual.aliases:
        found.append(f"v shares base's storage: device {actual.aliases}, CPU {expected.aliases}")
    return found


class _Drawer:
    """Draws a chain's statements, each one tried on CPU first."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.scope: dict = {"torch": torch, "values": values, "dev": torch.device("cpu")}
        self.statements: list[str] = []
        self.operands = 0

    def try_add(self, statement: str) -> bool:
        trial = dict(self.scope)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exec(statement, trial)  # noqa: S102
        except Exception:  # noqa: BLE001: drawn statements CPU refuses are dropped
            return False
        self.scope = trial
        self.statements.append(statement)
        return True

    @property
    def v(self) -> torch.Tensor:
        return self.scope["v"]

    def dim(self) -> int:
        return self.rng.randrange(self.v.dim()) if self.v.dim() else 0

    def operand(self, shape=None, dtype=None) -> str:
        self.operands += 1
        shape = tuple(self.v.shape) if shape is None else shape
        dtype = dtype or (self.v.dtype if self.rng.random() < 0.7 else self.rng.choice(DTYPES))
        return f"values({shape}, {dtype}, {self.operands}).to(dev)"

    def number(self) -> str:
        if self.v.dtype == torch.bool:
            return self.rng.choice(["True", "False"])
        if self.v.dtype.is_floating_point or self.v.dtype.is_complex:
            return self.rng.choice(["2", "-1", "0.5", "-2.5", "3"])
        return self.rng.choice(["2", "-1", "3", "0"])

    def index(self, d: int) -> str:
        n = self.v.shape[d] if self.v.dim() else 1
        picks = [self.rng.randrange(max(n, 1)) for _ in range(self.rng.randint(1, 3))]
        return f"torch.tensor({picks}, device=dev)"


def _views(d: _Drawer) -> list[Callable[[], str]]:
    v, r = d.v, d.rng

    def slice_step():
        dim = d.dim()
        n = v.shape[dim] if v.dim() else 1
        start, step = r.randrange(max(n, 1)), r.randint(1, 3)
        return f"v = v[{':, ' * dim}{start}::{step}]"

    return [
        slice_step,
        lambda: f"v = v.transpose({d.dim()}, {d.dim()})",
        lambda: f"v = v.permute({list(r.sample(range(v.dim()), v.dim()))})",
        lambda: f"v = v.diagonal({r.randint(-1, 1)}, {d.dim()}, {d.dim()})",
        lambda: f"v = v.unsqueeze({r.randrange(v.dim() + 1)}).expand({[r.randint(1, 3)] + [-1] * v.dim()})"
                if r.random() < 0.5 else f"v = v.unsqueeze({r.randrange(v.dim() + 1)})",
        lambda: f"v = v.unfold({d.dim()}, {r.randint(1, 2)}, {r.randint(1, 2)})",
        lambda: f"v = v.select({d.dim()}, {r.randrange(max(v.shape[0] if v.dim() else 1, 1))})",
        lambda: f"v = v.narrow({d.dim()}, {r.randint(0, 1)}, {r.randint(1, 2)})",
        lambda: f"v = v.view({r.choice(SAME_ITEMSIZE.get(v.dtype, [v.dtype]))})",
        lambda: f"v = v.{r.choice(['real', 'imag'])}",
        lambda: "v = v.conj()",
        lambda: "v = torch.view_as_real(v)",
        lambda: f"v = v.as_strided({[2, 2]}, {[r.randint(0, 2), r.randint(1, 3)]}, v.storage_offset())",
        lambda: f"v = v[{r.choice(['..., None', 'None', '1:', '::2', '-1'])}]",
    ]


def _writes(d: _Drawer) -> list[Callable[[], str]]:
    r = d.rng
    return [
        lambda: f"v.{r.choice(['add_', 'sub_', 'mul_'])}({d.number()})",
        lambda: f"v.{r.choice(['add_', 'mul_', 'copy_', 'sub_'])}({d.operand()})",
        lambda: f"v += {d.operand()}",
        lambda: f"v -= v.mean()" if r.random() < 0.5 else "v -= v.sum()",
        lambda: f"v.{r.choice(['fill_', 'clamp_max_', 'clamp_min_'])}({d.number()})",
        lambda: f"v.{r.choice(['zero_', 'neg_', 'abs_', 'nan_to_num_', 'sqrt_', 'exp_', 'relu_', 'sign_', 'floor_'])}()",
        lambda: f"v.clamp_({d.number()}, 4)",
        lambda: f"v[v > {d.number()}] = {d.number()}",
        lambda: f"v[{d.index(0)}] = {d.number()}",
        lambda: f"v[{d.index(0)}] += {d.number()}",
        lambda: f"v[..., ::2] = {d.number()}",
        lambda: f"v[:, 0] -= v[:, 0].mean()",
        lambda: f"v.index_put_(({d.index(0)},), {d.operand(shape=(), dtype=d.v.dtype)}, accumulate={r.random() < 0.5})",
        lambda: f"v.index_fill_(0, {d.index(0)}, {d.number()})",
        lambda: f"v.index_add_(0, {d.index(0)}, {d.operand(shape=(1,) + tuple(d.v.shape[1:]))})",
        lambda: f"v.masked_fill_({d.operand(dtype=torch.bool)}, {d.number()})",
        lambda: f"v.masked_scatter_({d.operand(dtype=torch.bool)}, {d.operand()})",
        lambda: f"v.scatter_(0, {d.index(0)}.reshape({[-1] + [1] * max(d.v.dim() - 1, 0)}), {d.number()})",
        lambda: f"v.scatter_reduce_(0, {d.index(0)}.reshape({[-1] + [1] * max(d.v.dim() - 1, 0)}), "
                f"{d.operand()}, reduce={r.choice(['sum', 'amax', 'prod'])!r})",
        lambda: f"v.put_({d.index(0)}, {d.operand(shape=(1,))}.expand(len({d.index(0)})))",
        lambda: f"torch.{r.choice(['add', 'mul', 'maximum', 'sub'])}({d.operand()}, {d.operand()}, out=v)",
        lambda: f"torch.neg({d.operand()}, out=v)",
        lambda: f"torch.where({d.operand(dtype=torch.bool)}, {d.operand()}, {d.number()}, out=v)",
        lambda: "v.resize_(v.shape)",
        lambda: f"v.{r.choice(['t_()', 'unsqueeze_(0)', 'squeeze_()'])}",
        lambda: f"v.lerp_({d.operand()}, 0.5)",
        lambda: f"v.addcmul_({d.operand()}, {d.operand()}, value=2)",
        lambda: f"v.{r.choice(['heaviside_', 'logical_and_', 'bitwise_or_', 'remainder_', 'pow_'])}({d.operand()})",
    ]


def draw(seed: int) -> Chain:
    """Chain number `seed`: the same statements every time."""
    d = _Drawer(seed)
    r = d.rng
    rank = r.randint(1, 3)
    shape = tuple(r.randint(2, 5) for _ in range(rank))
    dtype = r.choice(DTYPES)
    d.try_add(f"base = values({shape}, {dtype}).to(dev)")
    d.try_add(r.choice(["w = base.view(-1)[1::2]", "w = base.transpose(0, -1)", "w = base[..., :1]"]))
    d.try_add("v = base")
    for _ in range(r.randint(1, 4)):
        for _attempt in range(8):
            if d.try_add(r.choice(_views(d))()):
                break
    for _ in range(r.randint(1, 3)):
        for _attempt in range(8):
            if d.try_add(r.choice(_writes(d))()):
                break
    return Chain(seed, d.statements)


def failure(chain: Chain, device: torch.device, forced: Callable[[], object]) -> list[str]:
    """The differences of `chain` on the device (native, then forced to the fallback)
    from CPU, labelled with the mode; empty when it agrees."""
    expected = run(chain, torch.device("cpu"))
    found = [f"native: {d}" for d in differences(expected, run(chain, device))]
    with forced():
        found += [f"fallback: {d}" for d in differences(expected, run(chain, device))]
    return found


def shrink(chain: Chain, fails: Callable[[Chain], bool]) -> Chain:
    """Drops statements (never the first, which makes the base) while the chain still fails."""
    statements = list(chain.statements)
    changed = True
    while changed:
        changed = False
        for i in range(len(statements) - 1, 0, -1):
            trial = Chain(chain.seed, statements[:i] + statements[i + 1:])
            if fails(trial):
                statements = trial.statements
                changed = True
    return Chain(chain.seed, statements)


@dataclasses.dataclass
class Report:
    chains: int
    seconds: float
    failures: list[tuple[Chain, list[str]]]


def fuzz(device: torch.device, forced: Callable[[], object], first_seed: int, seconds: float,
         max_failures: int = 3) -> Report:
    """Runs chains first_seed, first_seed + 1, ... for `seconds`, stopping early after
    max_failures failures (each one shrunk)."""
    started = time.monotonic()
    failures = []
    seed = first_seed
    while time.monotonic() - started < seconds and len(failures) < max_failures:
        chain = draw(seed)
        seed += 1
        found = failure(chain, device, forced)
        if found:
            small = shrink(chain, lambda c: bool(failure(c, device, forced)))
            failures.append((small, failure(small, device, forced)))
    return Report(seed - first_seed, time.monotonic() - started, failures)
