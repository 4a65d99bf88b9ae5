"""Real training loops run natively on the device (TORCH_FL_FALLBACK=strict: a
single CPU fallback fails the test) and match CPU step for step. A step that
reaches an op the vendor's spec lacks (vendor_facts.STEPS_WITH_FALLBACKS: nvidia's
convolutions) runs with the CPU fallback there, and still matches CPU."""
from __future__ import annotations

import copy

import pytest
import torch

import torch_fl
import training_steps
import vendor_facts
from torch_fl import demo


def policy_for(name: str) -> str:
    """strict where the vendor's spec covers every kernel of the step, else the CPU fallback
    (silent: TORCH_FL_FALLBACK has no "cpu" mode)."""
    return "silent" if name in vendor_facts.facts(vendor_facts.STEPS_WITH_FALLBACKS) else "strict"


def train_side_by_side(make_model, batch, loss_fn, make_optimizer, device, steps: int, tolerance: float,
                       param_tolerance: float = 1e-5, strict: bool = True):
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
    if strict:
        assert torch_fl.fallback_count() == 0, torch_fl.fallback_report()
    for p_dev, p_cpu in zip(dev_model.parameters(), cpu_model.parameters()):
        torch.testing.assert_close(p_dev.cpu(), p_cpu, rtol=1e-4, atol=param_tolerance)
    assert losses[-1] < losses[1], "the loss should go down"


def side_by_side(name: str, device, fallback_mode, steps: int, tolerance: float, param_tolerance: float = 1e-5):
    fallback_mode(policy_for(name))
    step = training_steps.STEPS[name]
    train_side_by_side(step.make_model, step.batch, step.loss, step.make_optimizer, device, steps=steps,
                       tolerance=tolerance, param_tolerance=param_tolerance, strict=policy_for(name) == "strict")


def test_mlp_with_sgd_momentum(device, fallback_mode):
    side_by_side("mlp_sgd", device, fallback_mode, steps=8, tolerance=1e-4)


def test_resnet_style_cnn_with_sgd_momentum(device, fallback_mode):
    side_by_side("resnet_sgd", device, fallback_mode, steps=5, tolerance=1e-4)


def test_gpt_style_decoder_with_adamw(device, fallback_mode):
    # CPU's attention runs its fused flash kernel, the device the math path; AdamW's
    # normalisation by sqrt(v) magnifies that rounding difference in the weights.
    side_by_side("gpt_adamw", device, fallback_mode, steps=5, tolerance=1e-4, param_tolerance=2e-3)


def test_gpt_with_dropout_trains_natively(device, fallback_mode):
    """Dropout draws its own random masks, so no CPU parity: native, finite, learning."""
    fallback_mode(policy_for("gpt_dropout_adamw"))
    torch_fl.reset_fallback_stats()
    losses = training_steps.STEPS["gpt_dropout_adamw"].run(device, steps=8)
    if policy_for("gpt_dropout_adamw") == "strict":
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
