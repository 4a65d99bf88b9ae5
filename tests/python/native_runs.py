"""Which kernels ran natively inside a block: the backend's record (what the
conformance run attributes its verdicts by), as (op, dtype) pairs, the dtype by
its C++ name (Float, Half)."""
from __future__ import annotations

import contextlib

from torch_fl import device_module


@contextlib.contextmanager
def recorded_native_runs():
    runs: set[tuple[str, str]] = set()
    device_module._record_native_runs(True)
    try:
        yield runs
        runs.update((run["op"], run["dtype"]) for run in device_module._native_runs())
    finally:
        device_module._record_native_runs(False)


def native_runs_of(action) -> set[tuple[str, str]]:
    with recorded_native_runs() as runs:
        action()
    return runs
