"""One ModuleInfo of PyTorch's module_db, run on the device against CPU: the
same module (same parameters) and the same sample inputs, forward and
backward, with the CPU fallbacks the device needed. Shared by the module suite
(test_module_db.py) and its summary."""
from __future__ import annotations

import copy
from dataclasses import dataclass, field

import torch
from torch.utils._pytree import tree_flatten, tree_map

import torch_fl

# Modules whose output depends on the random stream: the device's generator is
# not CPU's, so only shapes and dtypes can be compared.
RANDOM_OUTPUT = {"nn.FractionalMaxPool2d", "nn.FractionalMaxPool3d"}


class NoCpuReference(Exception):
    """CPU itself has no kernel for this module at this dtype: nothing to compare with."""


@dataclass
class ModuleResult:
    name: str
    samples: int = 0
    fallback_ops: set[str] = field(default_factory=set)

    @property
    def zero_fallback(self) -> bool:
        return not self.fallback_ops


def _to_device(device):
    def move(value):
        if isinstance(value, torch.Tensor):
            return value.detach().to(device).requires_grad_(value.requires_grad)
        return value
    return move


def _tensors(tree) -> list[torch.Tensor]:
    return [t for t in tree_flatten(tree)[0] if isinstance(t, torch.Tensor)]


def _as_float32(value):
    if isinstance(value, torch.Tensor) and value.dtype.is_floating_point:
        return value.detach().float().requires_grad_(value.requires_grad)
    return value


def assert_no_less_accurate_than_cpu(device: torch.Tensor, cpu: torch.Tensor, float32: torch.Tensor) -> None:
    """float16/bfloat16: kernels may round differently from CPU's (and long
    chains such as a Transformer drift apart), so the device is held to CPU's
    own error against a float32 computation, not to CPU's digits."""
    # Where CPU itself overflows or gives NaN in low precision, there is nothing to hold the device to.
    finite = torch.isfinite(float32) & torch.isfinite(cpu.float())
    assert torch.isfinite(device.float())[finite].all(), "the device gives inf/NaN where CPU does not"
    device_error = _max_abs((device.float() - float32)[finite])
    cpu_error = _max_abs((cpu.float() - float32)[finite])
    scale = _max_abs(float32[finite])
    assert device_error <= 2 * cpu_error + 1e-2 * scale + 1e-3, (
        f"device error {device_error:.3g} against float32, CPU's own error {cpu_error:.3g} (scale {scale:.3g})")


def _max_abs(values: torch.Tensor) -> float:
    return values.abs().max().item() if values.numel() else 0.0


def _differentiable(outputs: list[torch.Tensor]) -> list[torch.Tensor]:
    return [t for t in outputs if t.requires_grad and t.dtype.is_floating_point]


def run_module_info(module_info, device, dtype, training: bool, max_samples: int = 4) -> ModuleResult:
    """Runs up to `max_samples` of the ModuleInfo's inputs; raises AssertionError
    on the first value that differs from CPU."""
    result = ModuleResult(module_info.name)
    compare_values = module_info.name not in RANDOM_OUTPUT
    module_inputs = module_info.module_inputs_func(module_info, device="cpu", dtype=dtype,
                                                   requires_grad=True, training=training)
    for module_input in module_inputs[:max_samples]:
        if module_input.forward_input is None:
            continue
        torch.manual_seed(0)
        args, kwargs = module_input.constructor_input.args, module_input.constructor_input.kwargs
        cpu_module = module_info.module_cls(*args, **kwargs).to(dtype)
        cpu_module.train(training)
        forward_args = module_input.forward_input.args
        forward_kwargs = module_input.forward_input.kwargs
        if module_info.is_lazy:  # materialise the parameters on CPU first, then copy them
            cpu_module(*forward_args, **forward_kwargs)
        device_module = copy.deepcopy(cpu_module).to(device)
        device_args, device_kwargs = tree_map(_to_device(device), (forward_args, forward_kwargs))

        torch_fl.reset_fallback_stats()
        try:
            cpu_out = _tensors(cpu_module(*forward_args, **forward_kwargs))
        except NotImplementedError as error:  # e.g. "avg_pool3d_out_frame" not implemented for 'Half'
            raise NoCpuReference(f"CPU cannot run {module_info.name} in {dtype}: {error}") from error
        device_out = _tensors(device_module(*device_args, **device_kwargs))
        assert len(device_out) == len(cpu_out)
        reference_out = None
        if dtype != torch.float32 and compare_values:
            reference = copy.deepcopy(cpu_module).float()
            reference_args, reference_kwargs = tree_map(_as_float32, (forward_args, forward_kwargs))
            reference_out = _tensors(reference(*reference_args, **reference_kwargs))
        for index, (got, want) in enumerate(zip(device_out, cpu_out)):
            assert got.device.type == torch.device(device).type
            assert got.shape == want.shape and got.dtype == want.dtype
            if not compare_values:
                continue
            if reference_out is None:
                # Some samples give NaN on CPU (LPPool of negative inputs with a
                # fractional norm, KLDivLoss of negative targets): NaN is expected there.
                torch.testing.assert_close(got.cpu(), want, equal_nan=True)
            else:
                assert_no_less_accurate_than_cpu(got.cpu(), want, reference_out[index])

        cpu_diff, device_diff = _differentiable(cpu_out), _differentiable(device_out)
        if cpu_diff and compare_values:
            torch.manual_seed(1)
            grads = [torch.randn_like(t) for t in cpu_diff]
            torch.autograd.backward(cpu_diff, grads)
            torch.autograd.backward(device_diff, [g.to(device) for g in grads])
            cpu_leaves = _tensors((forward_args, forward_kwargs)) + list(cpu_module.parameters())
            device_leaves = _tensors((device_args, device_kwargs)) + list(device_module.parameters())
            reference_leaves = [None] * len(cpu_leaves)
            if reference_out is not None:
                torch.autograd.backward(_differentiable(reference_out), [g.float() for g in grads])
                reference_leaves = _tensors((reference_args, reference_kwargs)) + list(reference.parameters())
            for got, want, exact in zip(device_leaves, cpu_leaves, reference_leaves):
                if want.grad is None:
                    continue
                assert got.grad is not None, "a gradient CPU computes is missing on the device"
                if exact is None:
                    # Gradients sum over a batch (and over time, in a Transformer);
                    # a different summation order moves the last digits.
                    torch.testing.assert_close(got.grad.cpu(), want.grad, equal_nan=True, rtol=1e-4, atol=1e-4)
                else:
                    assert_no_less_accurate_than_cpu(got.grad.cpu(), want.grad, exact.grad)
        result.fallback_ops |= set(torch_fl.fallback_stats())
        result.samples += 1
    return result
