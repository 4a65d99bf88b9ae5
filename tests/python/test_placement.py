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


def test_a_rule_lists_up_to_five_close_names_and_no_hint_without_any(device):
    layers = torch.nn.ModuleDict({f"layer{i}": torch.nn.Linear(2, 2) for i in range(6)})
    with pytest.raises(ValueError) as refused:
        DevicePlacementPolicy({"layer": "cpu", "*": device.type}).apply(layers)
    assert len(str(refused.value).split("; close names: ")[1].split(", ")) == 5
    with pytest.raises(ValueError) as refused:
        DevicePlacementPolicy({"qqqzzz": "cpu"}).apply(Model())
    assert str(refused.value) == "DevicePlacementPolicy: the rule 'qqqzzz' names no submodule of the model"


def test_the_placement_is_logged(device, caplog):
    import logging
    with caplog.at_level(logging.INFO, logger="torch_fl"):
        placement = DevicePlacementPolicy({"embedding": "cpu", "*": device.type}).apply(Model())
    logged = [r.getMessage() for r in caplog.records if r.name == "torch_fl"]
    assert logged == ["torch_fl placement: " + ", ".join(f"{n} -> {d}" for n, d in placement.items())]
