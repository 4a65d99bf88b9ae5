"""The main job (`make demo`): train a small MLP on the device and on CPU from
the same seed and data, side by side, then report fallbacks and support."""
from __future__ import annotations

import argparse
import copy
import sys
import time

import torch
from torch import nn

import torch_fl


def make_model() -> nn.Module:
    return nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 10))


def make_data(samples: int = 256) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(1)
    features = torch.randn(samples, 32, generator=generator)
    # Labels with structure the model can learn: argmax of a fixed projection.
    labels = (features @ torch.randn(32, 10, generator=generator)).argmax(dim=1)
    return features, labels


def train_step(model: nn.Module, optimizer: torch.optim.Optimizer, features: torch.Tensor,
               labels: torch.Tensor) -> torch.Tensor:
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(features), labels)
    loss.backward()
    optimizer.step()
    return loss.detach()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--tolerance", type=float, default=1e-4)
    args = parser.parse_args(argv)

    device = torch_fl.device(0)
    torch.manual_seed(0)
    cpu_model = make_model()
    dev_model = copy.deepcopy(cpu_model).to(device)
    cpu_opt = torch.optim.SGD(cpu_model.parameters(), lr=0.1, momentum=0.9)
    dev_opt = torch.optim.SGD(dev_model.parameters(), lr=0.1, momentum=0.9)
    features, labels = make_data()
    dev_features, dev_labels = features.to(device), labels.to(device)

    torch_fl.reset_fallback_stats()
    print(f"Torch-FL demo: MLP on {device} ({torch_fl.vendor()} backend) vs cpu, SGD with momentum, "
          f"{args.steps} steps")
    print(f"{'step':>4}  {'loss ' + device.type:>12}  {'loss cpu':>12}  {'|diff|':>10}")
    max_diff = 0.0
    started = time.perf_counter()
    for step in range(1, args.steps + 1):
        dev_loss = train_step(dev_model, dev_opt, dev_features, dev_labels).item()
        cpu_loss = train_step(cpu_model, cpu_opt, features, labels).item()
        diff = abs(dev_loss - cpu_loss)
        max_diff = max(max_diff, diff)
        print(f"{step:>4}  {dev_loss:>12.6f}  {cpu_loss:>12.6f}  {diff:>10.2e}")
    elapsed = time.perf_counter() - started

    fallbacks = torch_fl.fallback_count()
    matrix = torch_fl.support_matrix()
    native = matrix["native_overloads"]
    print(f"max |loss difference|: {max_diff:.2e} (tolerance {args.tolerance:.0e})")
    print(f"fallbacks to CPU during training: {fallbacks}")
    if fallbacks:
        print(torch_fl.fallback_report())
    print(f"support: {native} ATen overloads native on {matrix['device']} "
          f"({matrix['native_functional_overloads']} functional, {matrix['native_variant_overloads']} "
          f"out=/in-place variants) "
          f"(generated from {matrix['spec']} for torch {matrix['torch_version']}); "
          f"everything else falls back to CPU")
    print(f"time: {elapsed:.2f} s for {args.steps} steps on both devices")
    ok = max_diff <= args.tolerance and fallbacks == 0
    print("RESULT:", "OK" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
