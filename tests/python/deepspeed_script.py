"""One rank of a DeepSpeed ZeRO training, as a user writes it (tests/python/test_deepspeed.py
starts two, with the variables DeepSpeed's launcher sets):

    RANK=r LOCAL_RANK=r WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=p \\
        python deepspeed_script.py STAGE OUTPUT.json

Each rank trains on its half of every batch. Rank 0 writes the trained parameters, the
device and process-group backend DeepSpeed chose, the accelerator's name, and the
torch.distributed collectives DeepSpeed called."""
from __future__ import annotations

import json
import os
import sys
import warnings

import torch

warnings.simplefilter("ignore")
import torch_fl  # noqa: E402, F401  (in a wheel install, autoload does this)
import deepspeed  # noqa: E402
from deepspeed.accelerator import get_accelerator  # noqa: E402

STEPS, BATCH, FEATURES = 4, 16, 8


def model() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(FEATURES, 32), torch.nn.Tanh(), torch.nn.Linear(32, 1))


def batches() -> list[tuple[torch.Tensor, torch.Tensor]]:
    data = torch.Generator().manual_seed(1)
    return [(torch.randn(BATCH, FEATURES, generator=data), torch.randn(BATCH, 1, generator=data))
            for _ in range(STEPS)]


def optimizer(parameters) -> torch.optim.Optimizer:
    return torch.optim.AdamW(parameters, lr=0.05)


# The torch.distributed calls DeepSpeed makes, counted by name (it takes these functions
# from torch.distributed when its process group starts, so they are wrapped before).
COLLECTIVES = ("all_reduce", "broadcast", "all_gather", "all_gather_into_tensor", "reduce_scatter_tensor",
               "all_to_all_single", "barrier")
called: set[str] = set()


def count_collectives() -> None:
    def counted(name, function):
        def call(*args, **kwargs):
            called.add(name)
            return function(*args, **kwargs)
        return call

    for name in COLLECTIVES:
        setattr(torch.distributed, name, counted(name, getattr(torch.distributed, name)))
    c10d = torch.distributed.distributed_c10d
    c10d._coalescing_manager = counted("coalesced", c10d._coalescing_manager)


def main(stage: int, output: str) -> None:
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    count_collectives()
    net = model()
    config = {"train_micro_batch_size_per_gpu": BATCH // world, "gradient_accumulation_steps": 1,
              "zero_optimization": {"stage": stage}, "zero_allow_untested_optimizer": True,
              "steps_per_print": 1_000_000}
    engine, _, _, _ = deepspeed.initialize(model=net, optimizer=optimizer(net.parameters()), config=config)
    for x, y in batches():
        half = slice(rank * BATCH // world, (rank + 1) * BATCH // world)
        x, y = x[half].to(engine.device), y[half].to(engine.device)
        loss = torch.nn.functional.mse_loss(engine(x), y)
        engine.backward(loss)
        engine.step()
    if stage == 3:  # each rank holds a shard: gather the whole parameters to read them
        with deepspeed.zero.GatheredParameters(list(engine.module.parameters())):
            parameters = {name: p.detach().cpu().tolist() for name, p in engine.module.named_parameters()}
    else:
        parameters = {name: p.detach().cpu().tolist() for name, p in engine.module.named_parameters()}
    if rank == 0:
        with open(output, "w") as f:
            json.dump({"accelerator": get_accelerator().device_name(), "device": str(engine.device),
                       "backend": torch.distributed.get_backend(), "collectives": sorted(called),
                       "parameters": parameters}, f)


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
