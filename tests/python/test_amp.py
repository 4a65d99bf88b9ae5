"""torch_fl.amp: mixed-precision training written as for torch.cuda.amp, on the
loaded vendor's device, against the same training in float32 on CPU."""
from __future__ import annotations

import warnings

import torch

import torch_fl
import torch_fl.amp


def train(device, use_amp: bool, steps: int = 60) -> list[float]:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    scaler = torch_fl.amp.GradScaler(init_scale=2.0**10) if use_amp else None
    x = torch.randn(64, 8)
    y = x.sum(dim=1, keepdim=True) * 0.5
    x, y = x.to(device), y.to(device)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        if use_amp:
            with torch_fl.amp.autocast():
                prediction = model(x)
                assert prediction.dtype == torch.float16, "autocast did not run the linear layers in float16"
                loss = torch.nn.functional.mse_loss(prediction.float(), y)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
        losses.append(loss.item())
    return losses


def test_fp16_training_with_grad_scaler_converges_like_float32_on_cpu(device):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        amp_losses = train(device, use_amp=True)
    reference = train("cpu", use_amp=False)
    assert amp_losses[-1] < 0.2 * amp_losses[0], amp_losses[::10]
    assert abs(amp_losses[-1] - reference[-1]) < 0.05 + 0.1 * reference[-1], (amp_losses[-1], reference[-1])


def test_grad_scaler_skips_a_step_with_inf_gradients_and_backs_off(device):
    parameter = torch.nn.Parameter(torch.ones(3, device=device))
    optimizer = torch.optim.SGD([parameter], lr=1.0)
    scaler = torch_fl.amp.GradScaler(init_scale=4.0)
    loss = (parameter * torch.tensor([1.0, float("inf"), 1.0], device=device)).sum()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    assert torch.equal(parameter.detach().cpu(), torch.ones(3)), "a step with inf gradients must be skipped"
    assert scaler.get_scale() == 2.0
    assert scaler._scale.device.type == device.type


def test_torch_fl_autocast_takes_the_dtype_asked_for(device):
    with torch_fl.amp.autocast(dtype=torch.bfloat16):
        assert torch.get_autocast_dtype(device.type) == torch.bfloat16
    with torch_fl.amp.autocast():
        assert torch.get_autocast_dtype(device.type) == torch.float16  # torch.cuda.amp's default
    with torch_fl.amp.autocast(enabled=False):
        assert not torch.is_autocast_enabled(device.type)
