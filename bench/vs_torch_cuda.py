"""GPU benchmark of a real vendor (`make bench VENDOR=nvidia`): the same work on
Torch-FL's device (e.g. "nvgpu", PrivateUse1) and on native torch.cuda, side by
side in one run, on one GPU. Writes build/bench/vs_torch_cuda.json.

  matmul_tflops_{bf16,fp32}   4096³ matmul
  matmul_nt_tflops_bf16       4096³ x @ w.t() (linear's form: cuBLAS transposes w, no copy)
  add_gbps                    elementwise add of 64M float32 (the contiguous, vectorized path)
  scale_gbps                  x * 2.0 on 64M float32 (a Python number, by value)
  softmax_gbps                softmax over rows of 4096 (bf16, 16384 rows)
  launch_us                   host time per tiny op (add of 16 floats), launch-bound
  train_step_ms               a small transformer training step (AdamW)

`--smoke` runs the measurements on any device of the vendor at tiny sizes, without a
comparison. The device's step must run with zero CPU fallbacks (train_step_fallbacks; the
fair comparison of #17): the report lists any, and the run exits 1 with them.

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


def measure(device: torch.device, sync, size: int = 4096) -> dict[str, float]:
    """Every metric on `device`; `size` (the GEMM's n, a 64M-element vector at 4096) smaller
    for `--smoke`, which runs this code on a simulated chip without a GPU."""
    results = {}
    for dtype, name in ((torch.bfloat16, "bf16"), (torch.float32, "fp32")):
        a = torch.randn(size, size, dtype=dtype, device=device)
        b = torch.randn(size, size, dtype=dtype, device=device)
        seconds = timed(lambda: torch.mm(a, b), sync)
        results[f"matmul_tflops_{name}"] = 2 * size ** 3 / seconds / 1e12
        if name == "bf16":
            seconds = timed(lambda: torch.mm(a, b.t()), sync)
            results["matmul_nt_tflops_bf16"] = 2 * size ** 3 / seconds / 1e12
    x = torch.randn(size * size * 4, device=device)
    y = torch.randn(size * size * 4, device=device)
    seconds = timed(lambda: torch.add(x, y), sync)
    results["add_gbps"] = 3 * x.nbytes / seconds / 1e9
    seconds = timed(lambda: x * 2.0, sync)
    results["scale_gbps"] = 2 * x.nbytes / seconds / 1e9
    rows = torch.randn(4 * size, size, dtype=torch.bfloat16, device=device)
    seconds = timed(lambda: torch.softmax(rows, dim=-1), sync)
    results["softmax_gbps"] = 2 * rows.nbytes / seconds / 1e9
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

    if device.type != "cuda":
        torch_fl.reset_fallback_stats()
    results["train_step_ms"] = timed(step, sync, repeats=10) * 1e3
    if device.type != "cuda":
        results["train_step_fallbacks"] = float(torch_fl.fallback_count())
    return results


def main() -> int:
    vendor = torch_fl.vendor()
    if "--smoke" in sys.argv[1:] and torch_fl.device_count() > 0:
        # This script's own code on any device, tiny sizes, nothing compared: for a
        # machine without a GPU, before device time is spent on it.
        device = torch_fl.device(0)
        print(json.dumps(measure(device, getattr(torch, device.type).synchronize, size=64), indent=1))
        return 0
    if torch_fl.device_count() == 0:
        print(f"vs_torch_cuda: skipped: no {vendor} device on this machine")
        return 0
    if not torch.cuda.is_available():
        print(f"vs_torch_cuda: skipped: this torch ({torch.__version__}) has no CUDA build to compare against")
        return 0
    device = torch_fl.device(0)
    ours = measure(device, getattr(torch, device.type).synchronize)
    native = measure(torch.device("cuda", 0), torch.cuda.synchronize)
    print(f"{'metric':<24}{device.type:>14}{'torch.cuda':>14}{'ratio':>10}")
    for key in native:
        print(f"{key:<24}{ours[key]:>14.3f}{native[key]:>14.3f}{ours[key] / native[key]:>10.3f}")
    fallbacks = int(ours["train_step_fallbacks"])
    print(f"train step fallbacks on {device.type}: {fallbacks}")
    write_report("vs_torch_cuda.json", {"vendor": vendor, "ours": ours, "torch_cuda": native,
                                        "train_step_fallback_report": torch_fl.fallback_report()})
    if fallbacks:
        print(torch_fl.fallback_report())
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
