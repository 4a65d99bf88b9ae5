"""Placement policy: which submodules of a model run on the vendor's device and
which on CPU, with activations moved at the boundaries (forward pre-hooks) only
where the device changes. Gradients flow back across them, since the moves are
ordinary differentiable `.to()` calls.

    policy = DevicePlacementPolicy({"embedding": "cpu", "*": "mlu"})
    model = policy.apply(model)       # policy.placement: what went where

Keys are submodule names as `model.named_modules()` gives them, or globs over
them; the most specific key wins (an exact name before a glob, a longer glob
before a shorter one, "*" last). The value "auto" runs one batch
(`example_inputs`) and places on CPU every leaf module whose ops fell back,
on the device every other; apply() keeps what it decided in `placement`, and
logs it."""
from __future__ import annotations

import difflib
import fnmatch
import logging
from typing import Any, Sequence

import torch
from torch.utils._pytree import tree_map

from . import _backend
from .fallback import fallback_count

LOGGER = logging.getLogger("torch_fl")


class DevicePlacementPolicy:
    def __init__(self, rules: dict[str, str]) -> None:
        if not rules:
            raise ValueError("DevicePlacementPolicy: give at least one rule, e.g. {'*': '<device>'}")
        self.rules = dict(rules)
        self._hooks: list = []
        self.placement: dict[str, str] = {}  # what apply() decided

    def _check_rules_name_modules(self, names: list[str]) -> None:
        for pattern in self.rules:
            if pattern != "*" and not fnmatch.filter(names, pattern):
                close = difflib.get_close_matches(pattern, names, n=5, cutoff=0.5)
                raise ValueError(f"DevicePlacementPolicy: the rule '{pattern}' names no submodule of the model"
                                 + (f"; close names: {', '.join(close)}" if close else ""))

    def _rule_for(self, name: str) -> str | None:
        """The most specific rule matching this module's name (None: inherit the
        parent's). "*" is the root's default only: a rule for a module covers its children."""
        matching = [p for p in self.rules if (p != "*" or name == "") and fnmatch.fnmatchcase(name, p)]
        if not matching:
            return None
        exact = [p for p in matching if p == name]
        return self.rules[exact[0] if exact else max(matching, key=len)]

    def apply(self, model: torch.nn.Module, example_inputs: Sequence[Any] = ()) -> torch.nn.Module:
        """Moves each submodule to its device, installs the boundary hooks and
        returns the model (`model = policy.apply(model)`). What it decided, {submodule
        name: device} for every module that owns parameters, buffers, or is a leaf,
        is kept in `policy.placement` and logged.

        A module whose device differs from its parent's is a boundary: its inputs
        move to its device before its own forward runs (a composite module's forward
        may compute on them before any child does: TransformerEncoderLayer's residual
        add), and its outputs move back to the parent's device. Modules that own
        tensors move their inputs too (a parent may call a child's parameters'
        module in ways that skip the parent's boundary)."""
        names = [name for name, _ in model.named_modules() if name]
        self._check_rules_name_modules(names)
        auto_cpu = self._leaves_that_fall_back(model, example_inputs) if "auto" in self.rules.values() else set()
        vendor = _backend.load().device
        self.placement = {}
        # The rule each module falls under (its own, or its parent's), resolved per module:
        # "auto" decides leaf by leaf.
        inherited: dict[str, str] = {"": self._rule_for("") or "cpu"}
        devices: dict[str, torch.device] = {}
        for name, module in model.named_modules():
            parent_name = (name.rsplit(".", 1)[0] if "." in name else "") if name else None
            if name:
                rule = self._rule_for(name)
                inherited[name] = rule if rule is not None else inherited[parent_name]
            resolved = self._resolve(inherited[name], name, auto_cpu)
            device = devices[name] = torch.device(vendor if resolved == vendor else resolved)
            own = list(module.parameters(recurse=False)) + list(module.buffers(recurse=False))
            boundary = parent_name is not None and devices[parent_name] != device
            if own or not list(module.children()):
                self.placement[name or "<root>"] = str(device)
                # Module._apply replaces parameters across device types (.data cannot).
                module._apply(lambda tensor: tensor.to(device), recurse=False)
            if own or boundary or not list(module.children()):
                self._hooks.append(module.register_forward_pre_hook(_move_inputs_to(device), with_kwargs=True))
            if boundary:
                self._hooks.append(module.register_forward_hook(_move_outputs_to(devices[parent_name])))
        LOGGER.info("torch_fl placement: %s", ", ".join(f"{n} -> {d}" for n, d in self.placement.items()))
        return model

    def _resolve(self, rule: str, name: str, auto_cpu: set[str]) -> str:
        if rule != "auto":
            return torch.device(rule).type if ":" not in rule else rule
        return "cpu" if name in auto_cpu else _backend.load().device

    def remove_hooks(self) -> None:
        for hook in self._hooks:
            hook.remove()
        self._hooks.clear()

    @staticmethod
    def _leaves_that_fall_back(model: torch.nn.Module, example_inputs: Sequence[Any]) -> set[str]:
        """One batch on the device; leaf modules during whose forward a CPU fallback happened."""
        if not example_inputs:
            raise ValueError("DevicePlacementPolicy: 'auto' needs example_inputs (one batch) to find the fallbacks")
        import copy

        vendor = torch.device(_backend.load().device)
        probe = copy.deepcopy(model).to(vendor)
        fell_back: set[str] = set()
        handles = []
        for name, module in probe.named_modules():
            if name and not list(module.children()):
                def before(_module, _args):
                    _module._torch_fl_fallbacks_before = fallback_count()

                def after(_module, _args, _output, name=name):
                    if fallback_count() != _module._torch_fl_fallbacks_before:
                        fell_back.add(name)
                handles += [module.register_forward_pre_hook(before), module.register_forward_hook(after)]
        inputs = tree_map(lambda v: v.to(vendor) if isinstance(v, torch.Tensor) else v, tuple(example_inputs))
        with torch.no_grad():
            probe(*inputs)
        for handle in handles:
            handle.remove()
        return fell_back


def _mover(device: torch.device):
    def move(tensor):
        if isinstance(tensor, torch.Tensor) and tensor.device != device and tensor.device.type != "meta":
            return tensor.to(device)
        return tensor
    return move


def _move_inputs_to(device: torch.device):
    move = _mover(device)

    def hook(_module, args, kwargs):
        return tree_map(move, args), tree_map(move, kwargs)
    return hook


def _move_outputs_to(device: torch.device):
    move = _mover(device)

    def hook(_module, _args, output):
        return tree_map(move, output)
    return hook
