"""The OpenCL vendor against the floor of its own driver stack (`make bench VENDOR=opencl`).

Each figure is measured side by side in one run, against the same work queued
directly on OpenCL and CLBlast by vendors/opencl/bench/ocl_raw_bench.cpp (no
PyTorch, no Torch-FL), and reported against CPU ATen for context. CPU is not a
target: PoCL's generated code is not OpenBLAS.

  tiny_op_ratio_vs_raw   the median tiny op (bench/tiny_ops.py; op + synchronize)
                         / a raw clEnqueueNDRangeKernel + clFinish of a 16-element
                         add (target <= 1.3, issue #37); add alone beside it
  mm_ratio_vs_clblast    a direct CLBlast SGEMM 1024^2 + clFinish / torch.mm on the
                         device + synchronize: the throughput share (target >= 0.9)
  block_forward          layer_norm(gelu(linear(x))) forward (64x256 -> 512) on the device
                         / the same block hand-written on OpenCL + CLBlast (its output
                         checked against CPU)
  mlp_step, gpt_step     one training step (forward, backward, AdamW) on the device
                         and on CPU, in milliseconds
  second_process_builds  programs a second process builds for the MLP and GPT steps
                         this one has run (target 0: it loads them from disk)
"""
from __future__ import annotations

import ctypes
import json
import os
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

import torch_fl

from bench_report import REPO, first_device, write_report  # noqa: E402  (bench/ is the script's folder)
from tiny_ops import TINY_OPS, tiny_operands

ROUNDS, CALLS = 7, 200


def median_us(call, sync, rounds: int = ROUNDS, calls: int = CALLS) -> float:
    """Microseconds per call + sync, the median of `rounds` rounds."""
    for _ in range(20):
        call()
        sync()
    per_call = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(calls):
            call()
            sync()
        per_call.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(per_call)


def raw_library() -> ctypes.CDLL:
    lib = ctypes.CDLL(os.path.join(REPO, "build", "opencl", "vendors", "opencl", "libocl_raw_bench.so"))
    lib.ocl_raw_tiny_add_us.restype = ctypes.c_double
    lib.ocl_raw_tiny_add_us.argtypes = [ctypes.c_int, ctypes.c_int]
    lib.ocl_raw_sgemm_us.restype = ctypes.c_double
    lib.ocl_raw_sgemm_us.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int]
    lib.ocl_raw_block_forward_us.restype = ctypes.c_double
    lib.ocl_raw_block_forward_us.argtypes = [ctypes.c_int] * 3 + [ctypes.c_void_p] * 6 + [ctypes.c_int] * 2
    return lib


def tiny_ops(device, sync, raw: ctypes.CDLL) -> dict:
    """Each op's rounds alternate with rounds of the raw launch: PoCL's finish
    latency is bimodal and drifts, and a ratio of figures taken minutes apart
    would measure the drift."""
    on_cpu = tiny_operands()
    on_device = on_cpu.to(device)
    per_op = {}
    for name, op in TINY_OPS.items():
        torch_fl.reset_fallback_stats()
        op(on_device)
        sync()
        native = torch_fl.fallback_count() == 0
        ours, floor = [], []
        for _ in range(ROUNDS):
            floor.append(raw.ocl_raw_tiny_add_us(1, CALLS))
            ours.append(median_us(lambda: op(on_device), sync, 1, CALLS))
        per_op[name] = {"device_us": statistics.median(ours), "raw_us": statistics.median(floor),
                        "ratio_vs_raw": statistics.median(ours) / statistics.median(floor),
                        "cpu_us": median_us(lambda: op(on_cpu), lambda: None), "native": native}
    # Only ops that run the vendor's kernels measure the generated path; the rest
    # are named, not hidden.
    native = {name: v for name, v in per_op.items() if v["native"]}
    median_device = statistics.median(v["device_us"] for v in native.values())
    median_cpu = statistics.median(v["cpu_us"] for v in native.values())
    return {"raw_add_us": statistics.median(v["raw_us"] for v in native.values()), "median_op_us": median_device,
            "median_cpu_us": median_cpu, "native_ops": len(native),
            "fallback_ops": sorted(set(per_op) - set(native)),
            "tiny_op_ratio_vs_raw": statistics.median(v["ratio_vs_raw"] for v in native.values()),
            "add_ratio_vs_raw": per_op["add"]["ratio_vs_raw"],
            "median_ratio_vs_cpu": median_device / median_cpu, "per_op": per_op}


def matrix_product(device, sync, raw: ctypes.CDLL, n: int = 1024) -> dict:
    a, b = torch.full((n, n), 0.5), torch.full((n, n), 0.5)
    a_dev, b_dev = a.to(device), b.to(device)
    rounds, calls = 5, 3
    torch_fl.reset_fallback_stats()
    device_us = median_us(lambda: torch.mm(a_dev, b_dev), sync, rounds, calls)  # the result's block is cached
    assert torch_fl.fallback_count() == 0, f"mm fell back to the CPU: {torch_fl.fallback_report()}"
    cpu_us = median_us(lambda: torch.mm(a, b), lambda: None, rounds, calls)
    raw_us = raw.ocl_raw_sgemm_us(n, rounds, calls)
    return {"n": n, "device_ms": device_us / 1e3, "clblast_ms": raw_us / 1e3, "cpu_ms": cpu_us / 1e3,
            "mm_ratio_vs_clblast": raw_us / device_us, "device_gflops": 2 * n ** 3 / device_us / 1e3,
            "cpu_ratio": cpu_us / device_us}


def block_forward(device, sync, raw: ctypes.CDLL, rows: int = 64, in_features: int = 256,
                  out_features: int = 512) -> dict:
    """The MLP's first block, layer_norm(gelu(linear(x))), forward only: on the
    device through PyTorch, and hand-written on OpenCL + CLBlast, whose output is
    checked against CPU so that the two time the same computation."""
    torch.manual_seed(0)
    x, weight, bias = torch.randn(rows, in_features), torch.randn(out_features, in_features) / 16, torch.randn(out_features)
    gamma, beta = torch.rand(out_features) + 0.5, torch.randn(out_features)

    def block(*tensors):
        x, weight, bias, gamma, beta = tensors
        return F.layer_norm(F.gelu(F.linear(x, weight, bias)), (out_features,), gamma, beta)

    on_device = [t.to(device) for t in (x, weight, bias, gamma, beta)]
    torch_fl.reset_fallback_stats()
    device_us = median_us(lambda: block(*on_device), sync, 5, 20)
    assert torch_fl.fallback_count() == 0, f"the block fell back to the CPU: {torch_fl.fallback_report()}"
    cpu_us = median_us(lambda: block(x, weight, bias, gamma, beta), lambda: None, 5, 20)
    result = torch.empty(rows, out_features)
    pointers = [t.data_ptr() for t in (x, weight, bias, gamma, beta, result)]
    raw_us = raw.ocl_raw_block_forward_us(rows, in_features, out_features, *pointers, 5, 20)
    torch.testing.assert_close(result, block(x, weight, bias, gamma, beta), rtol=1e-4, atol=1e-4)
    return {"shape": [rows, in_features, out_features], "device_us": device_us, "raw_us": raw_us, "cpu_us": cpu_us,
            "ratio_vs_raw": device_us / raw_us}


def mlp():
    return torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.GELU(), torch.nn.LayerNorm(512),
                               torch.nn.Linear(512, 10))


def gpt():
    layer = torch.nn.TransformerEncoderLayer(64, 4, 256, dropout=0.0, batch_first=True, norm_first=True)
    return torch.nn.Sequential(layer, torch.nn.Linear(64, 64))


def training_step(make, inputs, device):
    """A function running one AdamW step of `make()`'s model on `device`."""
    torch.manual_seed(0)
    model = make().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x = inputs.to(device)

    def step():
        optimizer.zero_grad()
        model(x).float().square().mean().backward()
        optimizer.step()
    return step


STEPS = {"mlp_step": (mlp, lambda: torch.randn(64, 256)), "gpt_step": (gpt, lambda: torch.randn(8, 32, 64))}


def steps(device, sync) -> dict:
    results = {}
    for name, (make, inputs) in STEPS.items():
        torch.manual_seed(0)
        x = inputs()
        on_device, on_cpu = training_step(make, x, device), training_step(make, x, "cpu")
        torch_fl.reset_fallback_stats()
        device_us = median_us(on_device, sync, 5, 3)
        fallbacks = sorted(torch_fl.fallback_stats())
        cpu_us = median_us(on_cpu, lambda: None, 5, 3)
        results[name] = {"device_ms": device_us / 1e3, "cpu_ms": cpu_us / 1e3, "ratio_vs_cpu": device_us / cpu_us,
                         "cpu_fallback_ops": fallbacks}
    return results


SECOND_PROCESS = """
import sys, torch, torch_fl
sys.path.insert(0, {bench!r})
from opencl_bench import STEPS, training_step
module = getattr(torch, torch_fl.device(0).type)
for make, inputs in STEPS.values():
    training_step(make, inputs(), torch_fl.device(0))()
module.synchronize()
counters = module.driver_counters()
print(int(counters["program_builds"]), int(counters["program_cache_disk_hits"]))
"""


def second_process() -> dict:
    script = SECOND_PROCESS.format(bench=os.path.dirname(os.path.abspath(__file__)))
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    builds, disk_hits = (int(v) for v in run.stdout.split()[-2:])
    return {"second_process_builds": builds, "second_process_disk_hits": disk_hits}


def main() -> int:
    if torch_fl.vendor() != "opencl":
        print(f"opencl_bench: skipped: the loaded vendor is {torch_fl.vendor()}, not opencl")
        return 0
    device = first_device("opencl_bench")
    if device is None:
        return 0
    module = getattr(torch, device.type)
    sync = module.synchronize
    raw = raw_library()
    results = {"device": module.get_device_name(0), "tiny_ops": tiny_ops(device, sync, raw),
               "mm": matrix_product(device, sync, raw), "block_forward": block_forward(device, sync, raw),
               "steps": steps(device, sync)}
    results.update(second_process())
    tiny, mm = results["tiny_ops"], results["mm"]
    print(f"opencl on {results['device']}")
    print(f"  tiny op (median of {tiny['native_ops']} native of {len(TINY_OPS)}): {tiny['median_op_us']:.1f} us; "
          f"raw enqueue+finish {tiny['raw_add_us']:.1f} us; ratio {tiny['tiny_op_ratio_vs_raw']:.2f} "
          f"(target <= 1.3), add alone {tiny['add_ratio_vs_raw']:.2f}; vs CPU ATen {tiny['median_ratio_vs_cpu']:.1f}x")
    if tiny["fallback_ops"]:
        print(f"    on the CPU fallback, left out: {', '.join(tiny['fallback_ops'])}")
    print(f"  mm {mm['n']}^2: {mm['device_ms']:.1f} ms; direct CLBlast {mm['clblast_ms']:.1f} ms; "
          f"ratio {mm['mm_ratio_vs_clblast']:.2f} (target >= 0.9); {mm['device_gflops']:.1f} GFLOP/s; "
          f"CPU ATen {mm['cpu_ms']:.1f} ms")
    block = results["block_forward"]
    print(f"  linear+gelu+layer_norm forward {block['shape']}: {block['device_us']:.0f} us; hand-written OpenCL "
          f"{block['raw_us']:.0f} us; ratio {block['ratio_vs_raw']:.2f}; CPU ATen {block['cpu_us']:.0f} us")
    for name, step in results["steps"].items():
        print(f"  {name}: {step['device_ms']:.1f} ms on the device, {step['cpu_ms']:.1f} ms on CPU "
              f"({step['ratio_vs_cpu']:.1f}x); CPU fallbacks: {', '.join(step['cpu_fallback_ops']) or 'none'}")
    print(f"  second process: {results['second_process_builds']} program builds (target 0), "
          f"{results['second_process_disk_hits']} loaded from disk")
    print(f"  written to {write_report('opencl.json', results)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
