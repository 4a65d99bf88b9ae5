"""Instructions per tiny op, device path against CPU path, counted by
valgrind's callgrind in one run (`make bench-instructions`).

Wall-clock ratios on a shared machine move with its load; instruction counts
do not. The script re-runs itself under `valgrind --tool=callgrind` with
collection off; the child warms each op up, then for each op and each path
turns collection on around CALLS calls (the device path ends with a
synchronize, so the queue's worker threads' share is counted too) and dumps
one part per region. The parent reads the parts (callgrind_profile.py) and
prints, per op, the instructions per call on CPU and on the device, the
instructions the device path adds, and where the added instructions go: by
library and by function (self cost, device minus CPU, summed over the ops).

The simulated chip's idle workers do not spin here (TORCH_FL_<CHIP>_SPIN_US=0):
a spin's length depends on the clock, its instruction count is noise.
Writes build/bench/instructions_<vendor>.json.
"""
from __future__ import annotations

import argparse
import collections
import glob
import os
import shutil
import subprocess
import sys
import tempfile

from bench_report import write_report  # noqa: E402  (bench/ is the script's folder)
from callgrind_profile import Function, Profile, read_profile

CALLS = 200
WARM_UP = 50
PATHS = ("cpu", "device")


def run_child(calls: int, op_names: list[str]) -> int:
    """Runs under callgrind: one dumped part per (op, path), in the order printed."""
    import torch
    import torch_fl
    from tiny_ops import TINY_OPS, tiny_operands

    device = torch_fl.device(0)
    synchronize = getattr(torch, device.type).synchronize
    on_cpu = tiny_operands()
    operands = {"cpu": on_cpu, "device": on_cpu.to(device)}
    for name in op_names:
        op = TINY_OPS[name]
        for path in PATHS:
            inputs = operands[path]
            for _ in range(WARM_UP):
                op(inputs)
            synchronize()
            torch._C._valgrind_toggle()
            for _ in range(calls):
                op(inputs)
            if path == "device":
                synchronize()
            torch._C._valgrind_toggle_and_dump_stats()
            print(f"region {name} {path}", flush=True)
    return 0


def profile_parts(out_file: str, regions: list[tuple[str, str]]) -> dict[tuple[str, str], Profile]:
    """callgrind numbers the parts dumped by client request .1, .2, ... in dump order."""
    profiles = {}
    for index, region in enumerate(regions, start=1):
        profiles[region] = read_profile(f"{out_file}.{index}")
    return profiles


def added(device: collections.Counter, cpu: collections.Counter) -> collections.Counter:
    difference: collections.Counter = collections.Counter(device)
    difference.subtract(cpu)
    return difference


def run_parent(vendor: str, calls: int, op_names: list[str], top: int) -> int:
    if shutil.which("valgrind") is None:
        print("instruction_bench: skipped: valgrind is not installed (make setup installs it)")
        return 0
    import torch
    import torch_fl
    if torch_fl.device_count() == 0:
        print(f"instruction_bench: skipped: no {vendor} device on this machine")
        return 0
    if not torch._C._valgrind_supported_platform():
        print("instruction_bench: skipped: this torch was built without valgrind client requests")
        return 0
    env = dict(os.environ, TORCH_FL_VENDOR=vendor, TORCH_FL_FALLBACK="silent",
               **{f"TORCH_FL_{vendor.upper()}_SPIN_US": "0"}, OMP_NUM_THREADS="1")
    with tempfile.TemporaryDirectory(prefix="tfl-callgrind-") as scratch:
        out_file = os.path.join(scratch, "callgrind.out")
        command = ["valgrind", "--tool=callgrind", "--collect-atstart=no", f"--callgrind-out-file={out_file}",
                   sys.executable, os.path.abspath(__file__), "--child", "--calls", str(calls),
                   "--ops", ",".join(op_names)]
        child = subprocess.run(command, env=env, capture_output=True, text=True)
        regions = [tuple(line.split()[1:3]) for line in child.stdout.splitlines() if line.startswith("region ")]
        if child.returncode != 0 or len(regions) != len(op_names) * len(PATHS):
            sys.stderr.write(child.stderr[-4000:])
            print(f"instruction_bench: the callgrind child failed (exit {child.returncode})")
            return 1
        profiles = profile_parts(out_file, regions)

    rows = {}
    by_function: collections.Counter = collections.Counter()
    by_library: collections.Counter = collections.Counter()
    for name in op_names:
        cpu, dev = profiles[(name, "cpu")], profiles[(name, "device")]
        rows[name] = {"cpu_instructions": round(cpu.total / calls), "device_instructions": round(dev.total / calls),
                      "added_instructions": round((dev.total - cpu.total) / calls),
                      "ratio": round(dev.total / cpu.total, 2)}
        by_function.update(added(dev.self_cost, cpu.self_cost))
        by_library.update(added(dev.by_library(), cpu.by_library()))
    per_op = calls * len(op_names)
    ratios = sorted(row["ratio"] for row in rows.values())
    median_ratio = ratios[len(ratios) // 2]
    added_sorted = sorted(row["added_instructions"] for row in rows.values())
    median_added = added_sorted[len(added_sorted) // 2]

    print(f"instructions per call, {vendor} against CPU ({calls} calls per op under callgrind)")
    print(f"  {'op':<12} {'CPU':>9} {'device':>9} {'added':>9}  ratio")
    for name, row in rows.items():
        print(f"  {name:<12} {row['cpu_instructions']:>9,} {row['device_instructions']:>9,} "
              f"{row['added_instructions']:>9,}  x{row['ratio']}")
    print(f"median ratio x{median_ratio}; median added instructions per op: {median_added:,}")
    print("added instructions per op, by library:")
    for library, cost in by_library.most_common(8):
        print(f"  {cost / per_op:>9,.0f}  {library}")
    print(f"added instructions per op, top {top} functions (self cost, device minus CPU):")
    top_functions = by_function.most_common(top)
    for function, cost in top_functions:
        print(f"  {cost / per_op:>9,.0f}  {function.name[:110]}  [{function.library}]")

    write_report(f"instructions_{vendor}.json", {
        "vendor": vendor, "calls_per_op": calls, "ops": rows, "median_ratio": median_ratio,
        "median_added_instructions": median_added,
        "added_by_library": {library: round(cost / per_op) for library, cost in by_library.most_common()
                             if cost / per_op >= 1},
        "added_by_function": [{"function": function.name, "library": function.library,
                               "instructions_per_op": round(cost / per_op)} for function, cost in top_functions],
    })
    return 0


def main() -> int:
    from tiny_ops import TINY_OPS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=CALLS, help="calls per op and path inside a region")
    parser.add_argument("--ops", default=",".join(TINY_OPS), help="comma-separated names from bench/tiny_ops.py")
    parser.add_argument("--top", type=int, default=15, help="functions listed")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    op_names = [name for name in args.ops.split(",") if name]
    unknown = [name for name in op_names if name not in TINY_OPS]
    if unknown:
        parser.error(f"unknown ops {unknown}; the set is {list(TINY_OPS)}")
    if args.child:
        return run_child(args.calls, op_names)
    vendor = os.environ.get("TORCH_FL_VENDOR", "mlu")
    return run_parent(vendor, args.calls, op_names, args.top)


if __name__ == "__main__":
    sys.exit(main())
