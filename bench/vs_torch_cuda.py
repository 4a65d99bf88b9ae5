"""GPU benchmark of a real vendor (`make bench VENDOR=nvidia`): the same work on
Torch-FL's device (e.g. "nvgpu", PrivateUse1) and on native torch.cuda, side by
side in one run, on one GPU. Writes build/bench/vs_torch_cuda.json.

  matmul_tflops_{bf16,fp32}   4096³ matmul
  add_gbps                    elementwise add of 64M float32
  launch_us                   host time per tiny op (add of 16 floats), launch-bound
  train_step_ms               a small transformer training step (AdamW)

Without a device of the vendor, or without a CUDA build of torch for the
baseline, it says which and exits 0: it measures nothing it cannot compare.
"""
from __future__ import annotations

import json
import os
import sys
import time

import torch

import torch_fl

from bench_report import write_report  # noqa: E402  (bench/ is the script's folder)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests", "python"))


def timed(fn, sync, repeats: int = 20) -> float:
    fn()
    sync()
    started = time.perf_counter()
    for _ in range(repeats):
        fn()
    sync()
    return (time.perf_counter() - started) / repeats


def measure(device: torch.device, sync) -> dict[str, float]:
    results = {}
    for dtype, name in ((torch.bfloat16, "bf16"), (torch.float32, "fp32")):
        a = torch.randn(4096, 4096, dtype=dtype, device=device)
        b = torch.randn(4096, 4096, dtype=dtype, device=device)
        seconds = timed(lambda: torch.mm(a, b), sync)
        results[f"matmul_tflops_{name}"] = 2 * 4096 ** 3 / seconds / 1e12
    x = torch.randn(64 << 20, device=device)
    y = torch.randn(64 << 20, device=device)
    seconds = timed(lambda: torch.add(x, y), sync)
    results["add_gbps"] = 3 * x.nbytes / seconds / 1e9
    t = torch.randn(16, device=device)
    results["launch_us"] = timed(lambda: torch.add(t, t), sync, repeats=2000) * 1e6

    import models  # tests/python/models.py: the GPT-style decoder of the training tests
    torch.manual_seed(0)
    model = models.TinyGPT().to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    tokens, targets = (z.to(device) for z in models.token_batch())

    def step():
        opt.zero_grad()
        models.language_model_loss(model, tokens, targets).backward()
        opt.step()

    results["train_step_ms"] = timed(step, sync, repeats=10) * 1e3
    return results


def main() -> int:
    vendor = torch_fl.vendor()
    if torch_fl.device_count() == 0:
        print(f"vs_torch_cuda: skipped: no {vendor} device on this machine")
        return 0
    if not torch.cuda.is_available():
        print(f"vs_torch_cuda: skipped: this torch ({torch.__version__}) has no CUDA build to compare against")
        return 0
    device = torch_fl.device(0)
    ours = measure(device, getattr(torch, device.type).synchronize)
    native = measure(torch.device("cuda", 0), torch.cuda.synchronize)
    print(f"{'metric':<22}{device.type:>14}{'torch.cuda':>14}{'ratio':>10}")
    for key in ours:
        print(f"{key:<22}{ours[key]:>14.3f}{native[key]:>14.3f}{ours[key] / native[key]:>10.3f}")
    write_report("vs_torch_cuda.json", {"vendor": vendor, "ours": ours, "torch_cuda": native})
    return 0


if __name__ == "__main__":
    sys.exit(main())
