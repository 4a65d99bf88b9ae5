"""The torch_fl package's listed mutants (issue #18): each plausible bug is
applied to the source in turn, the per-device suites run against it, and the
mutant must be killed (a test fails). Not part of `make test`: `make mutation`.

Run from the repository root with a built backend:
    TORCH_FL_VENDOR=mlu python tests/mutation/package_mutants.py
Exit status 1 when a mutant survives."""
from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass

INIT = "runtime/python/torch_fl/__init__.py"
DEVICE_MODULE = "runtime/python/torch_fl/device_module.py"
SUITES = ["tests/python/test_per_device_functions.py", "tests/python/test_device_api.py"]


@dataclass(frozen=True)
class Mutant:
    bug: str
    path: str
    original: str
    mutated: str


MUTANTS = [
    Mutant("fallback_stats counts records instead of calls", INIT,
           'per_dtype.get(record["dtype"], 0) + record["count"]', 'per_dtype.get(record["dtype"], 0) + 1'),
    Mutant('memory_allocated("<device>:1") ignores the index', DEVICE_MODULE,
           "def memory_allocated(device: DeviceLike = None) -> int:\n    return _runtime_stats(device)",
           "def memory_allocated(device: DeviceLike = None) -> int:\n    return _runtime_stats(None)"),
    Mutant("manual_seed_all seeds only the current device", DEVICE_MODULE,
           '    for index in range(device_count()):\n        _lib().call("tfl_manual_seed", index,',
           '    for index in [current_device()]:\n        _lib().call("tfl_manual_seed", index,'),
    Mutant("set_rng_state ignores its device", DEVICE_MODULE,
           '_lib().call("tfl_set_rng_state", _index(device),', '_lib().call("tfl_set_rng_state", current_device(),'),
    Mutant("max_memory_reserved returns max allocated", DEVICE_MODULE,
           'return _runtime_stats(device)["peak_reserved_bytes"]',
           'return _runtime_stats(device)["peak_allocated_bytes"]'),
    Mutant("Stream(device=1) ignores the device", DEVICE_MODULE,
           "super().__new__(cls, device=torch.device(_lib().device, _index(device))",
           "super().__new__(cls, device=torch.device(_lib().device, current_device())"),
]


def killed(mutant: Mutant) -> bool:
    with open(mutant.path) as f:
        source = f.read()
    if source.count(mutant.original) != 1:
        raise SystemExit(f"{mutant.path}: the code of mutant '{mutant.bug}' is no longer there once; update it")
    try:
        with open(mutant.path, "w") as f:
            f.write(source.replace(mutant.original, mutant.mutated))
        run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *SUITES],
                             capture_output=True, text=True)
        return run.returncode != 0
    finally:
        with open(mutant.path, "w") as f:
            f.write(source)


def main() -> int:
    survivors = []
    for mutant in MUTANTS:
        status = killed(mutant)
        print(f"{'killed  ' if status else 'SURVIVED'} {mutant.bug}")
        if not status:
            survivors.append(mutant.bug)
    print(f"package mutants: {len(MUTANTS) - len(survivors)}/{len(MUTANTS)} killed")
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
