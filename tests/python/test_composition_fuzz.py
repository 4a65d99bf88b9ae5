"""The composition fuzzer (composition_fuzz.py) in the test run: chains of views and
in-place writes compared with CPU, natively and with every native kernel forced
to the CPU fallback, for TORCH_FL_COMPOSITION_SECONDS (default 30) from a fixed
seed. `make fuzz-compositions` runs it longer from another seed: the fixed seed makes
`make test`'s share a regression check that repeats the same chains each run, so more
seconds there buy CI time, not new chains."""
from __future__ import annotations

import contextlib
import os

import pytest
import torch

import torch_fl

import composition_fuzz

SECONDS = float(os.environ.get("TORCH_FL_COMPOSITION_SECONDS", "30"))
FIRST_SEED = int(os.environ.get("TORCH_FL_COMPOSITION_SEED", "0"))


def _native_overloads() -> list[str]:
    """The ATen overloads with a generated kernel in this build (the matrix also lists
    rows gated to other torch versions, and torchvision's ops where it is installed)."""
    names = {row["name"] for row in torch_fl.support_matrix()["ops"]
             if "native" in row["dtypes"].values() and "::" not in row["name"]}
    return sorted(n for n in names if torch._C._dispatch_has_kernel_for_dispatch_key(f"aten::{n}", "PrivateUse1"))


@contextlib.contextmanager
def _everything_on_the_fallback():
    torch_fl.force_fallback(_native_overloads())
    try:
        yield
    finally:
        torch_fl.force_fallback([])


@pytest.fixture
def silent_fallback(fallback_mode):
    fallback_mode("silent")


def test_drawn_chains_are_reproducible_and_valid_on_cpu():
    first, again = composition_fuzz.draw(7), composition_fuzz.draw(7)
    assert first.statements == again.statements
    # Drawn statements are kept only where CPU runs them, so CPU runs the whole chain.
    for seed in range(20):
        assert composition_fuzz.run(composition_fuzz.draw(seed), torch.device("cpu")).error is None


def test_differences_sees_a_write_into_the_wrong_place():
    """The comparison itself can fail: a chain whose device run is made to write a
    dense block where the view is strided (the #41 bug) is reported."""
    chain = composition_fuzz.Chain(0, ["base = values((4, 3), torch.float64).to(dev)", "w = base.view(-1)[1::2]",
                                       "v = base[:, 0]", "v += 1"])
    expected = composition_fuzz.run(chain, torch.device("cpu"))
    broken = composition_fuzz.Chain(0, chain.statements[:3] + ["base.view(-1)[:4] += 1"])
    found = composition_fuzz.differences(expected, composition_fuzz.run(broken, torch.device("cpu")))
    assert any(line.startswith("base: values differ") for line in found), found


def test_shrink_keeps_only_what_fails():
    chain = composition_fuzz.Chain(0, ["x = 1", "y = 2", "z = 3", "boom = True"])
    small = composition_fuzz.shrink(chain, lambda c: "boom = True" in c.statements)
    assert small.statements == ["x = 1", "boom = True"]


def test_compositions_match_cpu(device, silent_fallback, capsys):
    report = composition_fuzz.fuzz(device, _everything_on_the_fallback, FIRST_SEED, SECONDS)
    with capsys.disabled():
        print(f"\ncomposition fuzzer ({torch_fl.vendor()}): {report.chains} chains in {report.seconds:.0f} s "
              f"from seed {FIRST_SEED}, {len(report.failures)} failing")
    messages = []
    for chain, found in report.failures:
        messages.append(f"chain {chain.seed}, shrunk:\n{chain.source(str(device))}\n" + "\n".join(found))
    assert not report.failures, "\n\n".join(messages)
    assert report.chains >= 20, f"only {report.chains} chains in {report.seconds:.0f} s"
