"""torchvision's classification models train unmodified on the device and match
CPU step for step: resnet18 and mobilenet_v3_small from torchvision.models,
random weights, synthetic images, SGD with momentum. Whatever falls back to the
CPU (and why) must be what the spec says, a guard it states or a dtype it does
not declare; the report goes to build/reports/torchvision_models_<vendor>_<model>.json."""
from __future__ import annotations

import copy
import json
import os
import warnings

import pytest
import torch
from torch import nn

import torch_fl

try:
    from torchvision import models
except ImportError:
    pytest.skip("torchvision is not installed beside this torch (it is in `make test TORCH=2.14.1`)",
                allow_module_level=True)

REPORT_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                          "build", "reports")

MODELS = {
    "resnet18": lambda: models.resnet18(weights=None, num_classes=10),
    # No dropout: its masks come from the device's generator, not CPU's.
    "mobilenet_v3_small": lambda: models.mobilenet_v3_small(weights=None, num_classes=10, dropout=0.0),
}


def train_step(model: nn.Module, optimizer, images, labels) -> float:
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(images), labels)
    loss.backward()
    optimizer.step()
    return loss.item()


@pytest.mark.parametrize("name", MODELS)
def test_torchvision_classifier_trains_as_on_cpu(device, fallback_mode, name):
    fallback_mode("silent")  # counted and checked below, not warned about per call
    torch.manual_seed(0)
    cpu_model = MODELS[name]()
    device_model = copy.deepcopy(cpu_model).to(device)
    images = torch.randn(4, 3, 64, 64)
    labels = torch.randint(0, 10, (4,))
    cpu_opt = torch.optim.SGD(cpu_model.parameters(), lr=0.01, momentum=0.9)
    device_opt = torch.optim.SGD(device_model.parameters(), lr=0.01, momentum=0.9)
    torch_fl.reset_fallback_stats()
    losses = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(3):
            losses.append((train_step(device_model, device_opt, images.to(device), labels.to(device)),
                           train_step(cpu_model, cpu_opt, images, labels)))
    records = torch_fl.fallback.records()
    os.makedirs(REPORT_DIR, exist_ok=True)
    with open(os.path.join(REPORT_DIR, f"torchvision_models_{torch_fl.vendor()}_{name}.json"), "w") as f:
        json.dump({"torch": torch.__version__, "model": name, "losses": losses, "fallbacks": records}, f, indent=1)
    for device_loss, cpu_loss in losses:
        assert abs(device_loss - cpu_loss) <= 2e-3 * max(1.0, abs(cpu_loss)), losses
    for p_device, p_cpu in zip(device_model.parameters(), cpu_model.parameters()):
        torch.testing.assert_close(p_device.cpu(), p_cpu, rtol=1e-3, atol=1e-3)
    # Only what the spec states may fall back: a `when:` guard it does not meet
    # (the NPU's convolution unit takes groups 1). Nothing for a missing op or dtype.
    unexpected = [r for r in records if r["reason"] != "guard not met"]
    assert not unexpected, torch_fl.fallback_report()
