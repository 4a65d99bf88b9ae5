"""Real training loops run natively on the device (TORCH_FL_FALLBACK=strict: a
single CPU fallback fails the test) and match CPU step for step."""
from __future__ import annotations

import copy

import pytest
import torch

import models
import torch_fl
from torch_fl import demo


def train_side_by_side(make_model, batch, loss_fn, make_optimizer, device, steps: int, tolerance: float,
                       param_tolerance: float = 1e-5):
    torch.manual_seed(0)
    cpu_model = make_model()
    dev_model = copy.deepcopy(cpu_model).to(device)
    cpu_opt, dev_opt = make_optimizer(cpu_model.parameters()), make_optimizer(dev_model.parameters())
    inputs, targets = batch()
    dev_inputs, dev_targets = inputs.to(device), targets.to(device)
    torch_fl.reset_fallback_stats()
    losses = []
    for _ in range(steps):
        for model, opt, x, y in ((dev_model, dev_opt, dev_inputs, dev_targets), (cpu_model, cpu_opt, inputs, targets)):
            opt.zero_grad()
            loss = loss_fn(model, x, y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        assert abs(losses[-2] - losses[-1]) < tolerance, losses[-2:]
    assert torch_fl.fallback_count() == 0, torch_fl.fallback_report()
    for p_dev, p_cpu in zip(dev_model.parameters(), cpu_model.parameters()):
        torch.testing.assert_close(p_dev.cpu(), p_cpu, rtol=1e-4, atol=param_tolerance)
    assert losses[-1] < losses[1], "the loss should go down"


def test_mlp_with_sgd_momentum(device, fallback_mode):
    fallback_mode("strict")
    train_side_by_side(demo.make_model, demo.make_data, models.classification_loss,
                       lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9), device, steps=8, tolerance=1e-4)


def test_resnet_style_cnn_with_sgd_momentum(device, fallback_mode):
    fallback_mode("strict")
    train_side_by_side(models.SmallResNet, models.image_batch, models.classification_loss,
                       lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9), device, steps=5, tolerance=1e-4)


def test_gpt_style_decoder_with_adamw(device, fallback_mode):
    fallback_mode("strict")
    # CPU's attention runs its fused flash kernel, the device the math path; AdamW's
    # normalisation by sqrt(v) magnifies that rounding difference in the weights.
    train_side_by_side(models.TinyGPT, models.token_batch, models.language_model_loss,
                       lambda p: torch.optim.AdamW(p, lr=3e-3), device, steps=5, tolerance=1e-4,
                       param_tolerance=2e-3)


def test_gpt_with_dropout_trains_natively(device, fallback_mode):
    """Dropout draws its own random masks, so no CPU parity: native, finite, learning."""
    fallback_mode("strict")
    torch.manual_seed(0)
    model = models.TinyGPT(dropout=0.2).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    tokens, targets = (t.to(device) for t in models.token_batch())
    torch_fl.reset_fallback_stats()
    losses = []
    for _ in range(8):
        opt.zero_grad()
        loss = models.language_model_loss(model, tokens, targets)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert torch_fl.fallback_count() == 0
    assert all(torch.isfinite(torch.tensor(losses))) and losses[-1] < losses[0]


@pytest.mark.parametrize("p", [0.0, 0.3, 1.0])
def test_dropout_masks_and_scales(device, p):
    x = torch.ones(4096).to(device)
    y = torch.nn.functional.dropout(x, p=p, training=True).cpu()
    if p == 1.0:
        assert torch.equal(y, torch.zeros(4096))
        return
    kept = y != 0
    assert torch.allclose(y[kept], torch.full_like(y[kept], 1 / (1 - p)))
    assert abs(kept.float().mean().item() - (1 - p)) < 0.03


def test_demo_main_reports_ok(capsys):
    assert demo.main(["--steps", "3"]) == 0
    out = capsys.readouterr().out
    assert "RESULT: OK" in out and "fallbacks to CPU during training: 0" in out
