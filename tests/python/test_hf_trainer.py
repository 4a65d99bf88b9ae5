"""Hugging Face's Trainer picks the device, as a user runs it (issue #35).

Accelerate, under Trainer, chooses a device by importing known vendor modules
(torch_npu, torch_mlu, ...); an out-of-tree device is reached through the variable
both Accelerate and transformers read for it, ACCELERATE_TORCH_DEVICE (the one
documented line, docs/frameworks.md). With it, Trainer's own loop (default
TrainingArguments: AdamW, linear schedule, gradient clipping)
trains a tiny GPT-2 built from a config on the device, and its logged losses and final
weights match the same run on CPU. fp16=True autocasts on the device; bf16=True is
refused by transformers for a device it does not know, before any step (checked, so
that a release that lifts this shows here).

Needs transformers and accelerate (pinned in requirements.txt); without them the file skips."""
from __future__ import annotations

import json
import os
import sys

import pytest
import torch

import torch_fl
from processes import free_port, run_process_tree

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing here downloads; make sure of it
transformers = pytest.importorskip("transformers", reason="Hugging Face transformers is not installed")
pytest.importorskip("accelerate", reason="Hugging Face accelerate is not installed (pinned in requirements.txt)")

from accelerate.utils import DistributedType  # noqa: E402
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments  # noqa: E402

# What this file tests is the same code for every vendor: chip_independent (conftest.py).
pytestmark = pytest.mark.chip_independent

STEPS = 4
# The device names Accelerate lets use fp16 (accelerate 1.15's Accelerator.__init__):
# the simulated chips carry two of them; another name (opencl's ocl) is refused, naming it.
ACCELERATE_FP16_DEVICES = ("xpu", "cuda", "npu", "xla", "mlu", "musa", "hpu", "sdaa", "mps")


def train(tmp_path, use_cpu: bool, batch_size: int = 4, **arguments):
    """Trainer as a user runs it: the model and data built on CPU from one seed."""
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=64, n_positions=32, n_embd=32, n_layer=2, n_head=2,
                                       resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0))
    ids = torch.randint(0, 64, (8, 16), generator=torch.Generator().manual_seed(1))
    data = [{"input_ids": row, "labels": row} for row in ids]
    args = TrainingArguments(output_dir=str(tmp_path / ("cpu" if use_cpu else "device")), max_steps=STEPS,
                             per_device_train_batch_size=batch_size, logging_steps=1, report_to=[], save_strategy="no",
                             use_cpu=use_cpu, seed=0, disable_tqdm=True, **arguments)
    trainer = Trainer(model=model, args=args, train_dataset=data)
    trainer.train()
    losses = [entry["loss"] for entry in trainer.state.log_history if "loss" in entry]
    return args, model, losses


@pytest.fixture
def accelerate_device(device, monkeypatch):
    """The documented line: ACCELERATE_TORCH_DEVICE=<device>."""
    monkeypatch.setenv("ACCELERATE_TORCH_DEVICE", device.type)
    yield
    from accelerate.state import AcceleratorState
    AcceleratorState._reset_state(reset_partial_state=True)  # the next test's Trainer starts afresh


def cpu_run(tmp_path, monkeypatch, **arguments):
    # Accelerate reads the variable even under use_cpu=True (it would put the model on the
    # device and the inputs on CPU): the CPU reference runs without it.
    with monkeypatch.context() as m:
        m.delenv("ACCELERATE_TORCH_DEVICE", raising=False)
        return train(tmp_path, use_cpu=True, **arguments)


def test_trainer_trains_on_the_device_as_on_cpu(device, tmp_path, monkeypatch, accelerate_device):
    args, model, losses = train(tmp_path, use_cpu=False)
    assert args.device.type == device.type
    assert {p.device.type for p in model.parameters()} == {device.type}
    _, reference, expected = cpu_run(tmp_path, monkeypatch)
    assert len(losses) == STEPS
    torch.testing.assert_close(torch.tensor(losses), torch.tensor(expected), rtol=1e-4, atol=1e-5)
    for (name, trained), (_, cpu) in zip(model.named_parameters(), reference.named_parameters()):
        torch.testing.assert_close(trained.detach().cpu(), cpu.detach(), rtol=1e-4, atol=1e-5, msg=name)


def test_trainer_fp16_autocasts_on_the_device(device, tmp_path, monkeypatch, accelerate_device):
    """fp16=True: Accelerate's autocast on the device (the MLP's matmul computes in float16)
    and its GradScaler; the losses follow the float32 CPU run within float16's rounding.
    Accelerate allows fp16 only on device names it lists: elsewhere it refuses, naming the device."""
    computed, scalers = set(), set()

    def record(_module, _inputs, output):
        computed.add(output.dtype)

    original = Trainer.compute_loss

    def compute_loss(self, model, inputs, *rest, **options):
        scalers.add(self.accelerator.scaler)
        hook = model.transformer.h[0].mlp.c_fc.register_forward_hook(record)
        try:
            return original(self, model, inputs, *rest, **options)
        finally:
            hook.remove()

    monkeypatch.setattr(Trainer, "compute_loss", compute_loss)
    if device.type not in ACCELERATE_FP16_DEVICES:
        with pytest.raises(ValueError, match=f"fp16 mixed precision requires a device .*not '{device.type}'"):
            train(tmp_path, use_cpu=False, fp16=True)
        return
    args, model, losses = train(tmp_path, use_cpu=False, fp16=True)
    assert computed == {torch.float16} and args.device.type == device.type
    # the device's own scaler, enabled: Accelerate alone gives a CUDA one that disables itself
    # (torch_fl/accelerate_state.py), and fp16 would train with no loss scaling
    (scaler,) = scalers
    assert isinstance(scaler, torch.amp.GradScaler) and scaler.is_enabled() and scaler._device == device.type
    assert scaler.get_scale() == 2.0 ** 16  # no step skipped: the run is comparable
    monkeypatch.setattr(Trainer, "compute_loss", original)
    _, _, expected = cpu_run(tmp_path, monkeypatch)
    torch.testing.assert_close(torch.tensor(losses), torch.tensor(expected), rtol=1e-3, atol=1e-3)


def test_trainer_refuses_bf16_for_a_device_it_does_not_know(device, tmp_path, accelerate_device):
    """transformers asks only the devices it knows whether they take bf16 and refuses the
    rest before any step (docs/frameworks.md gives the ways round)."""
    with pytest.raises(ValueError, match="doesn't support bf16/gpu"):
        train(tmp_path, use_cpu=False, bf16=True)


def test_without_the_line_trainer_stays_on_cpu(device, tmp_path, monkeypatch):
    """What the line changes, shown: Accelerate knows no out-of-tree device by itself."""
    monkeypatch.delenv("ACCELERATE_TORCH_DEVICE", raising=False)
    args, model, _ = train(tmp_path, use_cpu=False)
    assert args.device.type == "cpu" and next(model.parameters()).device.type == "cpu"


# Written as for CUDA, with the CUDA compat layer on: nothing names the vendor.
CUDA_TRAINER_SCRIPT = r"""
import json, sys, torch
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments
torch.manual_seed(0)
model = GPT2LMHeadModel(GPT2Config(vocab_size=64, n_positions=32, n_embd=32, n_layer=2, n_head=2,
                                   resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0))
ids = torch.randint(0, 64, (8, 16), generator=torch.Generator().manual_seed(1))
data = [{"input_ids": row, "labels": row} for row in ids]
args = TrainingArguments(output_dir=sys.argv[1], max_steps=%d, per_device_train_batch_size=4, logging_steps=1,
                         report_to=[], save_strategy="no", seed=0, disable_tqdm=True)
trainer = Trainer(model=model, args=args, train_dataset=data)
trainer.train()
print(json.dumps({"device": str(args.device), "n_gpu": args.n_gpu, "wrapper": type(trainer.model_wrapped).__name__,
                  "parameters_device": str(next(model.parameters()).device),
                  "used": [torch.cuda.max_memory_allocated(i) > 0 for i in range(torch.cuda.device_count())],
                  "losses": [entry["loss"] for entry in trainer.state.log_history if "loss" in entry],
                  "parameters": {name: p.detach().cpu().tolist() for name, p in model.named_parameters()}}))
""" % STEPS


def test_a_cuda_written_trainer_script_runs_on_every_device_under_compat(device, tmp_path, monkeypatch):
    """Under TORCH_FL_CUDA_COMPAT=1 an unmodified CUDA-written Trainer script sees
    torch.cuda with the vendor's devices; with two, Trainer wraps the model in
    nn.DataParallel (torch_fl/data_parallel.py) and its batch of 4 per device is one CPU
    batch of 8: the losses and weights match that CPU run."""
    monkeypatch.delenv("ACCELERATE_TORCH_DEVICE", raising=False)
    count = torch_fl.device_count()
    run = run_process_tree([sys.executable, "-c", "import torch_fl\n" + CUDA_TRAINER_SCRIPT, str(tmp_path / "cuda")],
                           env=dict(os.environ, TORCH_FL_CUDA_COMPAT="1", TORCH_FL_FALLBACK="silent"), timeout=300)
    assert run.returncode == 0, run.stderr[-4000:]
    got = json.loads(run.stdout.strip().splitlines()[-1])
    assert (got["device"], got["n_gpu"], got["parameters_device"]) == ("cuda:0", count, f"{device.type}:0")
    assert got["wrapper"] == ("DataParallel" if count > 1 else "GPT2LMHeadModel")
    assert got["used"] == [True] * count  # each device ran a replica
    _, reference, expected = cpu_run(tmp_path, monkeypatch, batch_size=4 * count)
    torch.testing.assert_close(torch.tensor(got["losses"]), torch.tensor(expected), rtol=1e-4, atol=1e-5)
    for name, cpu in reference.named_parameters():
        torch.testing.assert_close(torch.tensor(got["parameters"][name]), cpu.detach(), rtol=1e-4, atol=1e-5,
                                   msg=name)


DDP_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hf_trainer_ddp_script.py")


def test_accelerate_launch_runs_ddp_on_two_devices_as_one_cpu_process(device, tmp_path, monkeypatch):
    """`accelerate launch --multi_gpu --num_processes 2` with the documented line: each rank
    is Accelerate's MULTI_<DEVICE> on its own device, over the vendor's c10d backend, and
    the losses and weights match one CPU process taking the whole batch of 4. Accelerate
    alone would run each rank by itself on device 0 (torch_fl/accelerate_state.py); a
    device name Accelerate has no multi-process type for is refused, naming it."""
    if torch_fl.device_count() < 2:
        pytest.skip(f"needs 2 devices; this machine has {torch_fl.device_count()}")
    output = tmp_path / "ddp" / "out.json"
    output.parent.mkdir()
    launch = run_process_tree([sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes",
                               "2", "--main_process_port", str(free_port()), DDP_SCRIPT, str(output)],
                              env=dict(os.environ, ACCELERATE_TORCH_DEVICE=device.type), timeout=300)
    multi = f"MULTI_{device.type.upper()}"
    if not hasattr(DistributedType, multi):
        assert launch.returncode != 0 and f"none for '{device.type}'" in launch.stderr, launch.stderr[-3000:]
        return
    assert launch.returncode == 0, launch.stdout[-2000:] + launch.stderr[-3000:]
    ranks = [json.loads((output.parent / f"out.json.rank{r}").read_text()) for r in range(2)]
    assert ranks == [{"distributed_type": multi, "device": f"{device.type}:{r}",
                      "parameters_device": f"{device.type}:{r}", "backend": torch_fl.distributed.backend_name()}
                     for r in range(2)]
    got = json.loads(output.read_text())
    _, reference, expected = cpu_run(tmp_path, monkeypatch)
    torch.testing.assert_close(torch.tensor(got["losses"]), torch.tensor(expected), rtol=1e-4, atol=1e-5)
    for name, cpu in reference.named_parameters():
        torch.testing.assert_close(torch.tensor(got["parameters"][name]), cpu.detach(), rtol=1e-4, atol=1e-5,
                                   msg=name)


@pytest.mark.parametrize("world_size, launched, ours", [("2", True, True), ("1", True, False), ("2", False, False)])
def test_only_a_rank_of_several_is_answered_for(device, monkeypatch, world_size, launched, ours):
    """The hook answers only for one of several launched processes told the device: a single
    launched process (torchrun --nproc_per_node 1) keeps Accelerate's own single-process answer."""
    from torch_fl import accelerate_state
    monkeypatch.setenv("ACCELERATE_TORCH_DEVICE", device.type)
    monkeypatch.setenv("WORLD_SIZE", world_size)
    if launched:
        monkeypatch.setenv("LOCAL_RANK", "0")
    else:
        monkeypatch.delenv("LOCAL_RANK", raising=False)
    assert accelerate_state._is_our_rank(cpu=False) == ours
    assert not accelerate_state._is_our_rank(cpu=True)


def test_uninstall_gives_accelerate_its_own_functions_back(device, accelerate_device):
    """The hook is reversible: uninstall() restores PartialState._prepare_backend and
    get_grad_scaler wherever Accelerate looks it up; install() wraps them again."""
    import accelerate.accelerator
    import accelerate.utils
    import accelerate.utils.modeling
    from accelerate.state import PartialState

    from torch_fl import accelerate_state
    owners = (accelerate.utils.modeling, accelerate.utils, accelerate.accelerator)
    PartialState()  # set up once: get_grad_scaler is wrapped then
    prepare_backend, get_grad_scaler = PartialState._prepare_backend, accelerate.accelerator.get_grad_scaler
    assert {owner.get_grad_scaler for owner in owners} == {get_grad_scaler}
    accelerate_state.uninstall()
    try:
        assert PartialState._prepare_backend is prepare_backend._torch_fl_original
        assert {owner.get_grad_scaler for owner in owners} == {get_grad_scaler._torch_fl_original}
    finally:
        accelerate_state.install()
    assert PartialState._prepare_backend._torch_fl_original is prepare_backend._torch_fl_original
