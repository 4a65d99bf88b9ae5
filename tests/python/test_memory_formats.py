"""Outputs have the strides PyTorch gives on CPU: for every OpInfo that
exercises a native overload, its samples with a channels_last (4-D, 5-D) or
transposed (2-D) input; and the gradients of the layers whose kernels allocate
by a rule (convolution, batch norm, pooling) on channels_last inputs."""
from __future__ import annotations

import os
import sys
import warnings

import pytest
import torch
from torch.testing._internal.common_methods_invocations import op_db
from torch.utils._pytree import tree_flatten, tree_map

import torch_fl

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "conformance_tool"))
from selection import RANDOM_OVERLOADS, comparable, native_overloads, select_opinfos  # noqa: E402

SELECTED = select_opinfos(native_overloads(torch_fl.support_matrix()))
OPINFOS = [op for op in op_db if f"{op.name}:{op.variant_test_name}" in SELECTED]
MAX_SAMPLES = 4


def relayout(tensor: torch.Tensor):
    """The same values in the layout users meet most after the default one."""
    if tensor.dim() == 4:
        return tensor.contiguous(memory_format=torch.channels_last)
    if tensor.dim() == 5:
        return tensor.contiguous(memory_format=torch.channels_last_3d)
    if tensor.dim() == 2:
        return tensor.t().contiguous().t()
    return None


def layout(tensor: torch.Tensor) -> tuple:
    """Strides, ignoring dims of size 1 (their stride is arbitrary)."""
    return tuple(s for s, n in zip(tensor.stride(), tensor.shape) if n != 1)


def is_non_overlapping_and_dense(tensor: torch.Tensor) -> bool:
    """Its elements fill a block of memory exactly, in some order of dims."""
    expected = 1
    dims = sorted(((s, n) for n, s in zip(tensor.shape, tensor.stride()) if n != 1))
    for stride, size in dims:
        if stride != expected:
            return False
        expected *= size
    return True


def assert_same_layouts(device_result, cpu_result, what: str) -> None:
    for got, want in zip(tree_flatten(device_result)[0], tree_flatten(cpu_result)[0]):
        if isinstance(want, torch.Tensor) and want.numel() > 1 and is_non_overlapping_and_dense(want):
            assert got.shape == want.shape, what
            assert layout(got) == layout(want), f"{what}: strides {got.stride()} on the device, {want.stride()} on CPU"


# OpInfos whose device kernel is another op than CPU runs, with a layout contract of its own.
LAYOUT_NOT_CPUS = {
    "nn.functional.scaled_dot_product_attention":
        "the device runs the fused attention hook, whose layout is its meta function's (the output laid out as "
        "the query, as CUDA's kernels do; a compiled graph relies on it: test_compile), while CPU runs its own "
        "math or flash path",
}


@pytest.mark.parametrize("op", OPINFOS, ids=lambda op: f"{op.name}.{op.variant_test_name}".rstrip("."))
def test_outputs_follow_cpu_strides_for_relaid_inputs(op, device):
    if SELECTED[f"{op.name}:{op.variant_test_name}"][1] & RANDOM_OVERLOADS:
        pytest.skip("random results: compared for reproducibility in test_native_ops.py")
    if op.name in LAYOUT_NOT_CPUS:
        pytest.skip(LAYOUT_NOT_CPUS[op.name])
    tried = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for sample in op.sample_inputs("cpu", torch.float32):
            if tried >= MAX_SAMPLES:
                break
            if not isinstance(sample.input, torch.Tensor) or relayout(sample.input) is None or not comparable(sample):
                continue
            cpu_input = relayout(sample.input.detach())
            cpu_args = (cpu_input, sample.args, dict(sample.kwargs))
            device_args = tree_map(lambda v: v.detach().to(device) if isinstance(v, torch.Tensor) else v, cpu_args)
            device_args[0].set_(relayout(sample.input.detach().to(device)))  # .to() may not keep the layout
            try:
                expected = op(cpu_args[0], *cpu_args[1], **cpu_args[2])
            except (RuntimeError, ValueError):
                continue  # the relaid input is not valid for this op on CPU either
            fallbacks_before = torch_fl.fallback_count()
            actual = op(device_args[0], *device_args[1], **device_args[2])
            if torch_fl.fallback_count() != fallbacks_before:
                continue  # a CPU fallback decided the layout, not a native kernel
            assert_same_layouts(actual, expected, f"{op.name} on input of strides {cpu_input.stride()}")
            tried += 1
    if tried == 0:
        pytest.skip(f"no sample of {op.name} with a 2-D, 4-D or 5-D tensor input ran natively")


LAYERS = {
    "conv2d": lambda: torch.nn.Conv2d(3, 4, 3, padding=1),
    "conv3d": lambda: torch.nn.Conv3d(3, 4, 3),
    "conv2d-no-bias-strided": lambda: torch.nn.Conv2d(3, 4, 3, stride=2, bias=False),
    "batch_norm2d": lambda: torch.nn.BatchNorm2d(3),
    "adaptive_avg_pool2d": lambda: torch.nn.AdaptiveAvgPool2d((2, 3)),
    "max_pool2d": lambda: torch.nn.MaxPool2d(2),
    "relu": lambda: torch.nn.ReLU(),
    "dropout-eval": lambda: torch.nn.Dropout(0.5).eval(),
}


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layer_outputs_and_gradients_keep_channels_last(name, device):
    torch.manual_seed(0)
    layer = LAYERS[name]()
    shape = (2, 3, 5, 6, 6) if "3d" in name else (2, 3, 6, 6)
    x = torch.randn(shape)
    x = x.contiguous(memory_format=torch.channels_last if x.dim() == 4 else torch.channels_last_3d)
    results = []
    for target in ("cpu", device):
        module = layer.to(target)
        inp = x.detach().to(target)
        if inp.stride() != x.stride():
            inp = inp.contiguous(memory_format=torch.channels_last if x.dim() == 4 else torch.channels_last_3d)
        inp.requires_grad_()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = module(inp)
            out.backward(torch.ones_like(out))
        results.append([out, inp.grad] + [p.grad for p in module.parameters()])
        module.zero_grad()
    assert_same_layouts(results[1], results[0], name)


@pytest.mark.parametrize("given", ["empty", "right size"])
def test_an_out_tensor_takes_cpus_strides_only_when_the_op_resizes_it(device, given):
    """cat of channels-last inputs into an empty out= tensor gives a channels-last
    result on CPU (ATen restrides what it resizes); an out= tensor of the right
    size keeps its own strides. The conformance run found the first one contiguous."""
    a = torch.randn(2, 3, 2, 2).to(memory_format=torch.channels_last)

    def cat_into(d):
        out = torch.empty(0, device=d) if given == "empty" else torch.empty(4, 3, 2, 2, device=d)
        returned = torch.cat([a.to(d), a.to(d)], out=out)
        assert returned is out
        return out

    expected, actual = cat_into("cpu"), cat_into(device)
    assert actual.stride() == expected.stride()
    torch.testing.assert_close(actual.cpu(), expected)
