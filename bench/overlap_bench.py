"""Copy/compute overlap (`make bench`, issue #16 item 4): the same training
loop over a DataLoader with pinned memory, run two ways in one process.

  serialised   each batch is copied with a blocking `.to(device)` on the compute
               stream: the host waits for the copy, and so for every step queued
               before it, then queues the next step while the device idles.
  overlapped   the pattern the seeds recommend: the next batch is copied with
               `non_blocking=True` on a side stream while the current step
               computes; the compute stream waits on the copy's event, and
               `record_stream` keeps the batch's memory alive for it.

Prints step times and their ratio (target: overlapped <= 0.75 of serialised on
mlu) and writes build/bench/overlap.json. The loss of both loops is compared
with the same loop on CPU, so the overlapped loop is shown to compute the same thing.
"""
from __future__ import annotations

import statistics
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

import torch_fl

from bench_report import first_device, write_report  # noqa: E402  (bench/ is the script's folder)

BATCH, STEPS, REPEATS = 64, 40, 3
TARGET = 0.75


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        return self.head(F.adaptive_avg_pool2d(x, 1).flatten(1))


def loader() -> torch.utils.data.DataLoader:
    generator = torch.Generator().manual_seed(0)
    images = torch.randn(BATCH * STEPS, 3, 64, 64, generator=generator)
    labels = torch.randint(0, 10, (BATCH * STEPS,), generator=generator)
    dataset = torch.utils.data.TensorDataset(images, labels)
    return torch.utils.data.DataLoader(dataset, batch_size=BATCH, pin_memory=True)


def make_model(device):
    torch.manual_seed(0)
    model = SmallCNN().to(device)
    return model, torch.optim.SGD(model.parameters(), lr=0.01)


def step(model, optimizer, x, y) -> torch.Tensor:
    loss = F.cross_entropy(model(x), y)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    return loss.detach()


def serialised(device, module) -> tuple[float, list[float]]:
    model, optimizer = make_model(device)
    losses = []
    module.synchronize()
    started = time.perf_counter()
    for images, labels in loader():
        losses.append(step(model, optimizer, images.to(device), labels.to(device)))
    module.synchronize()
    return (time.perf_counter() - started) / STEPS, [float(loss) for loss in losses]


def overlapped(device, module) -> tuple[float, list[float]]:
    model, optimizer = make_model(device)
    copy_stream, compute_stream = module.Stream(), module.current_stream()

    def prefetch(batch):
        with module.stream(copy_stream):
            images, labels = (t.to(device, non_blocking=True) for t in batch)
            copied = module.Event()
            copied.record(copy_stream)
        return images, labels, copied

    losses = []
    module.synchronize()
    started = time.perf_counter()
    batches = iter(loader())
    upcoming = prefetch(next(batches))
    while upcoming is not None:
        images, labels, copied = upcoming
        compute_stream.wait_event(copied)
        images.record_stream(compute_stream)
        labels.record_stream(compute_stream)
        batch = next(batches, None)
        upcoming = prefetch(batch) if batch is not None else None
        losses.append(step(model, optimizer, images, labels))
    module.synchronize()
    return (time.perf_counter() - started) / STEPS, [float(loss) for loss in losses]


def main() -> int:
    device = first_device("overlap_bench")
    if device is None:
        return 0
    module = getattr(torch, device.type)
    _, cpu_losses = serialised(torch.device("cpu"), torch.cpu)
    serial_times, overlap_times = [], []
    for _ in range(REPEATS):  # interleaved, so a load change on the machine hits both
        serial_time, serial_losses = serialised(device, module)
        overlap_time, overlap_losses = overlapped(device, module)
        serial_times.append(serial_time)
        overlap_times.append(overlap_time)
    for name, losses in (("serialised", serial_losses), ("overlapped", overlap_losses)):
        worst = max(abs(a - b) for a, b in zip(losses, cpu_losses))
        if worst > 1e-3:
            print(f"overlap_bench: the {name} loop's losses differ from CPU's by {worst:.3g}")
            return 1
    serial, overlap = statistics.median(serial_times), statistics.median(overlap_times)
    ratio = round(overlap / serial, 2)
    print(f"{'measure':<26} {'value':>10}  target")
    print(f"{'overlap_step_ratio':<26} {ratio:>10}  <= {TARGET} {'met' if ratio <= TARGET else 'MISSED'}")
    print(f"  step time, median of {REPEATS}: serialised {serial * 1e3:.2f} ms, overlapped {overlap * 1e3:.2f} ms "
          f"({STEPS} steps of batch {BATCH} x 3 x 64 x 64, pinned DataLoader)")
    write_report("overlap.json", {"vendor": torch_fl.vendor(), "serialised_step_ms": round(serial * 1e3, 3),
                                  "overlapped_step_ms": round(overlap * 1e3, 3), "overlap_step_ratio": ratio,
                                  "target": TARGET})
    return 0


if __name__ == "__main__":
    sys.exit(main())
