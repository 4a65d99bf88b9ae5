"""Runtime benchmark (`make bench`): what Torch-FL costs on top of the chip.

Every ratio is measured side by side in one run against the same work on CPU
(the simulator computes with the same CPU kernels, so the ratio isolates the
backend's own overhead). Prints a table and writes build/bench/summary.json.

  alloc_free_ns            cached allocate+free through the caching allocator (C++)
  tiny_op_ratio_vs_cpu     median over ~17 ops on 16-element tensors (Python-number operands
                           among them): device time / CPU time per call; the worst op beside it
  large_op_ratio_vs_cpu    median over matmul 1024², add of 16M elements, a conv: CPU time / device time
  h2d/d2h_ratio_vs_memcpy  memcpy(3) time / copy time for 64 MiB (torch's multi-threaded
                           CPU copy_ of the same bytes is reported beside it)
"""
from __future__ import annotations

import ctypes
import json
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

import torch_fl

from bench_report import write_report  # noqa: E402  (bench/ is the script's folder)
from tiny_ops import TINY_OPS, tiny_operands

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def alloc_free_ns(vendor: str) -> float:
    """The caching allocator's allocate+free pair, timed in C++ by the test-only
    hooks library (tests/cpp/bench_hooks.cpp) that `make backend` builds."""
    hooks = ctypes.CDLL(os.path.join(REPO, "build", vendor, "tests", "cpp", "libtorch_fl_bench_hooks.so"))
    hooks.tfl_bench_alloc_free.argtypes = [ctypes.c_int, ctypes.c_uint64, ctypes.c_int64,
                                           ctypes.POINTER(ctypes.c_double)]
    ns = ctypes.c_double()
    if hooks.tfl_bench_alloc_free(0, 4096, 200000, ctypes.byref(ns)) != 0:
        raise RuntimeError("tfl_bench_alloc_free failed")
    return ns.value


def best_of(fn, repeats: int = 5) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


def per_call(fn, calls: int, sync=None) -> float:
    def run():
        for _ in range(calls):
            fn()
        if sync:
            sync()
    run()  # warm-up
    return best_of(run) / calls


def main() -> int:
    if torch_fl.device_count() == 0:
        print(f"runtime_bench: skipped: no {torch_fl.vendor()} device on this machine")
        return 0
    device = torch_fl.device(0)
    mod = getattr(torch, device.type)
    sync = mod.synchronize
    torch.set_num_threads(max(1, torch.get_num_threads()))
    results: dict = {"vendor": torch_fl.vendor(), "torch_threads": torch.get_num_threads()}

    results["alloc_free_ns"] = round(alloc_free_ns(torch_fl.vendor()), 1)

    a_cpu, b_cpu = tiny_operands()
    a_dev, b_dev = a_cpu.to(device), b_cpu.to(device)
    tiny = {}
    for name, op in TINY_OPS.items():
        cpu = per_call(lambda: op(a_cpu, b_cpu), 2000)
        dev = per_call(lambda: op(a_dev, b_dev), 2000, sync)
        tiny[name] = {"cpu_us": round(cpu * 1e6, 2), "device_us": round(dev * 1e6, 2), "ratio": round(dev / cpu, 2)}
    results["tiny_ops"] = tiny
    results["tiny_op_ratio_vs_cpu"] = round(statistics.median(v["ratio"] for v in tiny.values()), 2)
    worst = max(tiny, key=lambda name: tiny[name]["ratio"])
    results["tiny_op_worst"] = {"op": worst, "ratio": tiny[worst]["ratio"]}

    m1, m2 = torch.randn(1024, 1024), torch.randn(1024, 1024)
    v1, v2 = torch.randn(16 << 20), torch.randn(16 << 20)
    x, w = torch.randn(8, 64, 56, 56), torch.randn(64, 64, 3, 3)
    large_ops = {
        "matmul_1024": (lambda t: t[0] @ t[1], (m1, m2)),
        "add_16M": (lambda t: t[0] + t[1], (v1, v2)),
        "conv2d_64x56x56": (lambda t: F.conv2d(t[0], t[1], padding=1), (x, w)),
    }
    large = {}
    for name, (op, inputs) in large_ops.items():
        dev_inputs = tuple(t.to(device) for t in inputs)
        cpu = per_call(lambda: op(inputs), 3)
        dev = per_call(lambda: op(dev_inputs), 3, sync)
        large[name] = {"cpu_ms": round(cpu * 1e3, 2), "device_ms": round(dev * 1e3, 2), "ratio": round(cpu / dev, 2)}
    results["large_ops"] = large
    results["large_op_ratio_vs_cpu"] = round(statistics.median(v["ratio"] for v in large.values()), 2)

    host = torch.randn(16 << 20)  # 64 MiB
    host_copy = torch.empty_like(host)
    on_device = host.to(device)
    sync()
    # The baseline is one memcpy(3) of the same bytes. torch's CPU copy_ splits a
    # large copy over its threads; it is reported beside, for reference only.
    libc = ctypes.CDLL(None)
    libc.memcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
    memcpy = best_of(lambda: libc.memcpy(host_copy.data_ptr(), host.data_ptr(), host.nbytes))
    torch_copy = best_of(lambda: host_copy.copy_(host))
    h2d = best_of(lambda: (on_device.copy_(host), sync()))
    d2h = best_of(lambda: (host_copy.copy_(on_device), sync()))
    results["copies_64MiB_ms"] = {"memcpy": round(memcpy * 1e3, 2), "h2d": round(h2d * 1e3, 2),
                                  "d2h": round(d2h * 1e3, 2),
                                  f"torch_cpu_copy_{torch.get_num_threads()}_threads": round(torch_copy * 1e3, 2)}
    results["h2d_ratio_vs_memcpy"] = round(memcpy / h2d, 2)
    results["d2h_ratio_vs_memcpy"] = round(memcpy / d2h, 2)

    results["tiny_op_worst_ratio_vs_cpu"] = tiny[worst]["ratio"]
    targets = {"alloc_free_ns": ("<=", 200), "tiny_op_ratio_vs_cpu": ("<=", 2.0),
               "tiny_op_worst_ratio_vs_cpu": ("<=", 2.0),
               "large_op_ratio_vs_cpu": (">=", 0.9), "h2d_ratio_vs_memcpy": (">=", 0.8),
               "d2h_ratio_vs_memcpy": (">=", 0.8)}
    print(f"{'measure':<26} {'value':>10}  target")
    for key, (cmp, bound) in targets.items():
        value = results[key]
        met = value <= bound if cmp == "<=" else value >= bound
        print(f"{key:<26} {value:>10}  {cmp} {bound} {'met' if met else 'MISSED'}")
    print(f"worst tiny op: {worst}")
    print("\ntiny ops (device vs CPU, per call):")
    for name, v in tiny.items():
        print(f"  {name:<10} {v['device_us']:>8.2f} us vs {v['cpu_us']:>6.2f} us  x{v['ratio']}")
    print("large ops (CPU time / device time):")
    for name, v in large.items():
        print(f"  {name:<18} {v['device_ms']:>8.2f} ms vs {v['cpu_ms']:>8.2f} ms  {v['ratio']}")
    write_report("summary.json", results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
