"""A whole mixed-precision training step under torch.autocast on the device:
ops the spec's autocast policy lists are cast, every other op (elementwise,
reductions, factories, random ops, the optimizer's) runs unchanged, and the
step matches the same step under CPU autocast."""
from __future__ import annotations

import copy

import pytest
import torch
from torch.nn import functional as F

from models import SmallResNet, TinyGPT, classification_loss, image_batch, language_model_loss, token_batch

STEPS = 3


def _train(model, batch, loss_fn, device_type: str, dtype: torch.dtype, device) -> list[float]:
    model = model.to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    inputs, targets = (t.to(device) for t in batch)
    losses = []
    for _ in range(STEPS):
        with torch.autocast(device_type=device_type, dtype=dtype):
            # Factories and random ops inside the region, as training code has them.
            noise = torch.randn(3, device=device)
            assert noise.dtype == torch.float32 and torch.zeros(2, device=device).sum().item() == 0
            loss = loss_fn(model, inputs, targets) + 0.0 * F.dropout(noise, 0.5).sum()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        losses.append(loss.item())
    return losses


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=["float16", "bfloat16"])
@pytest.mark.parametrize("case", ["cnn", "gpt"])
def test_training_step_under_autocast_matches_cpu_autocast(device, dtype, case):
    torch.manual_seed(0)
    if case == "cnn":
        model, batch, loss_fn = SmallResNet(), image_batch(), classification_loss
    else:
        model, batch, loss_fn = TinyGPT(), token_batch(), language_model_loss
    cpu_model = copy.deepcopy(model)
    on_device = _train(model, batch, loss_fn, device.type, dtype, device)
    on_cpu = _train(cpu_model, batch, loss_fn, "cpu", dtype, torch.device("cpu"))
    # The two autocast policies differ in detail (which ops run in float32), so
    # the comparison allows low-precision rounding, not a different model.
    torch.testing.assert_close(torch.tensor(on_device), torch.tensor(on_cpu), rtol=3e-2, atol=3e-2)
    for (name, p), q in zip(model.named_parameters(), cpu_model.parameters()):
        torch.testing.assert_close(p.detach().cpu(), q.detach(), rtol=3e-2, atol=3e-2, msg=name)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=["float16", "bfloat16"])
def test_ops_outside_the_autocast_policy_run_unchanged(device, dtype):
    a = torch.randn(4, 4, device=device)
    with torch.autocast(device_type=device.type, dtype=dtype):
        results = {"add": a + a, "relu": torch.relu(a), "sum": a.sum(), "randn": torch.randn(3, device=device),
                   "mm": a @ a}
    for name in ("add", "relu", "sum", "randn"):
        assert results[name].dtype == torch.float32, name
    assert results["mm"].dtype == dtype  # the policy still applies to what it lists
    torch.testing.assert_close(results["add"].cpu(), (a + a).cpu())
