"""DevicePlacementPolicy: submodules on the device or on CPU, activations moved
at the boundaries, gradients across them, against the same model on CPU."""
from __future__ import annotations

import copy
import warnings

import pytest
import torch

import torch_fl
from torch_fl.placement import DevicePlacementPolicy


class Erfcx(torch.nn.Module):
    """An activation no chip declares: its op falls back to CPU."""

    def forward(self, x):
        return torch.special.erfcx(x)


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = torch.nn.Embedding(10, 6)
        self.encoder = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 8))
        self.odd = Erfcx()
        self.head = torch.nn.Linear(8, 2)

    def forward(self, ids):
        return self.head(self.odd(self.encoder(self.embedding(ids))))


def forward_backward(model, ids):
    out = model(ids)
    out.float().pow(2).sum().backward()
    return out, {name: p.grad.cpu() for name, p in model.named_parameters()}


def test_rules_place_submodules_and_gradients_cross_the_boundaries(device):
    torch.manual_seed(0)
    reference = Model()
    model = copy.deepcopy(reference)
    ids = torch.randint(0, 10, (4, 3))
    placement = DevicePlacementPolicy({"embedding": "cpu", "*": device.type}).apply(model)
    assert placement["embedding"] == "cpu" and placement["head"].startswith(device.type)
    assert model.embedding.weight.device.type == "cpu" and model.head.weight.device.type == device.type
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out, grads = forward_backward(model, ids)
    expected, expected_grads = forward_backward(reference, ids)
    assert out.device.type == device.type
    torch.testing.assert_close(out.cpu(), expected, rtol=1e-4, atol=1e-5)
    for name, grad in expected_grads.items():
        torch.testing.assert_close(grads[name], grad, rtol=1e-4, atol=1e-5, msg=name)


def test_auto_puts_on_cpu_the_leaves_whose_ops_fall_back(device):
    torch.manual_seed(0)
    model = Model()
    ids = torch.randint(0, 10, (4, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        placement = DevicePlacementPolicy({"*": "auto"}).apply(model, example_inputs=(ids,))
    assert placement["odd"] == "cpu", placement
    assert placement["encoder.0"].startswith(device.type) and placement["head"].startswith(device.type)
    torch_fl.reset_fallback_stats()
    out = model(ids)
    assert "aten::special_erfcx" not in torch_fl.fallback_stats(), "the falling-back module was left on the device"
    assert out.device.type == device.type


def test_a_rule_naming_no_module_lists_close_names(device):
    with pytest.raises(ValueError, match=r"'embeding' names no submodule.*embedding"):
        DevicePlacementPolicy({"embeding": "cpu", "*": device.type}).apply(Model())


def test_auto_needs_an_example_batch(device):
    with pytest.raises(ValueError, match="example_inputs"):
        DevicePlacementPolicy({"*": "auto"}).apply(Model())
