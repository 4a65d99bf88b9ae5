"""torch.compile on the device (runtime/python/torch_fl/compiler.py): Dynamo traces the
MLP, the CNN and the GPT-style model without a graph break, and the compiled forward
and backward, through the eager and aot_eager backends and through Inductor in its
lite mode (every op an ATen call, reaching the vendor's kernels), match eager on the
device with no CPU fallback. Inductor's default mode, which would generate kernels
that read the chip's memory from the host, is refused with the way out."""
from __future__ import annotations

import copy
import subprocess
import sys

import pytest
import torch
import torch._dynamo

import models
import torch_fl
import torch_fl.compiler
from torch_fl import demo


MODELS = {
    "mlp": (demo.make_model, demo.make_data, models.classification_loss),
    "cnn": (models.SmallResNet, models.image_batch, models.classification_loss),
    "gpt": (models.TinyGPT, models.token_batch, models.language_model_loss),
}
# how each is asked for: torch.compile(**kwargs)
COMPILERS = {
    "eager": {"backend": "eager"},
    "aot_eager": {"backend": "aot_eager"},
    "inductor_lite": {"mode": "lite"},
}


def model_and_batch(name, device):
    make_model, make_batch, loss_fn = MODELS[name]
    torch.manual_seed(0)
    model = make_model().to(device)
    inputs, targets = make_batch()
    return model, inputs.to(device), targets.to(device), loss_fn


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


@pytest.mark.parametrize("name", sorted(MODELS))
def test_dynamo_traces_each_model_without_a_graph_break(device, name):
    model, inputs, targets, loss_fn = model_and_batch(name, device)
    explanation = torch._dynamo.explain(lambda x, y: loss_fn(model, x, y))(inputs, targets)
    assert explanation.graph_break_count == 0, [str(r.reason) for r in explanation.break_reasons]
    assert explanation.graph_count == 1


@pytest.mark.parametrize("compiler", sorted(COMPILERS))
@pytest.mark.parametrize("name", sorted(MODELS))
def test_compiled_forward_and_backward_match_eager_natively(device, fallback_mode, name, compiler):
    fallback_mode("strict")  # a CPU fallback in the compiled graph raises
    model, inputs, targets, loss_fn = model_and_batch(name, device)
    reference = copy.deepcopy(model)
    compiled = torch.compile(lambda x, y: loss_fn(model, x, y), fullgraph=True, **COMPILERS[compiler])
    torch_fl.reset_fallback_stats()
    losses = []
    for _ in range(2):  # the second call runs the cached graph
        for m in (model, reference):
            m.zero_grad()
        loss = compiled(inputs, targets)
        loss.backward()
        expected = loss_fn(reference, inputs, targets)
        expected.backward()
        losses.append((loss.item(), expected.item()))
    assert torch_fl.fallback_count() == 0, torch_fl.fallback_report()
    for got, want in losses:
        assert got == pytest.approx(want, rel=1e-5, abs=1e-6), losses
    for (param_name, p), q in zip(model.named_parameters(), reference.parameters()):
        assert p.grad is not None, param_name
        torch.testing.assert_close(p.grad.cpu(), q.grad.cpu(), rtol=1e-4, atol=1e-5, msg=param_name)
    for (buffer_name, b), c in zip(model.named_buffers(), reference.buffers()):  # batch norm's running stats
        torch.testing.assert_close(b.cpu(), c.cpu(), rtol=1e-5, atol=1e-6, msg=buffer_name)


def test_inductor_default_mode_is_refused_with_the_way_out(device):
    model, inputs, targets, loss_fn = model_and_batch("mlp", device)
    compiled = torch.compile(lambda x, y: loss_fn(model, x, y))
    with pytest.raises(Exception) as caught:
        compiled(inputs, targets)
    text = str(caught.value)
    assert f"Inductor asked to generate a kernel for the {device.type} device" in text, text
    assert 'mode="lite"' in text and 'backend="aot_eager"' in text


def test_batch_norm_as_compiled_graphs_call_it_runs_native_batch_norm(device, fallback_mode):
    """AOTAutograd's functional batch norm calls _native_batch_norm_legit (and its
    no_stats and inference forms): the runtime sends them to native_batch_norm's kernel."""
    fallback_mode("strict")
    torch.manual_seed(0)
    x, weight, bias = torch.randn(4, 3, 5, 5), torch.randn(3), torch.randn(3)
    mean, var = torch.randn(3), torch.rand(3) + 0.5
    on = lambda *ts: [t.to(device) for t in ts]  # noqa: E731
    for training in (True, False):
        cpu_stats, dev_stats = [mean.clone(), var.clone()], on(mean, var)
        expected = torch.ops.aten._native_batch_norm_legit(x, weight, bias, *cpu_stats, training, 0.1, 1e-5)
        got = torch.ops.aten._native_batch_norm_legit(*on(x, weight, bias), *dev_stats, training, 0.1, 1e-5)
        torch.testing.assert_close(got[0].cpu(), expected[0], rtol=1e-5, atol=1e-5)
        for d, c in zip(dev_stats, cpu_stats):  # updated in place when training
            torch.testing.assert_close(d.cpu(), c, rtol=1e-5, atol=1e-6)
    expected = torch.ops.aten._native_batch_norm_legit.no_stats(x, weight, bias, True, 0.1, 1e-5)
    got = torch.ops.aten._native_batch_norm_legit.no_stats(*on(x, weight, bias), True, 0.1, 1e-5)
    for g, e in zip(got, expected):
        torch.testing.assert_close(g.cpu(), e, rtol=1e-5, atol=1e-5)
    expected = torch.ops.aten._native_batch_norm_legit_no_training(x, weight, bias, mean, var, 0.1, 1e-5)
    got = torch.ops.aten._native_batch_norm_legit_no_training(*on(x, weight, bias, mean, var), 0.1, 1e-5)
    torch.testing.assert_close(got[0].cpu(), expected[0], rtol=1e-5, atol=1e-5)


def test_dynamo_knows_the_device(device):
    from torch._dynamo import device_interface

    interface = device_interface.get_interface_for_device(device.type)
    assert interface is device_interface.get_interface_for_device(f"{device.type}:0")
    assert interface.device_count() == torch_fl.device_count()
    assert interface.is_available() and not interface.is_triton_capable()
    assert interface.current_device() == 0
    assert isinstance(interface.get_raw_stream(0), int)
    start, end = interface.Event(enable_timing=True), interface.Event(enable_timing=True)
    start.record()
    torch.ones(256, 256, device=device).matmul(torch.ones(256, 256, device=device))
    end.record()
    interface.synchronize()
    assert start.elapsed_time(end) >= 0


REGISTRATION_ORDER = """
import sys, torch
{first}
x = torch.ones(3, device=torch_fl.device())
assert ("torch._dynamo" in sys.modules) == {dynamo_expected}, "importing torch_fl must not import Dynamo"
f = torch.compile(lambda t: (t * 2 + 1).relu().sum(), mode="lite", fullgraph=True)
print("RESULT", f(x).item())
"""


@pytest.mark.parametrize("first", ["import torch_fl", "import torch._dynamo, torch._inductor.graph; import torch_fl"])
def test_registration_does_not_depend_on_import_order_and_costs_no_import(device, first):
    """Importing torch._dynamo takes seconds: torch_fl registers the device when torch
    imports it, before or after torch_fl."""
    script = REGISTRATION_ORDER.format(first=first, dynamo_expected="torch._dynamo" in first)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "RESULT 9.0" in run.stdout


INDUCTOR_HOOK = """
import torch, torch_fl
from torch._inductor.codegen import common
import torch._inductor.graph  # where older releases get the backend registered
dev = torch_fl.device().type
assert torch.get_device_module(dev)._inductor_backend_init is not None
assert common.get_scheduling_for_device(dev) is None, "registered before Inductor asked"
f = torch.compile(lambda t: (t * 2 + 1).relu().sum(), mode="lite", fullgraph=True)
print("RESULT", f(torch.ones(3, device=dev)).item())
assert common.get_scheduling_for_device(dev) is not None
"""


@pytest.mark.skipif(not torch_fl.compiler.inductor_asks_the_device_module(),
                    reason=f"torch {torch.__version__}'s Inductor has no _inductor_backend_init hook (2.15 added it)")
def test_inductor_registers_the_device_through_its_hook_at_the_first_compile(device):
    run = subprocess.run([sys.executable, "-c", INDUCTOR_HOOK], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "RESULT 9.0" in run.stdout


CUSTOM = torch_fl.custom_ops()


@pytest.mark.skipif("rms_norm" not in CUSTOM, reason="this vendor's spec declares no rms_norm")
@pytest.mark.parametrize("compiler", ["aot_eager", "inductor_lite"])
def test_a_vendor_op_compiles_through_its_generated_meta_kernel(device, fallback_mode, compiler):
    """A model calling the vendor's own op: Dynamo and AOTAutograd trace it with fake
    tensors through the meta kernel the generator emits from the spec's output rule."""
    fallback_mode("strict")
    rms_norm = getattr(torch.ops, torch_fl.vendor()).rms_norm
    assert torch._C._dispatch_has_kernel_for_dispatch_key(rms_norm.default._schema.name, "Meta")
    torch.manual_seed(0)
    x, w = torch.randn(4, 3, 16), torch.randn(16)
    step = lambda a, b: (rms_norm(a, b, 1e-5) * 2.0).sum()  # noqa: E731
    compiled = torch.compile(step, fullgraph=True, **COMPILERS[compiler])
    results = []
    for fn in (compiled, step):
        a, b = x.to(device).requires_grad_(), w.to(device).requires_grad_()
        loss = fn(a, b)
        loss.backward()
        results.append((loss.item(), a.grad.cpu(), b.grad.cpu()))
    (loss, grad_x, grad_w), (expected, want_x, want_w) = results
    assert loss == pytest.approx(expected, rel=1e-5)
    torch.testing.assert_close(grad_x, want_x, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(grad_w, want_w, rtol=1e-5, atol=1e-6)
