"""The training steps the suites run, by name: model, batch, loss, optimizer and
autocast dtype. test_training runs them against CPU on the device;
test_real_vendor_coverage runs them on a simulated chip to check that a real
vendor's spec covers every kernel they reach."""
from __future__ import annotations

import dataclasses
from typing import Callable, Optional

import torch

import models
from torch_fl import demo


@dataclasses.dataclass(frozen=True)
class TrainingStep:
    make_model: Callable[[], torch.nn.Module]
    batch: Callable[[], tuple[torch.Tensor, torch.Tensor]]
    loss: Callable
    make_optimizer: Callable
    autocast: Optional[torch.dtype] = None

    def run(self, device: torch.device, steps: int = 2) -> list[float]:
        """`steps` optimizer steps on `device` from seed 0; the losses."""
        torch.manual_seed(0)
        model = self.make_model().to(device)
        optimizer = self.make_optimizer(model.parameters())
        inputs, targets = (t.to(device) for t in self.batch())
        losses = []
        for _ in range(steps):
            optimizer.zero_grad()
            with torch.autocast(device.type, dtype=self.autocast or torch.bfloat16, enabled=self.autocast is not None):
                loss = self.loss(model, inputs, targets)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        return losses


def _sgd_momentum(lr: float):
    return lambda parameters: torch.optim.SGD(parameters, lr=lr, momentum=0.9)


def _adamw(parameters):
    return torch.optim.AdamW(parameters, lr=3e-3)


STEPS = {
    "mlp_sgd": TrainingStep(demo.make_model, demo.make_data, models.classification_loss, _sgd_momentum(0.1)),
    "resnet_sgd": TrainingStep(models.SmallResNet, models.image_batch, models.classification_loss, _sgd_momentum(0.05)),
    "gpt_adamw": TrainingStep(models.TinyGPT, models.token_batch, models.language_model_loss, _adamw),
    "gpt_dropout_adamw": TrainingStep(lambda: models.TinyGPT(dropout=0.2), models.token_batch,
                                      models.language_model_loss, _adamw),
    "gpt_adamw_bf16_autocast": TrainingStep(models.TinyGPT, models.token_batch, models.language_model_loss, _adamw,
                                            autocast=torch.bfloat16),
}
