"""What torch 2.15's graph-capture check costs an optimizer step on the device.

From 2.15, Adam's and AdamW's step() ask every accelerator whether its current stream is
capturing a graph (`torch.accelerator.current_stream().is_capturing()`); 2.14 asked CUDA
only. For each torch release given (default: 2.14.1 and 2.15.0, each with its own
interpreter and backend build), in one run, interleaved: the median time of the check
alone and of a whole AdamW step of a small MLP on the device, and the check's share of
the step; then each release's step time against the first's.

    TORCH_FL_VENDOR=mlu python3 bench/capture_check_bench.py [--torch 2.14.1 2.15.0] [--rounds 5]

Each release needs `make backend VENDOR=<vendor> TORCH=<release>` first.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Run by each release's interpreter: one round of measurements, as JSON.
MEASURE = r"""
import json, time, warnings
import torch, torch_fl
torch.manual_seed(0)
device = torch_fl.device()
model = torch.nn.Sequential(*[torch.nn.Linear(256, 256) for _ in range(4)]).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
x = torch.randn(64, 256, device=device)
check = getattr(optimizer, "_accelerator_graph_capture_health_check", None) or \
    optimizer._cuda_graph_capture_health_check

def per_call(fn, calls):
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls * 1e6

def step():
    optimizer.zero_grad(set_to_none=True)
    model(x).square().mean().backward()
    optimizer.step()

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    for _ in range(5):
        step()
    torch.accelerator.synchronize()
    check_us = per_call(check, 20000)
    start = time.perf_counter()
    for _ in range(50):
        step()
    torch.accelerator.synchronize()
    step_us = (time.perf_counter() - start) / 50 * 1e6
print("RESULT " + json.dumps({"torch": torch.__version__, "check_us": check_us, "step_us": step_us}))
"""


def interpreter(release: str) -> str:
    run = subprocess.run(["make", "-s", "--no-print-directory", "python-path", f"TORCH={release}"], cwd=REPO,
                         capture_output=True, text=True, check=True)
    return run.stdout.strip().splitlines()[-1]


def one_round(python: str) -> dict:
    run = subprocess.run([python, "-c", MEASURE], capture_output=True, text=True, timeout=600,
                         env=dict(os.environ, TORCH_FL_FALLBACK="silent"))
    lines = [line for line in run.stdout.splitlines() if line.startswith("RESULT ")]
    if run.returncode != 0 or not lines:
        raise SystemExit(f"{python}: the measurement failed:\n{run.stderr[-2000:]}")
    return json.loads(lines[-1][len("RESULT "):])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--torch", nargs="+", default=["2.14.1", "2.15.0"])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    pythons = {release: interpreter(release) for release in args.torch}
    rounds: dict[str, list[dict]] = {release: [] for release in args.torch}
    for _ in range(args.rounds):  # interleaved: load on the machine falls on every release alike
        for release, python in pythons.items():
            rounds[release].append(one_round(python))
    vendor = os.environ.get("TORCH_FL_VENDOR", "mlu")
    print(f"AdamW on {vendor} (4 x Linear(256, 256), batch 64), medians of {args.rounds} rounds:")
    print(f"{'torch':16} {'check (us)':>11} {'step (us)':>10} {'check/step':>11} {'step vs first':>14}")
    first_step = None
    for release in args.torch:
        check = statistics.median(r["check_us"] for r in rounds[release])
        step = statistics.median(r["step_us"] for r in rounds[release])
        first_step = first_step or step
        print(f"{rounds[release][0]['torch']:16} {check:11.2f} {step:10.1f} {check / step:11.2%} "
              f"{step / first_step:13.2f}x")


if __name__ == "__main__":
    main()
