"""The plausible bugs of issue #18, each applied to the source in turn: a test
must fail on every one (the mutant is killed). Generator mutants must be killed
by tests that do not read generated/: the golden comparison is left out, since
it passes again as soon as someone runs `make generate`. Package mutants run the
per-device suites. Not part of `make test`: `make mutation` runs it beside mutmut
(tests/mutation/run.py).

Run from the repository root with a built backend:
    TORCH_FL_VENDOR=mlu python tests/mutation/listed_mutants.py [--only generator|package]
Exit status 1 when a mutant survives."""
from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass

INIT = "runtime/python/torch_fl/__init__.py"
DEVICE_MODULE = "runtime/python/torch_fl/device_module.py"
PACKAGE_SUITES = ["tests/python/test_per_device_functions.py", "tests/python/test_device_api.py"]
# The generator's own tests, less the golden comparison with the committed generated/.
GENERATOR_SUITES = ["tests/codegen", "--deselect",
                    "tests/codegen/test_generator_output.py::test_checked_in_output_matches_the_spec"]


@dataclass(frozen=True)
class Mutant:
    bug: str
    path: str
    original: str
    mutated: str


GENERATOR_MUTANTS = [
    Mutant("errors drop the column of file:line:column", "codegen/errors.py",
           'return f"{self.path}:{self.line}:{self.column}" if self.line else self.path',
           'return f"{self.path}:{self.line}" if self.line else self.path'),
    Mutant("the emitted native dtype set loses its last dtype", "codegen/emit_kernel.py",
           "torch_fl::dtype_set({{{dtype_list(kernel.dtypes.native)}}}),",
           "torch_fl::dtype_set({{{dtype_list(kernel.dtypes.native[:-1])}}}),"),
    Mutant("the first two SDK arguments are swapped", "codegen/emit_launch.py",
           "    call_args = []\n",
           "    call_args = []\n    launch = _swap_first_two_tensor_arguments(launch)\n"),
    Mutant("the support matrix reports a per-dtype error as fallback", "codegen/matrix.py",
           "if kernel.dtypes.fallback == FallbackPolicy.ERROR or dtype in kernel.dtypes.error_dtypes:",
           "if kernel.dtypes.fallback == FallbackPolicy.ERROR:"),
    Mutant("error dtypes are not emitted at all", "codegen/emit_kernel.py",
           "torch_fl::dtype_set({{{dtype_list(kernel.dtypes.error_dtypes)}}})}};",
           "torch_fl::dtype_set({{}})}};"),
    Mutant("a when: guard is not emitted", "codegen/emit_kernel.py",
           "    if kernel.guard is not None:\n        when = ",
           "    if False:\n        when = "),
    Mutant("the native/fallback decision uses the last tensor argument", "codegen/emit_kernel.py",
           'checks = [f\'op.dtype_is_native({t.name}, "{t.name}")\' for t in decision.operands]',
           'checks = [f\'op.dtype_is_native({t.name}, "{t.name}")\' for t in decision.operands[-1:]]'),
    Mutant("a torch version gate compares only the major version", "codegen/spec_model.py",
           "        size = 2\n        v = version[:size]",
           "        size = 1\n        v = version[:size]"),
]

PACKAGE_MUTANTS = [
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


ORIGINAL_SUFFIX = ".listed-mutant-original"


def run_suites(suites: list[str]) -> int:
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *suites],
                          capture_output=True, text=True).returncode


def restore_leftovers() -> None:
    """A run that was killed (SIGKILL, a lost machine) left a mutated file beside its
    original: put the original back before anything else."""
    for root in ("codegen", "runtime/python/torch_fl"):
        for name in os.listdir(root):
            if name.endswith(ORIGINAL_SUFFIX):
                original = os.path.join(root, name)
                os.replace(original, original[: -len(ORIGINAL_SUFFIX)])
                print(f"restored {original[: -len(ORIGINAL_SUFFIX)]} from an interrupted run", flush=True)


def killed(mutant: Mutant, suites: list[str]) -> bool:
    """pytest's exit 1 (tests failed) kills a mutant; an interrupted run, an error of
    collection or no test collected is not a kill, and stops the run."""
    with open(mutant.path) as f:
        source = f.read()
    if source.count(mutant.original) != 1:
        raise SystemExit(f"{mutant.path}: the code of mutant '{mutant.bug}' is no longer there once; update it")
    backup = mutant.path + ORIGINAL_SUFFIX
    shutil.copy2(mutant.path, backup)
    try:
        with open(mutant.path, "w") as f:
            f.write(source.replace(mutant.original, mutant.mutated) + _HELPERS.get(mutant.path, ""))
        status = run_suites(suites)
    finally:
        os.replace(backup, mutant.path)
    if status not in (0, 1):
        raise SystemExit(f"pytest exited {status} on mutant '{mutant.bug}' (not a test failure): stopping")
    return status == 1


# Code a mutant needs beside its one-line change (appended to the mutated file only).
_HELPERS = {"codegen/emit_launch.py": """

def _swap_first_two_tensor_arguments(launch):
    import dataclasses
    arguments = list(launch.call_arguments)
    tensors = [i for i, a in enumerate(arguments) if a.name in {p.name for p in launch.parameters}]
    if len(tensors) >= 2:
        first, second = tensors[:2]
        arguments[first], arguments[second] = arguments[second], arguments[first]
    return dataclasses.replace(launch, call_arguments=tuple(arguments))
"""}


def run_listed(name: str, mutants: list[Mutant], suites: list[str]) -> list[str]:
    baseline = run_suites(suites)
    if baseline != 0:
        raise SystemExit(f"{name}: the suites fail without a mutant (pytest exit {baseline}): fix them first")
    survivors = []
    for mutant in mutants:
        status = killed(mutant, suites)
        print(f"  {'killed  ' if status else 'SURVIVED'} {mutant.bug}", flush=True)
        if not status:
            survivors.append(mutant.bug)
    print(f"{name} listed mutants: {len(mutants) - len(survivors)}/{len(mutants)} killed", flush=True)
    return survivors


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", choices=("generator", "package"))
    args = parser.parse_args()
    # A termination (make's or CI's timeout) unwinds through the restoring `finally`.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(143))
    restore_leftovers()
    survivors = []
    if args.only in (None, "generator"):
        survivors += run_listed("generator", GENERATOR_MUTANTS, GENERATOR_SUITES)
    if args.only in (None, "package"):
        survivors += run_listed("package", PACKAGE_MUTANTS, PACKAGE_SUITES)
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
