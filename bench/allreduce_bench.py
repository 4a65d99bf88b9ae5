"""all_reduce bus bandwidth (`make bench`, issue #12): the vendor's c10d backend on
device tensors against PyTorch's Gloo on CPU tensors, side by side in one run.

Two processes (torch.multiprocessing), one device each, one group on the vendor's
backend and one plain Gloo group. For each message size from 1 KiB to 256 MiB
(float32), the median time of an all_reduce (device: issued, waited, and the
device synchronised, so the copies to and from host memory are counted) gives
the bus bandwidth, 2 (n - 1) / n × bytes / time, as nccl-tests define it. Prints
the device/CPU bandwidth ratio per size (the median of back-to-back pairs) (target: at least 0.8 on large messages: staging
through host memory must not double the cost) and writes build/bench/allreduce.json.

    TORCH_FL_VENDOR=mlu python bench/allreduce_bench.py [--max-mib 256]
"""
from __future__ import annotations

import argparse
import datetime
import os
import socket
import statistics
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from bench_report import write_report  # noqa: E402  (bench/ is the script's folder)

TARGET = 0.8
LARGE = 16 << 20  # "large messages": from 16 MiB


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _seconds(run, sync) -> float:
    started = time.perf_counter()
    run()
    sync()
    return time.perf_counter() - started


def _time_side_by_side(device_runs, device_sync, cpu_run, repeats: int) -> tuple[list[float], float, list[float]]:
    """Median seconds of each device run and of the CPU run, and per device run the median
    of the paired ratios (CPU time / device time of back-to-back runs, so that the
    machine's load swings hit both alike)."""
    for run in device_runs:  # warm-up: connections, pinned blocks, caches
        run(), device_sync()
    cpu_run()
    device_times, cpu_times = [[] for _ in device_runs], []
    for _ in range(repeats):
        for times, run in zip(device_times, device_runs):
            times.append(_seconds(run, device_sync))
        cpu_times.append(_seconds(cpu_run, lambda: None))
    paired = [statistics.median(c / d for c, d in zip(cpu_times, times)) for times in device_times]
    return [statistics.median(times) for times in device_times], statistics.median(cpu_times), paired


def _rank(rank: int, world: int, port: int, sizes: list[int], results) -> None:
    import torch_fl
    device_type = torch_fl.init()
    module = getattr(torch, device_type)
    module.set_device(rank)
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group(torch_fl.distributed.get_backend_config(), rank=rank, world_size=world,
                            timeout=datetime.timedelta(minutes=5))
    gloo = dist.new_group(backend="gloo")
    # The same backend without the ranks' agreement exchange (read when a group is made).
    os.environ["TORCH_FL_COLLECTIVE_CHECKS"] = "0"
    unchecked = dist.new_group(backend=torch_fl.distributed.get_backend_config())
    del os.environ["TORCH_FL_COLLECTIVE_CHECKS"]
    rows = []
    for size in sizes:
        numel = size // 4
        repeats = 30 if size <= (1 << 20) else 9
        on_device = torch.ones(numel, device=device_type)
        on_cpu = torch.ones(numel)
        (device_s, unchecked_s), cpu_s, (ratio, unchecked_ratio) = _time_side_by_side(
            [lambda: dist.all_reduce(on_device), lambda: dist.all_reduce(on_device, group=unchecked)],
            module.synchronize, lambda: dist.all_reduce(on_cpu, group=gloo), repeats)
        rows.append((size, device_s, cpu_s, ratio, unchecked_ratio))
        del on_device, on_cpu
    if rank == 0:
        results.put((device_type, torch_fl.distributed.get_backend_config(), rows))
    dist.barrier()
    dist.destroy_process_group()


def _bus_gbps(size: int, seconds: float, world: int) -> float:
    return 2 * (world - 1) / world * size / seconds / 1e9


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-mib", type=int, default=256)
    args = parser.parse_args()
    sizes = []
    size = 1 << 10
    while size <= args.max_mib << 20:
        sizes.append(size)
        size *= 4
    world = 2
    context = mp.get_context("spawn")
    results = context.SimpleQueue()
    mp.spawn(_rank, args=(world, _free_port(), sizes, results), nprocs=world)
    device_type, backend, rows = results.get()
    print(f"all_reduce bus bandwidth, {world} processes: {backend} on {device_type} tensors vs Gloo on CPU tensors")
    print(f"{'size':>10} {'device GB/s':>12} {'CPU GB/s':>10} {'ratio':>7} {'unchecked':>10}"
          "  (ratios: median of paired runs; unchecked: TORCH_FL_COLLECTIVE_CHECKS=0)")
    report = []
    for size, device_s, cpu_s, ratio, unchecked_ratio in rows:
        device_bw, cpu_bw = _bus_gbps(size, device_s, world), _bus_gbps(size, cpu_s, world)
        label = f"{size >> 20} MiB" if size >= 1 << 20 else f"{size >> 10} KiB"
        print(f"{label:>10} {device_bw:12.3f} {cpu_bw:10.3f} {ratio:7.2f} {unchecked_ratio:10.2f}")
        report.append({"bytes": size, "device_s": device_s, "cpu_s": cpu_s, "device_bus_gbps": device_bw,
                       "cpu_bus_gbps": cpu_bw, "ratio": ratio, "unchecked_ratio": unchecked_ratio})
    large = [r["ratio"] for r in report if r["bytes"] >= LARGE]
    verdict = ""
    if large:
        worst = min(large)
        verdict = f"large messages (>= {LARGE >> 20} MiB): worst ratio {worst:.2f} (target >= {TARGET}): " \
                  f"{'met' if worst >= TARGET else 'MISSED'}"
        print(verdict)
    path = write_report("allreduce.json", {"device": device_type, "backend": backend, "world": world,
                                           "sizes": report, "target": TARGET, "verdict": verdict})
    print(f"written: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
