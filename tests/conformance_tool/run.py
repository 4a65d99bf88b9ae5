"""make conformance VENDOR=x: verify every native overload × dtype of the
vendor's spec against CPU with PyTorch's OpInfo samples.

Writes build/<vendor>/conformance.json and the verified support matrix
(build/<vendor>/support_matrix.{json,md,html}). Exits 1 if a declared-native
overload is FAILED without a `known_failure` entry in the spec.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, REPO_ROOT)

import verified_matrix  # noqa: E402
from selection import RANDOM_OVERLOADS, native_overloads, select_opinfos  # noqa: E402
from verdicts import FAILED, UNTESTED, decide  # noqa: E402

from codegen import matrix  # noqa: E402
from codegen.__main__ import load_plan  # noqa: E402

def run_worker(python: str, opinfo: str, dtypes: set[str], overloads: set[str],
               timeout: int) -> tuple[str, list[dict], str]:
    env = dict(os.environ, TORCH_FL_FALLBACK="silent")
    command = [python, os.path.join(HERE, "worker.py"), "--opinfo", opinfo, "--dtypes", ",".join(sorted(dtypes)),
               "--overloads", ",".join(sorted(overloads))]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env, cwd=REPO_ROOT)
    except subprocess.TimeoutExpired as expired:
        out = expired.stdout.decode() if isinstance(expired.stdout, bytes) else (expired.stdout or "")
        problem = f"timed out after {timeout} s"
        hang = {"opinfo": opinfo.split(":")[0], "variant": opinfo.partition(":")[2], "dtype": "", "sample": -1,
                "phase": "timeout", "ok": False, "error": problem,
                "invoked": [[o, d] for o in overloads for d in dtypes], "fallbacks": []}
        return opinfo, [r for r in _records(out) if not r.get("done")] + [hang], problem
    records = _records(done.stdout)
    finished = any(r.get("done") for r in records)
    records = [r for r in records if not r.get("done")]
    problem = ""
    if done.returncode != 0:
        problem = (f"exited {done.returncode} after finishing all samples" if finished else
                   f"crashed (exit {done.returncode})") + f": {done.stderr.strip()[-300:]}"
        if not finished:
            # A crash while running samples fails every overload this OpInfo was meant to reach.
            records.append({"opinfo": opinfo.split(":")[0], "variant": opinfo.partition(":")[2], "dtype": "",
                            "sample": -1, "phase": "crash", "ok": False, "error": problem,
                            "invoked": [[o, d] for o in overloads for d in dtypes], "fallbacks": []})
    return opinfo, records, problem


def _records(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


def check_custom_ops(declared: dict, vendor: str) -> list[dict]:
    """Vendor ops against their CPU reference, forward and backward, through the
    tests that compare them (tests/python/test_custom_ops.py), in a subprocess."""
    results = []
    for op in declared.get("custom_ops", []):
        if not op.get("reference"):
            results.append({"name": f"{vendor}::{op['name']}", "verdict": UNTESTED, "detail": "no CPU reference"})
            continue
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               os.path.join(REPO_ROOT, "tests", "python", "test_custom_ops.py"), "-k", op["name"]],
                              capture_output=True, text=True, cwd=REPO_ROOT)
        verdict = "STRICT" if done.returncode == 0 else FAILED
        summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-200:]
        results.append({"name": f"{vendor}::{op['name']}", "verdict": verdict,
                        "detail": f"forward, backward and gradcheck vs torch_fl.references.{op['reference']} "
                                  f"in float32: {summary}"})
    return results


def git_commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=REPO_ROOT).stdout.strip()
    except OSError:
        return "unknown"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--vendor", required=True)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--timeout", type=int, default=300, help="seconds per OpInfo")
    parser.add_argument("--generated", default=os.path.join(REPO_ROOT, "generated"),
                        help="codegen's output for this torch (make passes build/torch-<v>/generated for another)")
    parser.add_argument("--out-dir", help="where conformance.json and the verified matrix go (default build/<vendor>)")
    args = parser.parse_args()

    devices = subprocess.run([sys.executable, "-c", "import torch_fl; print(torch_fl.device_count())"],
                             capture_output=True, text=True, env=dict(os.environ, TORCH_FL_VENDOR=args.vendor))
    if devices.returncode == 0 and devices.stdout.strip() == "0":
        print(f"conformance: skipped: no {args.vendor} device on this machine (nothing can be verified)")
        return 0
    started = time.time()
    declared_path = os.path.join(args.generated, args.vendor, "support_matrix.json")
    with open(declared_path) as f:
        declared = json.load(f)
    native = native_overloads(declared)
    known = {row["name"]: row.get("known_failure") for row in declared["ops"]}
    opinfos = select_opinfos(native)

    records: list[dict] = []
    worker_problems: dict[str, str] = {}
    print(f"conformance[{args.vendor}]: {len(native)} native overloads, {len(opinfos)} OpInfos, "
          f"{args.jobs} workers", flush=True)
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(run_worker, sys.executable, name, dtypes, overloads, args.timeout)
                   for name, (dtypes, overloads) in sorted(opinfos.items())]
        for done_count, future in enumerate(concurrent.futures.as_completed(futures), 1):
            name, recs, problem = future.result()
            records += recs
            if problem:
                worker_problems[name] = problem
            elapsed = time.time() - started
            eta = elapsed / done_count * (len(futures) - done_count)
            failed = sum(1 for r in recs if not r["ok"])
            print(f"  [{done_count:>3}/{len(futures)}] {name:<40} {len(recs):>4} phases, {failed} failed"
                  f"{' — ' + problem if problem else ''}   ({elapsed:.0f} s, ~{eta:.0f} s left)", flush=True)

    results = []
    for overload in sorted(native):
        for dtype in sorted(native[overload]):
            verdict = decide(overload, dtype, records, known.get(overload))
            if verdict.verdict == UNTESTED and overload.split(".")[0] in RANDOM_OVERLOADS:
                verdict.detail = "random op: checked for reproducibility by tests/python, not against CPU"
            results.append(verdict)

    custom_results = check_custom_ops(declared, args.vendor)
    counts = {v: sum(1 for r in results if r.verdict == v) for v in ("STRICT", "BASIC", "FAILED", "UNTESTED")}
    total = len(results)
    overload_verdicts: dict[str, list[str]] = {}
    for r in results:
        overload_verdicts.setdefault(r.overload, []).append(r.verdict)
    strict_overloads = sum(1 for vs in overload_verdicts.values() if all(v == "STRICT" for v in vs))
    basic_overloads = sum(1 for vs in overload_verdicts.values() if all(v in ("STRICT", "BASIC") for v in vs))
    report = {
        "vendor": args.vendor,
        "provenance": {
            "torch_version": declared["torch_version"],
            "spec": declared["spec"],
            "spec_sha256": declared["spec_sha256"],
            "commit": git_commit(),
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "seconds": round(time.time() - started, 1),
        },
        "headline": {
            "native_overloads": len(overload_verdicts),
            "strict_overloads": strict_overloads,
            "basic_or_better_overloads": basic_overloads,
            "strict_percent": round(100.0 * strict_overloads / max(1, len(overload_verdicts)), 1),
            "basic_or_better_percent": round(100.0 * basic_overloads / max(1, len(overload_verdicts)), 1),
            "pairs": total,
            **{f"{k.lower()}_pairs": v for k, v in counts.items()},
        },
        "worker_problems": worker_problems,
        "custom_ops": custom_results,
        "results": [r.__dict__ for r in results],
    }
    out_dir = args.out_dir or os.path.join(REPO_ROOT, "build", args.vendor)
    os.makedirs(out_dir, exist_ok=True)
    out_path = os.path.join(out_dir, "conformance.json")
    with open(out_path, "w") as f:
        json.dump(report, f, indent=2)
        f.write("\n")

    plan = load_plan(os.path.join(REPO_ROOT, "specs", f"{args.vendor}.yaml"), REPO_ROOT)
    verified_matrix.write(matrix.build(plan), out_path, plan.spec_path, out_dir, REPO_ROOT)

    print(f"\n{'verdict':<10} {'pairs':>6}")
    for verdict, count in counts.items():
        print(f"{verdict:<10} {count:>6}")
    print(f"overloads: {strict_overloads}/{len(overload_verdicts)} STRICT "
          f"({report['headline']['strict_percent']}%), {basic_overloads} BASIC or better "
          f"({report['headline']['basic_or_better_percent']}%); {time.time() - started:.0f} s")
    gating = [r for r in results if r.verdict == FAILED and not r.known_failure]
    gating += [c for c in custom_results if c["verdict"] == FAILED]
    for c in custom_results:
        print(f"  vendor op {c['name']}: {c['verdict']} ({c['detail']})")
    for r in results:
        if r.verdict == FAILED:
            tag = f"known failure: {r.known_failure}" if r.known_failure else "FAILED"
            print(f"  {tag}: {r.overload} [{r.dtype}] {r.detail}")
    for name, problem in worker_problems.items():
        print(f"  worker problem: {name}: {problem}")
    print(f"wrote {os.path.relpath(out_path, REPO_ROOT)} and {os.path.relpath(out_dir, REPO_ROOT)}/"
          "support_matrix.{json,md,html}")
    return 1 if gating else 0


if __name__ == "__main__":
    sys.exit(main())
