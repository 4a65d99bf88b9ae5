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
    policy = DevicePlacementPolicy({"embedding": "cpu", "*": device.type})
    assert policy.apply(model) is model
    placement = policy.placement
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
        policy = DevicePlacementPolicy({"*": "auto"})
        model = policy.apply(model, example_inputs=(ids,))
    placement = policy.placement
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
        policy = DevicePlacementPolicy({"embedding": "cpu", "*": device.type})
        policy.apply(Model())
    placement = policy.placement
    logged = [r.getMessage() for r in caplog.records if r.name == "torch_fl"]
    assert logged == ["torch_fl placement: " + ", ".join(f"{n} -> {d}" for n, d in placement.items())]


# Rules on composite modules: their own forward computes on their inputs before
# any child runs, so the inputs move at their boundary, and their outputs move
# back to where the parent runs.

class TupleAndDict(torch.nn.Module):
    """Keyword arguments in, a tuple and a dict out, its own arithmetic on both."""

    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(8, 8)

    def forward(self, x, *, scale, bias=None):
        y = self.linear(x) * scale + x  # arithmetic of its own, on its inputs
        if bias is not None:
            y = y + bias
        return y, {"residual": x * 2, "sum": y.sum(-1)}


class Composite(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = torch.nn.Embedding(10, 8)
        self.layer = torch.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True)
        self.attention = torch.nn.MultiheadAttention(8, 2, batch_first=True)
        self.block = TupleAndDict()
        self.head = torch.nn.Linear(8, 3)

    def forward(self, ids):
        x = self.embedding(ids)
        x = self.layer(x) + x  # the parent's own arithmetic on a child's output
        attended, _ = self.attention(x, x, x, need_weights=False)
        y, extra = self.block(attended, scale=0.5, bias=torch.ones(8))
        y, again = self.block(y, scale=2.0)  # a module called twice
        return self.head(y + extra["residual"] + again["residual"]) + extra["sum"].unsqueeze(-1)


@pytest.mark.parametrize("rules", [
    {"layer": "DEVICE", "attention": "DEVICE", "block": "DEVICE"},  # the parent on CPU
    {"*": "DEVICE", "layer": "cpu", "block": "cpu"},  # the parent on the device
], ids=["composites-on-device", "composites-on-cpu"])
def test_a_rule_on_a_composite_module_moves_its_inputs_and_outputs(device, rules):
    torch.manual_seed(0)
    reference = Composite()
    model = copy.deepcopy(reference)
    rules = {name: device.type if where == "DEVICE" else where for name, where in rules.items()}
    policy = DevicePlacementPolicy(rules)
    model = policy.apply(model)
    for name, module in model.named_modules():
        rule = next((rules[key] for key in sorted(rules, key=len, reverse=True)
                     if key != "*" and (name == key or name.startswith(key + "."))), rules.get("*", "cpu"))
        for tensor in list(module.parameters(recurse=False)):
            assert tensor.device.type == rule, (name, tensor.device)
    ids = torch.randint(0, 10, (2, 5))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out, grads = forward_backward(model, ids)
    expected, expected_grads = forward_backward(reference, ids)
    assert out.device.type == rules.get("*", "cpu")  # the root's outputs stay where the root runs
    torch.testing.assert_close(out.cpu(), expected, rtol=1e-4, atol=1e-5)
    assert grads.keys() == expected_grads.keys()
    for name, grad in expected_grads.items():  # float32 rounding, relative to each gradient's scale
        scale = grad.abs().max().item()
        torch.testing.assert_close(grads[name], grad, rtol=1e-4, atol=1e-6 * scale, msg=name)
