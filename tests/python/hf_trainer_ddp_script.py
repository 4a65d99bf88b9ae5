"""One rank of Hugging Face Trainer under `accelerate launch --multi_gpu --num_processes 2`,
as a user runs it with the documented line ACCELERATE_TORCH_DEVICE=<device>
(tests/python/test_hf_trainer.py starts it):

    ACCELERATE_TORCH_DEVICE=mlu accelerate launch --multi_gpu --num_processes 2 \\
        hf_trainer_ddp_script.py OUTPUT.json

The model and data are test_hf_trainer.py's; each rank takes 2 rows of every batch of 4.
Rank 0 writes the logged losses and the trained parameters; every rank writes what
Accelerate chose for it (distributed type, device, process-group backend)."""
from __future__ import annotations

import json
import os
import sys
import warnings

import torch

warnings.simplefilter("ignore")
import torch_fl  # noqa: E402, F401  (in a wheel install, autoload does this)
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments  # noqa: E402

STEPS = 4


def main(output: str) -> None:
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=64, n_positions=32, n_embd=32, n_layer=2, n_head=2,
                                       resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0))
    ids = torch.randint(0, 64, (8, 16), generator=torch.Generator().manual_seed(1))
    data = [{"input_ids": row, "labels": row} for row in ids]
    args = TrainingArguments(output_dir=os.path.dirname(output), max_steps=STEPS, per_device_train_batch_size=2,
                             logging_steps=1, report_to=[], save_strategy="no", seed=0, disable_tqdm=True)
    trainer = Trainer(model=model, args=args, train_dataset=data)
    trainer.train()
    state = trainer.accelerator.state
    rank = {"distributed_type": str(state.distributed_type).split(".")[-1], "device": str(args.device),
            "parameters_device": str(next(model.parameters()).device),
            "backend": torch.distributed.get_backend() if torch.distributed.is_initialized() else None}
    with open(f"{output}.rank{state.process_index}", "w") as f:
        json.dump(rank, f)
    if state.process_index == 0:
        losses = [entry["loss"] for entry in trainer.state.log_history if "loss" in entry]
        parameters = {name: p.detach().cpu().tolist() for name, p in model.named_parameters()}
        with open(output, "w") as f:
            json.dump({"losses": losses, "parameters": parameters}, f)


if __name__ == "__main__":
    main(sys.argv[1])
