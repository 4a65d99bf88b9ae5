"""What autoload adds to `import torch`: an installed Torch-FL wheel against
TORCH_DEVICE_BACKEND_AUTOLOAD=0, in fresh processes, interleaved.

    python bench/import_bench.py [--python VENV/bin/python] [--runs 21]

The interpreter must have a Torch-FL wheel installed (`make bench-import` makes a
temporary venv with this vendor's wheel and runs this). Each process times its own
`import torch` (interpreter start-up excluded); the two settings alternate, so
machine load hits both alike. A third figure isolates the hook: with autoload off,
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

TIME_IMPORT = ("import time; t = time.perf_counter(); import torch; "
               "print(1e3 * (time.perf_counter() - t))")
TIME_HOOK = ("import torch, time, sys; t = time.perf_counter(); torch._import_device_backends(); "
             "print(1e3 * (time.perf_counter() - t)); sys.stderr.write(str(hasattr(torch, 'mlu') or "
             "hasattr(torch, 'npu') or hasattr(torch, 'nvgpu')))")
CHECK = ("import importlib.metadata as m, json; "
         "print(json.dumps(sorted(e.value for e in m.entry_points(group='torch.backends'))))")


def run(python: str, code: str, autoload: bool) -> tuple[float, str]:
    env = dict(os.environ, TORCH_DEVICE_BACKEND_AUTOLOAD="1" if autoload else "0")
    result = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    if result.returncode != 0:
        raise SystemExit(f"import_bench: {python} -c {code!r} failed:\n{result.stderr}")
    return float(result.stdout.strip().splitlines()[-1]), result.stderr


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

    with_autoload, without, hook = [], [], []
    for _ in range(args.runs):
        with_autoload.append(run(args.python, TIME_IMPORT, autoload=True)[0])
        without.append(run(args.python, TIME_IMPORT, autoload=False)[0])
        elapsed, registered = run(args.python, TIME_HOOK, autoload=False)
        if registered.strip() != "True":
            raise SystemExit("import_bench: the autoload hook registered no device")
        hook.append(elapsed)

    figures = {"runs": args.runs, "import_torch_ms": statistics.median(without),
               "import_torch_autoload_ms": statistics.median(with_autoload),
               "added_ms": statistics.median(with_autoload) - statistics.median(without),
               "hook_ms": statistics.median(hook), "target_ms": 10.0}
    print(f"import torch, median of {args.runs} fresh processes each (interleaved), {args.python}")
    print(f"{'autoload off':>16} {'autoload on':>12} {'added':>9} {'hook alone':>11}")
    print(f"{figures['import_torch_ms']:>13.1f} ms {figures['import_torch_autoload_ms']:>9.1f} ms "
          f"{figures['added_ms']:>+6.1f} ms {figures['hook_ms']:>8.2f} ms   (target: at most 10 ms added)")
    spread = statistics.quantiles(without, n=4)
    print(f"noise: autoload-off quartiles {spread[0]:.0f}..{spread[2]:.0f} ms; 'hook alone' times "
          "torch._import_device_backends() in-process, which is what autoload adds")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=2)


if __name__ == "__main__":
    main()
