"""What autoload adds to `import torch`: an installed Torch-FL wheel against
TORCH_DEVICE_BACKEND_AUTOLOAD=0, in fresh processes, interleaved.

    python bench/import_bench.py [--python VENV/bin/python] [--runs 21]

The interpreter must have a Torch-FL wheel installed (`make bench-import` makes a
temporary venv with this vendor's wheel and runs this). Each process times its own
`import torch` (interpreter start-up excluded); the two settings alternate, so
machine load hits both alike. Wall and CPU time
are both shown (CPU time suffers less from a busy machine). A third figure isolates the hook: with autoload off,
the time of torch._import_device_backends() called after `import torch` (the
entry-point scan plus the hook), which is what autoload adds, with far less noise.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

TIME_IMPORT = ("import time; t, c = time.perf_counter(), time.process_time(); import torch; "
               "print(1e3 * (time.perf_counter() - t), 1e3 * (time.process_time() - c))")
TIME_HOOK = ("import torch, time, sys; t = time.perf_counter(); torch._import_device_backends(); "
             "print(1e3 * (time.perf_counter() - t)); sys.stderr.write(str(hasattr(torch, 'mlu') or "
             "hasattr(torch, 'npu') or hasattr(torch, 'nvgpu')))")
CHECK = ("import importlib.metadata as m, json; "
         "print(json.dumps(sorted(e.value for e in m.entry_points(group='torch.backends'))))")


def run(python: str, code: str, autoload: bool) -> tuple[list[float], str]:
    env = dict(os.environ, TORCH_DEVICE_BACKEND_AUTOLOAD="1" if autoload else "0")
    result = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    if result.returncode != 0:
        raise SystemExit(f"import_bench: {python} -c {code!r} failed:\n{result.stderr}")
    return [float(x) for x in result.stdout.strip().splitlines()[-1].split()], result.stderr


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=sys.executable, help="interpreter with a Torch-FL wheel installed")
    parser.add_argument("--runs", type=int, default=21, help="fresh processes per setting (at least 20)")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    if args.runs < 20:
        parser.error("--runs: at least 20 processes per setting")
    hooks = json.loads(subprocess.run([args.python, "-c", CHECK], capture_output=True, text=True,
                                      env=dict(os.environ, TORCH_DEVICE_BACKEND_AUTOLOAD="0")).stdout or "[]")
    if not any(hook.startswith("torch_fl_autoload") for hook in hooks):
        raise SystemExit(f"import_bench: no Torch-FL wheel in {args.python} (torch.backends entry points: "
                         f"{hooks or 'none'}); `make bench-import` installs one into a temporary venv")

    runs = {"on": [], "off": []}  # (wall ms, CPU ms) per process
    hook = []
    for _ in range(args.runs):
        runs["on"].append(run(args.python, TIME_IMPORT, autoload=True)[0])
        runs["off"].append(run(args.python, TIME_IMPORT, autoload=False)[0])
        elapsed, registered = run(args.python, TIME_HOOK, autoload=False)
        if registered.strip() != "True":
            raise SystemExit("import_bench: the autoload hook registered no device")
        hook.append(elapsed[0])

    def median(setting: str, column: int) -> float:
        return statistics.median(r[column] for r in runs[setting])

    figures = {"runs": args.runs, "target_added_ms": 10.0, "hook_ms": statistics.median(hook)}
    print(f"import torch, median of {args.runs} fresh processes each (interleaved), {args.python}")
    print(f"{'':>10} {'autoload off':>13} {'autoload on':>12} {'added':>9}")
    for column, clock in enumerate(("wall", "CPU")):
        off, on = median("off", column), median("on", column)
        figures[f"{clock.lower()}_off_ms"], figures[f"{clock.lower()}_on_ms"] = off, on
        figures[f"{clock.lower()}_added_ms"] = on - off
        quartiles = statistics.quantiles([r[column] for r in runs["off"]], n=4)
        print(f"{clock + ' time':>10} {off:>10.1f} ms {on:>9.1f} ms {on - off:>+6.1f} ms"
              f"   (autoload-off quartiles {quartiles[0]:.0f}..{quartiles[2]:.0f} ms)")
    print(f"{'hook':>10} {figures['hook_ms']:>10.2f} ms: torch._import_device_backends() timed in-process "
          "(entry-point scan + hook), what autoload adds without the noise; target: at most 10 ms added")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=2)


if __name__ == "__main__":
    main()
