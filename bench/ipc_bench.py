"""Sending device tensors to another process: shared memory (the driver's IPC
calls) against by value (TORCH_FL_IPC=0: through host memory), side by side in
one run. For each size, the median time from put() in the producer until the
consumer holds the tensor on its device and has answered.

    TORCH_FL_VENDOR=mlu build/venv/bin/python bench/ipc_bench.py [--repeats N]
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

import torch
import torch.multiprocessing as mp

import torch_fl

SIZES_MIB = (1, 16, 64)


def consumer(inbox, outbox):
    while True:
        tensor = inbox.get()
        if tensor is None:
            return
        outbox.put(tensor.device.type)  # it is on the device: mapped, or copied there
        del tensor


def timed_sends(inbox, outbox, tensor, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        inbox.put(tensor)
        outbox.get(timeout=120)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    device = torch_fl.device(0)
    if not torch.ops.torch_fl._ipc_supported(0):
        print(f"{device.type}: the driver cannot share memory between processes; nothing to compare")
        return
    ctx = mp.get_context("spawn")
    inbox, outbox = ctx.Queue(), ctx.Queue()
    process = ctx.Process(target=consumer, args=(inbox, outbox))
    process.start()
    print(f"{device.type}: median ms from put() to the consumer holding it ({args.repeats} sends each)")
    print(f"{'size':>8} {'shared':>10} {'by value':>10} {'ratio':>8}")
    for mib in SIZES_MIB:
        tensor = torch.ones(mib << 18, device=device)  # float32: mib MiB
        os.environ["TORCH_FL_IPC"] = "1"
        shared = timed_sends(inbox, outbox, tensor, args.repeats)
        os.environ["TORCH_FL_IPC"] = "0"
        by_value = timed_sends(inbox, outbox, tensor, args.repeats)
        print(f"{mib:>5} MiB {shared * 1e3:>10.2f} {by_value * 1e3:>10.2f} {by_value / shared:>7.1f}x")
    inbox.put(None)
    process.join(timeout=120)
    getattr(torch, device.type).ipc_collect()


if __name__ == "__main__":
    main()
