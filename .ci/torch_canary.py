"""A torch release tried before it is supported: `make torch-canary [TORCH=<version>] [VENDOR=mlu]`.

The check a maintainer runs on a release's first day (docs/new-torch-release.md), the way CI
would run it once the release is listed: in a clone of HEAD (build/canary/torch-<version>/repo)
whose .ci/torch_versions gains the release, it installs that torch (setup lifts a pip cap that
excludes it), generates every vendor against its schemas, builds one vendor, runs its C++ and
Python suites and diffs ATen against the default torch. Then one report: what changed, what
fails, and the line to add to .ci/torch_versions. Not in CI: it downloads.

Without TORCH it tries the newest torch on the package index. Only committed work is in the
clone. Standard library only: it runs before any environment exists.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Callable

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "codegen"))
import torch_versions  # noqa: E402  (codegen/torch_versions.py, loaded on its own: stdlib only)


@dataclass
class Step:
    title: str
    command: list[str]
    needs: str = ""  # the title of a step that must have passed first
    read: Callable[[str, bool], list[str]] = lambda output, failed: findings(output, failed)
    status: str = "not run"  # passed | FAILED | not run
    seconds: float = 0.0
    log: str = ""
    findings: list[str] = field(default_factory=list)


def newest_on_index() -> str:
    """The newest torch release pip's index lists (pip's own cap lifted, as setup does)."""
    run = subprocess.run([sys.executable, "-m", "pip", "index", "versions", "torch"], capture_output=True, text=True,
                         env=dict(os.environ, PIP_CONSTRAINT=os.devnull), check=False)
    found = re.search(r"^torch \(([^)]+)\)", run.stdout, re.MULTILINE)
    if not found:
        raise SystemExit(f"torch-canary: the package index listed no torch release (pip: {run.stderr.strip()[-300:]}); "
                         f"name one: make torch-canary TORCH=<version>")
    return found.group(1)


def clone(work: str) -> str:
    target = os.path.join(work, "repo")
    shutil.rmtree(target, ignore_errors=True)
    os.makedirs(work, exist_ok=True)
    subprocess.run(["git", "clone", "-q", "--shared", REPO, target], check=True)
    return target


def list_release(repo: str, version: str) -> bool:
    """Appends the release to the clone's list; False when it is listed already."""
    if any(r.version == version for r in torch_versions.releases(repo)):
        return False
    with open(os.path.join(repo, torch_versions.VERSIONS_FILE), "a") as f:
        f.write(f"{version} | - | tried by make torch-canary, not yet supported\n")
    return True


def run_step(step: Step, repo: str, logs: str, passed: set[str]) -> None:
    if step.needs and step.needs not in passed:
        step.findings.append(f"not run: {step.needs} did not pass")
        return
    slug = re.sub(r"[^a-z0-9]+", "-", step.title.lower().replace("c++", "cpp")).strip("-")
    step.log = os.path.join(logs, slug + ".log")
    started = time.monotonic()
    print(f"torch-canary: {step.title}: {' '.join(step.command)} (log: {os.path.relpath(step.log, REPO)})",
          flush=True)
    # Not the outer make's flags: its TORCH=<release> (or jobserver) would reach every step.
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")}
    with open(step.log, "w") as out:
        rc = subprocess.run(step.command, cwd=repo, stdout=out, stderr=subprocess.STDOUT, env=env,
                            check=False).returncode
    step.seconds = time.monotonic() - started
    step.status = "passed" if rc == 0 else "FAILED"
    if rc == 0:
        passed.add(step.title)
    with open(step.log, errors="replace") as f:
        step.findings = step.read(f.read(), rc != 0)


def findings(output: str, failed: bool) -> list[str]:
    """The lines of a step's output a maintainer reads first."""
    lines = output.splitlines()
    found = [line.strip() for line in lines if line.startswith(("note:", "error:")) or ": error: " in line]
    found += [line.strip() for line in lines if re.match(r"(FAILED|ERROR) tests/", line)]
    found += [line.strip() for line in lines if re.match(r"\s+\d+ - \S+ \(Failed\)", line)]
    found += [line.strip() for line in lines if re.search(r"\d+ (passed|failed)", line) and " in " in line]
    if failed and not found:
        found = [line.rstrip() for line in lines[-15:]]  # no pattern matched: the end of the output
    return list(dict.fromkeys(found))


def diff_findings(output: str, failed: bool) -> list[str]:
    """The diff's summary and the changes that touch a spec entry; the others are counted."""
    if failed:
        return findings(output, failed)
    kept, untouched = [], 0
    in_untouched = False
    for line in output.splitlines():
        if line.startswith("Not in any spec:"):
            in_untouched = True
        elif in_untouched and line.strip():
            untouched += 1
        elif line.strip():
            kept.append(line.rstrip())
    if untouched:
        kept.append(f"({untouched} overloads added, removed or changed touch no spec: listed in the log)")
    return kept


def report(version: str, vendor: str, listed_before: bool, steps: list[Step]) -> str:
    ok = all(step.status == "passed" for step in steps)
    out = [f"# torch-canary: torch {version}, vendor {vendor}", ""]
    if listed_before:
        out.append(f"torch {version} is in .ci/torch_versions already: this checked it as listed.")
    for step in steps:
        timing = f" in {step.seconds:.0f} s" if step.status != "not run" else ""
        out.append(f"- {step.title}: {step.status}{timing}")
        out.extend(f"    {line}" for line in step.findings[:40])
        if len(step.findings) > 40:
            out.append(f"    ... {len(step.findings) - 40} more in {os.path.relpath(step.log, REPO)}")
    out.append("")
    if listed_before:
        return "\n".join(out)
    line = f"{version} | - | <why it is listed: the newest release, ...>"
    if ok:
        out += ["Everything passed. To support it, add this line to .ci/torch_versions (and any extras, such as",
                "torchvision, that exist for it):", f"  {line}"]
    else:
        out += ["Fix what failed above (each step's log is named above), then add to .ci/torch_versions:",
                f"  {line}"]
    return "\n".join(out)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--torch", default="", help="the release to try (default: the newest on the index)")
    parser.add_argument("--vendor", default="mlu")
    args = parser.parse_args(argv)
    version = torch_versions.public_version(args.torch) if args.torch else newest_on_index()
    if not os.path.exists(os.path.join(REPO, "specs", f"{args.vendor}.yaml")):
        print(f"torch-canary: no spec for vendor {args.vendor!r} (specs/*.yaml)", file=sys.stderr)
        return 2
    work = os.path.join(REPO, "build", "canary", f"torch-{version}")
    repo = clone(work)
    listed_before = not list_release(repo, version)
    at = f"TORCH={version}"
    steps = [
        Step("setup", ["make", "-s", "setup", at]),
        Step("generate every vendor", ["make", "-s", "check-generated", at], needs="setup"),
        Step(f"build {args.vendor}", ["make", "-s", "backend", f"VENDOR={args.vendor}", at],
             needs="generate every vendor"),
        Step("C++ suite", ["make", "-s", "test-cpp", f"VENDOR={args.vendor}", at], needs=f"build {args.vendor}"),
        Step("Python suite", ["make", "-s", "test-python", f"VENDOR={args.vendor}", at],
             needs=f"build {args.vendor}"),
        Step("ATen diff from the default torch", ["make", "-s", "diff-torch", f"TO={version}"], needs="setup",
             read=diff_findings),
    ]
    passed: set[str] = set()
    for step in steps:
        run_step(step, repo, work, passed)
    text = report(version, args.vendor, listed_before, steps)
    with open(os.path.join(work, "report.md"), "w") as f:
        f.write(text + "\n")
    print(text)
    print(f"\n(report: {os.path.relpath(os.path.join(work, 'report.md'), REPO)})")
    return 0 if all(step.status == "passed" for step in steps) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
