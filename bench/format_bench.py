"""Private formats (`make bench`, issue #16 item 1): what keeping activations in
the chip's layout gains, measured side by side in one run.

For the vendor loaded (TORCH_FL_VENDOR), against the same work on CPU, each
measured with the spec's private formats on and off (torch_fl.set_private_formats):

  conv3x3            F.conv2d of 8x32x56x56 into 64 channels, its public input
                     converted in, its result left on the device
  conv_chain         conv-bn-relu-pool-conv-bn-relu (inference): one format region
  cnn_train_step     a small CNN's forward, backward and SGD step (batch 16, 3x32x32)

Ratios are CPU time / device time (higher is better). When the vendor declares
a private format and the MLU's backend is built too, the MLU's training step is
measured in a child process of the same run, for the target "the NPU's CNN step
within 10% of the MLU's". Writes build/bench/formats_<vendor>.json.
"""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

import torch_fl

from bench_report import REPO, first_device, write_report  # noqa: E402  (bench/ is the script's folder)

CONV_TARGET = 0.9  # the NPU's convolution throughput, of CPU's
STEP_TARGET = 0.9  # the NPU's training step, of the MLU's (within 10%)


def block(channels_in: int, channels_out: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(channels_in, channels_out, 3, padding=1), nn.BatchNorm2d(channels_out),
                         nn.ReLU(inplace=True), nn.MaxPool2d(2), nn.Conv2d(channels_out, channels_out, 3, padding=1),
                         nn.BatchNorm2d(channels_out), nn.ReLU())


def small_cnn() -> nn.Module:
    return nn.Sequential(block(3, 32), block(32, 64), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10))


def best_time(fn, sync, repeats: int = 5, calls: int = 3) -> float:
    fn()
    sync()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        sync()
        best = min(best, (time.perf_counter() - start) / calls)
    return best


def twin(model: nn.Module, device) -> nn.Module:
    buffer = io.BytesIO()
    torch.save(model, buffer)
    buffer.seek(0)
    return torch.load(buffer, weights_only=False).to(device)


def train_step(model: nn.Module, optimizer, x, target):
    optimizer.zero_grad(set_to_none=True)
    F.cross_entropy(model(x), target).backward()
    optimizer.step()


def step_ratio(device, sync) -> float:
    """CPU time / device time of one training step of small_cnn."""
    torch.manual_seed(0)
    model = small_cnn()
    x, target = torch.randn(16, 3, 32, 32), torch.randint(0, 10, (16,))
    model_device = twin(model, device)
    cpu_opt = torch.optim.SGD(model.parameters(), lr=0.01)
    dev_opt = torch.optim.SGD(model_device.parameters(), lr=0.01)
    xd, td = x.to(device), target.to(device)
    cpu = best_time(lambda: train_step(model, cpu_opt, x, target), lambda: None)
    dev = best_time(lambda: train_step(model_device, dev_opt, xd, td), sync)
    return cpu / dev


def measure(device, sync) -> dict:
    torch.manual_seed(0)
    x, w = torch.randn(8, 32, 56, 56), torch.randn(64, 32, 3, 3)
    xd, wd = x.to(device), w.to(device)
    chain = block(32, 64).eval()
    chain_device = twin(chain, device)
    cpu_conv = best_time(lambda: F.conv2d(x, w, padding=1), lambda: None)
    with torch.no_grad():
        cpu_chain = best_time(lambda: chain(x), lambda: None)
    results = {}
    for formats in (True, False):
        torch_fl.set_private_formats(formats)
        dev_conv = best_time(lambda: F.conv2d(xd, wd, padding=1), sync)
        with torch.no_grad():
            dev_chain = best_time(lambda: chain_device(xd), sync)
        results["on" if formats else "off"] = {
            "conv3x3": round(cpu_conv / dev_conv, 2), "conv_chain": round(cpu_chain / dev_chain, 2),
            "cnn_train_step": round(step_ratio(device, sync), 2)}
    torch_fl.set_private_formats(True)
    return results


def mlu_step_ratio() -> float | None:
    """The MLU's training step ratio, from a child process (one vendor per process)."""
    if not os.path.exists(os.path.join(REPO, "build", "mlu")):
        return None
    env = dict(os.environ, TORCH_FL_VENDOR="mlu", TORCH_FL_FALLBACK="silent")
    child = subprocess.run([sys.executable, os.path.abspath(__file__), "--step-only"], env=env,
                           capture_output=True, text=True, timeout=600)
    if child.returncode != 0:
        print(f"format_bench: the MLU's step could not be measured:\n{child.stderr}", file=sys.stderr)
        return None
    return json.loads(child.stdout.strip().splitlines()[-1])["cnn_train_step"]


def main() -> int:
    device = first_device("format_bench")
    if device is None:
        return 0
    sync = getattr(torch, device.type).synchronize
    if "--step-only" in sys.argv:
        print(json.dumps({"cnn_train_step": step_ratio(device, sync)}))
        return 0
    formats = sorted({row["format"]["name"] for row in torch_fl.support_matrix()["ops"] if "format" in row})
    if not formats:
        print(f"format_bench: skipped: the {torch_fl.vendor()} spec declares no private format")
        return 0
    results = {"vendor": torch_fl.vendor(), "formats": formats, "torch_threads": torch.get_num_threads(),
               "ratios_vs_cpu": measure(device, sync)}
    results["mlu_cnn_train_step"] = mlu_step_ratio()
    on, off = results["ratios_vs_cpu"]["on"], results["ratios_vs_cpu"]["off"]
    print(f"{torch_fl.vendor()} with its private formats ({', '.join(formats)}) on and off; CPU time / device time:")
    print(f"{'measure':<16} {'formats on':>10} {'off':>6}")
    for key in on:
        print(f"{key:<16} {on[key]:>10} {off[key]:>6}")
    print(f"conv3x3 >= {CONV_TARGET} of CPU: {'met' if on['conv3x3'] >= CONV_TARGET else 'MISSED'}")
    mlu = results["mlu_cnn_train_step"]
    if mlu is None:
        print("the MLU's training step: not measured (build the mlu backend)")
    else:
        share = on["cnn_train_step"] / mlu
        results["step_vs_mlu"] = round(share, 2)
        print(f"training step vs the MLU's: {share:.2f} (MLU {mlu:.2f} of CPU) >= {STEP_TARGET}: "
              f"{'met' if share >= STEP_TARGET else 'MISSED'}")
    write_report(f"formats_{torch_fl.vendor()}.json", results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
