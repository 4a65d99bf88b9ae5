"""Generator and build benchmark (`make bench`): generation time, full build
time, and the rebuild after a one-op spec change, measured in one run on a
scratch copy of the repository (the checkout itself is not touched).

Prints a table and writes build/bench/codegen.json.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from bench_report import write_report  # noqa: E402  (bench/ is the script's folder)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COPIED = ("codegen", "specs", "templates", "generated", "runtime", "vendors", "tests", "CMakeLists.txt")


def timed(command: list[str], cwd: str, env: dict) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"bench: {' '.join(command)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return time.perf_counter() - started, done.stdout


def compiled_objects(ninja_output: str) -> list[str]:
    return re.findall(r"Building CXX object (\S+)", ninja_output)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--vendor", default="mlu")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--generate-runs", type=int, default=5)
    args = parser.parse_args()

    scratch = tempfile.mkdtemp(prefix="torch-fl-bench-")
    try:
        for name in COPIED:
            source = os.path.join(REPO, name)
            target = os.path.join(scratch, name)
            (shutil.copytree if os.path.isdir(source) else shutil.copy2)(source, target)
        env = dict(os.environ, CCACHE_DISABLE="1")  # measure compilation, not the cache
        python = sys.executable

        generate = [python, "-m", "codegen", "generate", "--vendor", args.vendor]
        generation = min(timed(generate, scratch, env)[0] for _ in range(args.generate_runs))

        build_dir = os.path.join(scratch, "build", args.vendor)
        timed(["cmake", "-S", ".", "-B", build_dir, "-G", "Ninja", f"-DTORCH_FL_VENDOR={args.vendor}",
               f"-DPython3_EXECUTABLE={python}"], scratch, env)
        full_build, full_log = timed(["cmake", "--build", build_dir, "-j", str(args.jobs)], scratch, env)

        # One op's entry changes: mm loses bfloat16.
        spec_path = os.path.join(scratch, "specs", f"{args.vendor}.yaml")
        with open(spec_path) as f:
            text = f.read()
        pattern = re.compile(r"^(  mm: .*dtypes: \[float32, float16), bfloat16\]", re.M)
        edited, count = pattern.subn(r"\1]", text)
        if count != 1:
            sys.exit("bench: could not find the mm entry to edit")
        with open(spec_path, "w") as f:
            f.write(edited)
        regenerate, _ = timed(generate, scratch, env)
        rebuild, rebuild_log = timed(["cmake", "--build", build_dir, "-j", str(args.jobs)], scratch, env)
        rebuilt = compiled_objects(rebuild_log)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    results = {
        "vendor": args.vendor,
        "generation_s": round(generation, 3),
        "full_build_s": round(full_build, 1),
        "full_build_objects": len(compiled_objects(full_log)),
        "one_op_regenerate_s": round(regenerate, 3),
        "one_op_rebuild_s": round(rebuild, 1),
        "one_op_rebuilt_objects": [os.path.basename(o) for o in rebuilt],
        "jobs": args.jobs,
    }
    print(f"{'measure':<34} {'value':>12}")
    print(f"{'generation (best of %d)' % args.generate_runs:<34} {generation:>10.2f} s")
    print(f"{'full build (ccache off)':<34} {full_build:>10.1f} s  ({results['full_build_objects']} objects, "
          f"{args.jobs} jobs)")
    print(f"{'one-op change: regenerate':<34} {regenerate:>10.2f} s")
    print(f"{'one-op change: rebuild':<34} {rebuild:>10.1f} s  (recompiled: "
          f"{', '.join(results['one_op_rebuilt_objects'])})")
    write_report("codegen.json", results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
