"""Issue #40, items 1, 2 and 5: what training silently got wrong on the device.
Module.to() keeps Parameter objects (an optimizer built before it still steps the
model, tied weights stay tied), .data swaps work both ways, checkpointing with
dropout replays the device's RNG, and a forked child is stopped at init()."""
from __future__ import annotations

import copy
import multiprocessing

import pytest
import torch
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

import torch_fl

import models
import training_steps


def test_module_to_keeps_parameter_objects_both_ways(device):
    model = models.TinyGPT()
    before = {name: id(p) for name, p in model.named_parameters()}
    model.to(device)
    assert {name: id(p) for name, p in model.named_parameters()} == before
    assert all(p.device == device for p in model.parameters())
    model.cpu()
    assert {name: id(p) for name, p in model.named_parameters()} == before
    assert all(p.device.type == "cpu" for p in model.parameters())


def test_gradients_move_with_their_parameters(device):
    model = torch.nn.Linear(3, 2)
    model(torch.randn(4, 3)).sum().backward()
    grad = model.weight.grad
    model.to(device)
    assert model.weight.grad is grad and grad.device == device


def _train(step, model, optimizer, device, steps=3):
    inputs, targets = step.batch()
    for _ in range(steps):
        optimizer.zero_grad()
        step.loss(model, inputs.to(device), targets.to(device)).backward()
        optimizer.step()
    return [p.detach().cpu() for p in model.parameters()]


def test_optimizer_built_before_to_matches_cpu_in_strict_mode(device, fallback_mode):
    """The common ordering: optimizer first, then model.to(device). It used to step
    the old CPU tensors while the device model never changed. It must train exactly
    as the other ordering does on the device, and as CPU does (within test_training's
    AdamW tolerance: Adam's normalisation magnifies float32 rounding)."""
    fallback_mode("strict")
    step = training_steps.STEPS["gpt_adamw"]
    torch.manual_seed(0)
    initial = step.make_model()

    optimizer_first = copy.deepcopy(initial)
    optimizer = step.make_optimizer(optimizer_first.parameters())
    optimizer_first.to(device)
    trained = _train(step, optimizer_first, optimizer, device)

    to_first = copy.deepcopy(initial).to(device)
    reference = _train(step, to_first, step.make_optimizer(to_first.parameters()), device)
    cpu_model = copy.deepcopy(initial)
    on_cpu = _train(step, cpu_model, step.make_optimizer(cpu_model.parameters()), torch.device("cpu"))

    for p_trained, p_reference, p_cpu, p_initial in zip(trained, reference, on_cpu, initial.parameters()):
        assert not torch.equal(p_trained, p_initial.detach()), "the optimizer did not step the device parameters"
        assert torch.equal(p_trained, p_reference)
        torch.testing.assert_close(p_trained, p_cpu, rtol=1e-4, atol=2e-3)


def test_tied_weights_stay_one_parameter(device):
    """GPT-2, Llama with tied embeddings, T5: the head shares the embedding's Parameter."""
    model = models.TinyGPT()
    model.head.weight = model.token.weight
    model.to(device)
    assert model.head.weight is model.token.weight
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    inputs, targets = models.token_batch()
    models.language_model_loss(model, inputs.to(device), targets.to(device)).backward()
    optimizer.step()
    assert model.head.weight is model.token.weight
    assert len(list(model.parameters())) == len({id(p) for p in model.parameters()})


def test_data_swaps_both_ways(device):
    parameter = torch.nn.Parameter(torch.randn(3, 4))
    values = parameter.detach().clone()
    parameter.data = parameter.data.to(device)
    assert parameter.device == device and torch.equal(parameter.detach().cpu(), values)
    parameter.data = parameter.data.cpu()
    assert parameter.device.type == "cpu" and torch.equal(parameter.detach(), values)


def test_deepspeed_style_placeholder_swap(device):
    """ZeRO keeps an empty placeholder in .data and swaps the full tensor in for use."""
    parameter = torch.nn.Parameter(torch.randn(6))
    full = parameter.detach().clone()
    parameter.data = torch.empty(0, device=device)
    assert parameter.numel() == 0 and parameter.device == device
    parameter.data = full.to(device)
    (parameter * 2).sum().backward()
    assert torch.equal(parameter.grad.cpu(), torch.full((6,), 2.0))
    assert torch.equal(parameter.detach().cpu(), full)


def test_the_device_module_reports_initialisation(device):
    torch.ones(1, device=device)
    module = getattr(torch, device.type)
    assert module.is_initialized()
    assert getattr(module, "_initialized", False) is True
    assert not module._is_in_bad_fork()


class _DropoutBlock(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(16, 16)

    def forward(self, x):
        return F.dropout(torch.tanh(self.linear(x)), p=0.5, training=True)


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_checkpointing_with_dropout_gives_the_gradients_without_it(device, use_reentrant):
    """checkpoint() replays the device RNG only if the device module says it is
    initialised; otherwise the recomputation draws other dropout masks."""
    torch.manual_seed(0)
    block = _DropoutBlock().to(device)
    x = torch.randn(8, 16, device=device, requires_grad=True)
    module = getattr(torch, device.type)
    gradients = []
    for checkpointed in (False, True):
        block.zero_grad()
        x.grad = None
        module.manual_seed(1234)
        out = checkpoint(block, x, use_reentrant=use_reentrant) if checkpointed else block(x)
        out.square().sum().backward()
        gradients.append([x.grad.cpu()] + [p.grad.cpu() for p in block.parameters()])
    for plain, replayed in zip(*gradients):
        assert torch.equal(plain, replayed)


def _init_in_forked_child(queue):
    try:
        torch_fl.device_module.init()
        queue.put("returned")
    except RuntimeError as error:
        queue.put(f"raised: {error}")


def test_a_child_forked_after_init_raises_at_init(device):
    torch.ones(1, device=device)  # the parent has initialised the device
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_init_in_forked_child, args=(queue,))
    child.start()
    answer = queue.get(timeout=60)
    child.join(timeout=60)
    assert answer.startswith("raised:"), answer
    assert device.type in answer and "spawn" in answer
    assert getattr(torch, device.type).is_initialized()
