"""`make mutation`: how many plausible bugs the tests catch (issue #18).

Two measures, printed side by side:
- mutmut (a maintained mutation tool, pinned in tests/mutation/requirements.txt)
  mutates every function of codegen/ and of the torch_fl package and runs the
  tests that cover each one. Score = caught / tried (a mutant no test reaches
  counts as survived). Target: 80% each. codegen/ alone has about 6,500 mutants,
  hours on two cores, so by default a seeded random sample of them is tried
  (MUTATION_SAMPLE, default 400 per target; 0 tries all) and the score comes
  with its 95% interval.
- The listed mutants of the issue (tests/mutation/listed_mutants.py): every one
  must be killed, the generator's without the golden comparison.

mutmut works in a staged copy under build/mutation/<target>/ (never in the work
tree) and keeps its results there. Not part of `make test`.

    TORCH_FL_VENDOR=mlu python tests/mutation/run.py [--target codegen|package] [--jobs N] [--sample N]
Exit status 1 when a score is under its target or a listed mutant survives."""
from __future__ import annotations

import argparse
import collections
import glob
import json
import math
import os
import random
import shutil
import subprocess
import sys
from dataclasses import dataclass, field

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.dirname(os.path.abspath(__file__))
TARGET_SCORE = 0.80


@dataclass(frozen=True)
class Target:
    """One mutmut run: what is mutated, by which tests it is judged, and what the
    staged copy needs beside them."""
    name: str
    source: str  # the package directory mutated, relative to the repository
    tests: tuple[str, ...]  # pytest arguments selecting the judging tests
    copy: tuple[str, ...]  # repository paths the tests read
    # mutmut settings beyond the defaults (the package's tests load a backend with
    # threads: their worker processes come from a fork server that has not loaded it)
    settings: dict = field(default_factory=dict)
    do_not_mutate: tuple[str, ...] = ()  # relative to the staged copy
    # Where the source goes in the staged copy: mutmut names a mutant's module by its
    # path there (less a leading src/), which must be the name the tests import.
    staged_as: str = ""
    # Repository paths the staged copy links to instead of copying (the package finds
    # the built backends in build/ beside it, as in the repository).
    links: tuple[str, ...] = ()

    @property
    def staged_source(self) -> str:
        return self.staged_as or self.source


TARGETS = (
    Target("codegen", "codegen",
           # The golden comparison with generated/ does not count as a test of the
           # generator; the spec fuzzer (a minute of random specs) runs in `make test`, not
           # per mutant. The compile check of emitted C++ (20 s) stays: most emitter
           # mutants only show as code that does not compile.
           ("tests/codegen", "--deselect",
            "tests/codegen/test_generator_output.py::test_checked_in_output_matches_the_spec",
            "--deselect", "tests/codegen/test_spec_fuzz.py"),
           (".ci", "specs", "templates", "generated", "runtime/include", "vendors", "tests/codegen",
            "tests/conformance", "tests/conformance_tool", "CMakeLists.txt", "Makefile")),
    Target("package", "runtime/python/torch_fl",
           # The suites of the package's Python API (not the op-by-op or multi-process ones).
           tuple(f"tests/python/test_{name}.py" for name in (
               "device_api", "per_device_functions", "fallback_and_errors", "forced_fallback", "amp", "placement",
               "cli", "cuda_compat", "logging", "allocator", "custom_ops", "one_vendor_per_process",
               "native_runs", "multiprocessing")) + (
               # the by-value reducer's round trips through spawned processes, where the
               # mutated package is not the one imported (an in-process round trip stays)
               "--deselect", "tests/python/test_multiprocessing.py::test_spawned_dataloader_workers_get_the_datasets_device_tensors",
               "--deselect", "tests/python/test_multiprocessing.py::test_queue_round_trip_of_device_tensors_and_parameters"),
           # docs/ (cli.md): the CLI tests check its help blocks against the parser; the
           # torch-version rule (codegen/torch_versions.py) says where generated/ is
           ("generated", "tests/python", "tests/conformance_tool", "specs", "docs", "codegen/torch_versions.py",
            ".ci/torch_versions"),
           {"process_isolation": "forkserver", "forkserver_warmup": "none"},
           # the demo is the main job's script (`make demo` runs it), not library code
           ("src/torch_fl/demo.py",), staged_as="src/torch_fl", links=("build",)),
)


def ensure_mutmut(python: str) -> None:
    if subprocess.run([python, "-c", "import mutmut"], capture_output=True).returncode == 0:
        return
    print("mutation: installing mutmut (tests/mutation/requirements.txt)", flush=True)
    subprocess.run([python, "-m", "pip", "install", "-q", "-r", os.path.join(HERE, "requirements.txt")], check=True)


def _existing_tests(target: Target) -> list[str]:
    """The judging tests that exist (a test file may be renamed; say so, not fail)."""
    kept = []
    for argument in target.tests:
        path = argument.split("::")[0]
        if argument.startswith("-") or kept and kept[-1] == "--deselect" or os.path.exists(
                os.path.join(REPO_ROOT, path)):
            kept.append(argument)
        else:
            print(f"mutation[{target.name}]: no {path}: left out of the judging tests", flush=True)
    if not any(os.path.exists(os.path.join(REPO_ROOT, a.split("::")[0])) for a in kept if not a.startswith("-")):
        raise SystemExit(f"mutation[{target.name}]: none of its judging tests exists: {' '.join(target.tests)}")
    return kept


def stage(target: Target, root: str) -> None:
    """A copy of what the target's tests read, with mutmut's settings. mutmut's own
    state (mutants/) is kept between runs."""
    for path, staged_path in [(target.source, target.staged_source)] + [(p, p) for p in target.copy]:
        source, staged = os.path.join(REPO_ROOT, path), os.path.join(root, staged_path)
        if os.path.isdir(staged):
            shutil.rmtree(staged)
        os.makedirs(os.path.dirname(staged) or root, exist_ok=True)
        if os.path.isdir(source):
            shutil.copytree(source, staged, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        elif os.path.exists(source):
            shutil.copy2(source, staged)
    for path in target.links:
        link = os.path.join(root, path)
        if not os.path.lexists(link):
            os.symlink(os.path.join(REPO_ROOT, path), link)
    settings = {"source_paths": [target.staged_source + "/"],
                "pytest_add_cli_args_test_selection": _existing_tests(target),
                "pytest_add_cli_args": ["-p", "no:cacheprovider", "-q"],
                "also_copy": list(target.copy), "do_not_mutate": list(target.do_not_mutate), **target.settings}
    with open(os.path.join(root, "pyproject.toml"), "w") as f:
        f.write("[tool.mutmut]\n")
        for key, value in settings.items():
            f.write(f"{key} = {json.dumps(value)}\n")
    # The mutated package must be the one imported: mutmut puts mutants/ first on
    # sys.path, so the package's parent directory inside it goes there too.
    parent = os.path.dirname(target.staged_source)
    with open(os.path.join(root, "conftest.py"), "w") as f:
        f.write("import os, sys\n"
                f"_mutated = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'mutants', {parent!r})\n"
                "if os.path.isdir(_mutated):\n    sys.path.insert(0, _mutated)\n")


MUTMUT = ["-c", "import sys; from mutmut.__main__ import cli; sys.argv[0] = 'mutmut'; cli()"]
# mutmut's exit codes of a tried mutant (mutmut/stats.py): what counts as caught.
CAUGHT = {"killed", "timeout", "segfault", "caught by type check"}


@dataclass(frozen=True)
class Outcome:
    target: str
    mutants: int  # generated for the target
    statuses: dict  # mutant name -> mutmut's status, for the mutants tried

    @property
    def caught(self) -> int:
        return sum(1 for status in self.statuses.values() if status in CAUGHT)

    @property
    def score(self) -> float:
        """Caught over tried; a mutant no test reaches counts as a survivor."""
        return self.caught / len(self.statuses) if self.statuses else 0.0

    def interval(self) -> tuple[float, float]:
        """95% Wilson interval of the score over all mutants, when a sample was tried."""
        n, p, z = len(self.statuses), self.score, 1.96
        if not n or n >= self.mutants:
            return p, p
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return max(0.0, centre - half), min(1.0, centre + half)


def _statuses(root: str) -> dict:
    from mutmut.stats import status_by_exit_code
    found = {}
    for meta in glob.glob(os.path.join(root, "mutants", "**", "*.py.meta"), recursive=True):
        with open(meta) as f:
            for name, code in json.load(f).get("exit_code_by_key", {}).items():
                found[name] = status_by_exit_code[code]
    return found


def run_mutmut(target: Target, python: str, jobs: int, env: dict, sample: int, seed: int) -> Outcome:
    """mutmut on the target: all its mutants, or a seeded random sample of them. (mutmut
    forgets its earlier results when the tests change, so every run tries the whole sample.)"""
    root = os.path.join(REPO_ROOT, "build", "mutation", target.name)
    os.makedirs(root, exist_ok=True)
    stage(target, root)
    log_path = os.path.join(root, "mutmut.log")

    def mutmut(*arguments: str, check: bool = True) -> None:
        with open(log_path, "a") as log:
            run = subprocess.run([python, *MUTMUT, *arguments], cwd=root, env=env, stdout=log,
                                 stderr=subprocess.STDOUT)
        if check and run.returncode != 0:
            with open(log_path, errors="replace") as log:
                tail = log.read()[-3000:]
            raise SystemExit(f"mutation[{target.name}]: mutmut {arguments[0]} failed (exit {run.returncode}):\n{tail}")

    open(log_path, "w").close()
    # mutmut generates the mutants (again where the source changed) and maps tests to
    # functions before it filters by name: a name that matches nothing stops it there.
    mutmut("run", "--max-children", str(jobs), "generate-only", check=False)
    names = sorted(_statuses(root))
    if not names:
        with open(log_path, errors="replace") as log:
            raise SystemExit(f"mutation[{target.name}]: mutmut generated no mutants:\n{log.read()[-3000:]}")
    chosen = names if sample <= 0 or sample >= len(names) else sorted(random.Random(seed).sample(names, sample))
    print(f"mutation[{target.name}]: {len(names)} mutants of {target.source}/; trying "
          f"{'all' if len(chosen) == len(names) else f'a random sample of {len(chosen)} (seed {seed})'} "
          f"with {jobs} workers in {os.path.relpath(root, REPO_ROOT)}", flush=True)
    mutmut("run", "--max-children", str(jobs), *chosen)
    statuses = _statuses(root)
    return Outcome(target.name, len(names), {name: statuses[name] for name in chosen})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", choices=[t.name for t in TARGETS])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--skip-listed", action="store_true", help="mutmut only")
    parser.add_argument("--sample", type=int, default=int(os.environ.get("MUTATION_SAMPLE", "400")),
                        help="mutants tried per target, drawn at random (0: all of them)")
    parser.add_argument("--seed", type=int, default=18)
    args = parser.parse_args()
    python = sys.executable
    ensure_mutmut(python)
    vendor = os.environ.get("TORCH_FL_VENDOR", "mlu")
    sys.path.insert(0, os.path.join(REPO_ROOT, "runtime", "python"))
    from torch_fl import _backend  # the built library the package's tests load, found as they would
    built = _backend.built_libraries()
    if vendor not in built:
        raise SystemExit(f"mutation: no {vendor} backend is built; run `make backend VENDOR={vendor}` first")
    env = dict(os.environ, TORCH_FL_VENDOR=vendor, TORCH_FL_LIBRARY=built[vendor], TORCH_FL_FALLBACK="silent")
    failed = False
    for target in TARGETS:
        if args.target and target.name != args.target:
            continue
        outcome = run_mutmut(target, python, args.jobs, env, args.sample, args.seed)
        low, high = outcome.interval()
        spread = f" (95% interval {low:.0%}-{high:.0%} for all {outcome.mutants})" if high > low else ""
        counts = ", ".join(f"{status} {count}" for status, count in
                           sorted(collections.Counter(outcome.statuses.values()).items()))
        print(f"mutation[{target.name}]: {outcome.score:.1%} of {len(outcome.statuses)} mutants caught{spread}: "
              f"{counts}; target {TARGET_SCORE:.0%}", flush=True)
        survivors = sorted(name for name, status in outcome.statuses.items() if status not in CAUGHT)
        for name in survivors[:60]:
            print(f"    {outcome.statuses[name]}: {name}")
        if len(survivors) > 60:
            print(f"    ... and {len(survivors) - 60} more")
        print(f"    (see one: cd build/mutation/{target.name} && {python} -m mutmut show <name>)")
        failed |= outcome.score < TARGET_SCORE
    if not args.skip_listed:
        only = {"codegen": "generator", "package": "package"}.get(args.target)
        listed = [python, os.path.join(HERE, "listed_mutants.py")] + (["--only", only] if only else [])
        failed |= subprocess.run(listed, cwd=REPO_ROOT, env=dict(os.environ, TORCH_FL_VENDOR=vendor)).returncode != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
