"""A LightningModule trained as a user runs it (tests/python/test_lightning.py runs this
file, since Lightning's DDP starts its other ranks by running the script again):

    python lightning_script.py ACCELERATOR DEVICES OUTPUT.json

Rank 0 writes the trained parameters and the devices the training steps ran on."""
from __future__ import annotations

import json
import sys
import warnings

import torch

warnings.simplefilter("ignore")
import pytorch_lightning as pl  # noqa: E402

import torch_fl  # noqa: E402, F401  (in a wheel install, autoload does this)


class Regression(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
        self.devices_seen: set[str] = set()

    def training_step(self, batch, index):
        x, y = batch
        self.devices_seen.add(str(x.device))
        return torch.nn.functional.mse_loss(self.net(x), y)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


def main(accelerator: str, devices: int, output: str) -> None:
    torch.manual_seed(0)
    model = Regression()
    data = torch.Generator().manual_seed(1)
    x, y = torch.randn(64, 8, generator=data), torch.randn(64, 1, generator=data)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=16)
    trainer = pl.Trainer(accelerator=accelerator, devices=devices, strategy="ddp" if devices > 1 else "auto",
                         max_epochs=2, logger=False, enable_checkpointing=False, enable_progress_bar=False,
                         enable_model_summary=False)
    trainer.fit(model, loader)
    seen = [None] * trainer.world_size
    if trainer.world_size > 1:
        torch.distributed.all_gather_object(seen, sorted(model.devices_seen))
    else:
        seen = [sorted(model.devices_seen)]
    if trainer.global_rank == 0:
        with open(output, "w") as f:
            json.dump({"devices_seen": seen, "root_device": str(trainer.strategy.root_device),
                       "backend": getattr(trainer.strategy, "_process_group_backend", None),
                       "parameters": {name: p.detach().cpu().tolist() for name, p in model.named_parameters()}}, f)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
