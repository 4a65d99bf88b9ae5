"""CUDA-code compatibility (opt-in): a training script written exactly as for
CUDA runs on the vendor's device with compat on, matches CPU, and fails as it
would without a GPU when compat is off; disable() restores every object."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
import torch

import torch_fl
from torch_fl import cuda_compatibility

# What this file tests is the same code for every vendor: chip_independent (conftest.py).
pytestmark = pytest.mark.chip_independent

# Written as a user writes it for a GPU: nothing here names the vendor.
CUDA_TRAINING_SCRIPT = r"""
import io, sys, torch
assert torch.cuda.is_available() and torch.cuda.device_count() >= 1
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1)).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
scaler = torch.cuda.amp.GradScaler(init_scale=2.0**10)
x = torch.randn(32, 8).cuda()
y = torch.zeros(32, 1, device="cuda") + x.sum(dim=1, keepdim=True).to("cuda:0") * 0.5
for _ in range(20):
    optimizer.zero_grad()
    with torch.cuda.amp.autocast():
        loss = torch.nn.functional.mse_loss(model(x).float(), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
torch.cuda.synchronize()
buffer = io.BytesIO()
torch.save(model.state_dict(), buffer)
buffer.seek(0)
state = torch.load(buffer, map_location="cuda")
assert all(t.is_cuda for t in state.values())
print(next(iter(state.values())).device.type, f"{loss.item():.6f}", torch.cuda.memory_allocated() > 0)
"""


def run_script(compat: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, TORCH_FL_FALLBACK="silent", TORCH_FL_CUDA_COMPAT=compat)
    code = "import torch_fl\n" + CUDA_TRAINING_SCRIPT
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)


def test_a_cuda_training_script_runs_on_the_device_with_compat_on(device):
    run = run_script("1")
    assert run.returncode == 0, run.stderr
    device_type, loss, allocated = run.stdout.split()
    assert device_type == device.type and allocated == "True"
    assert float(loss) < 1.0


def test_the_same_script_fails_cleanly_with_compat_off(device):
    run = run_script("0")
    assert run.returncode != 0
    assert "AssertionError" in run.stderr and "Traceback" in run.stderr


def test_compat_results_match_cpu(device):
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 3)
    x = torch.randn(5, 4)
    expected = model(x)
    with torch_fl.cuda_compat():
        got = model.cuda()(x.to("cuda"))
        assert got.device.type == device.type
        last = torch_fl.device_count() - 1  # cuda:1 on the simulators' two devices
        assert torch.zeros(2, device=torch.device("cuda", last)).device == torch.device(device.type, last)
        assert x.to(0).device == torch.device(device.type, 0)
        with torch.autocast("cuda", dtype=torch.float16):
            assert torch.mm(got.float(), torch.ones(3, 2, device="cuda")).dtype == torch.float16
    torch.testing.assert_close(got.cpu(), expected.detach())


def test_disable_restores_every_patched_object(device):
    watched = [(torch, "zeros"), (torch, "load"), (torch, "autocast"), (torch.Tensor, "to"), (torch.Tensor, "cuda"),
               (torch.nn.Module, "to"), (torch.cuda, "is_available"), (torch.cuda, "Stream"),
               (torch.cuda.amp, "autocast"), (torch.amp, "GradScaler")]
    before = [getattr(owner, name) for owner, name in watched]
    is_cuda_before = "is_cuda" in vars(torch.Tensor)
    torch_fl.cuda_compat.enable()
    assert torch.cuda.is_available is getattr(torch, device.type).is_available
    torch_fl.cuda_compat.disable()
    after = [getattr(owner, name) for owner, name in watched]
    assert all(a is b for a, b in zip(after, before))
    assert ("is_cuda" in vars(torch.Tensor)) == is_cuda_before
    assert not torch_fl.cuda_compat.is_enabled()


def test_compat_is_never_on_by_default(device):
    assert not torch_fl.cuda_compat.is_enabled()
    assert torch.cuda.is_available is not getattr(torch, device.type).is_available


def test_a_real_cuda_device_makes_compat_refuse_unless_forced(device, monkeypatch):
    monkeypatch.setattr(cuda_compatibility, "_real_cuda_present", lambda: True)
    with pytest.raises(RuntimeError, match="real CUDA device.*force=True"):
        torch_fl.cuda_compat.enable()
    assert not torch_fl.cuda_compat.is_enabled()
    with torch_fl.cuda_compat(force=True):
        assert torch.ones(1, device="cuda").device.type == device.type


# In this process (where `make mutation` sees the package code the script runs).

def test_the_cuda_training_script_runs_in_this_process_with_compat_on(device, fallback_mode):
    import contextlib
    import io
    import warnings
    fallback_mode("silent")
    printed = io.StringIO()
    with torch_fl.cuda_compat(), warnings.catch_warnings(), contextlib.redirect_stdout(printed):
        warnings.simplefilter("ignore", FutureWarning)  # torch.cuda.amp's deprecation: the script is old code
        exec(compile(CUDA_TRAINING_SCRIPT, "cuda_training_script", "exec"), {"__name__": "__main__"})
    device_type, loss, allocated = printed.getvalue().split()
    assert device_type == device.type and allocated == "True" and float(loss) < 1.0


def test_cuda_method_forms_name_the_vendor_device(device):
    last = torch_fl.device_count() - 1
    module = getattr(torch, device.type)
    x = torch.ones(2)
    copies = []

    class RecordsCopies(torch.Tensor):
        def to(self, *args, **kwargs):
            copies.append(kwargs)
            return super().to(*args, **kwargs)

    with torch_fl.cuda_compat():
        module.set_device(last)
        try:
            assert x.cuda().device == torch.device(device.type, last)  # the current device, with its index
        finally:
            module.set_device(0)
        for form in (last, f"cuda:{last}", torch.device("cuda", last), torch.device(device.type, last)):
            assert x.cuda(form).device == torch.device(device.type, last), form
        assert torch.nn.Linear(2, 2).cuda(last).weight.device == torch.device(device.type, last)
        x.as_subclass(RecordsCopies).cuda(non_blocking=True)
        x.as_subclass(RecordsCopies).cuda(0, memory_format=torch.contiguous_format)
    assert copies == [{"non_blocking": True}, {"non_blocking": False, "memory_format": torch.contiguous_format}]


def test_torch_cuda_functions_take_cuda_spellings_of_a_device(device):
    """HF TrainingArguments calls torch.cuda.set_device(torch.device("cuda:0")): every
    torch.cuda function the layer maps takes what the layer promises to map; ints stay
    indices and seeds."""
    last = torch_fl.device_count() - 1
    module = getattr(torch, device.type)
    with torch_fl.cuda_compat():
        try:
            for form in (torch.device("cuda", last), f"cuda:{last}"):
                torch.cuda.set_device(form)
                assert module.current_device() == last, form
                torch.cuda.set_device(0)
            torch.cuda.set_device(torch.device("cuda"))  # no index: the current device stays
            assert module.current_device() == 0
            with torch.cuda.device(f"cuda:{last}"):
                assert module.current_device() == last
            assert module.current_device() == 0
        finally:
            module.set_device(0)
        torch.cuda.synchronize(torch.device("cuda", 0))
        x = torch.ones(1024, device="cuda")
        assert torch.cuda.memory_allocated("cuda:0") == module.memory_allocated(0) > 0
        assert torch.cuda.get_device_name(torch.device("cuda")) == module.get_device_name(0)
        assert torch.cuda.mem_get_info("cuda:0")[1] > 0
        torch.cuda.manual_seed(7)  # an int is a seed, not a device
        first = torch.rand(3, device="cuda")
        torch.cuda.manual_seed(7)
        assert torch.equal(torch.rand(3, device="cuda"), first)
        del x
    with pytest.raises(ValueError, match="expected a .* device, got cuda:0"):
        module.set_device(torch.device("cuda:0"))  # with the layer off, a CUDA device is refused


def test_autocast_and_grad_scaler_spelled_for_cuda_take_the_vendor_device(device):
    with torch_fl.cuda_compat():
        for scaler in (torch.amp.GradScaler("cuda", init_scale=4.0), torch.amp.GradScaler(init_scale=4.0),
                       torch.cuda.amp.GradScaler(init_scale=4.0)):
            assert scaler._device == device.type and scaler._init_scale == 4.0
        assert torch.amp.GradScaler("cpu")._device == "cpu"
        with torch.autocast("cuda", dtype=torch.bfloat16):
            assert torch.get_autocast_dtype(device.type) == torch.bfloat16
            assert torch.is_autocast_enabled(device.type)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            assert torch.is_autocast_enabled("cpu") and not torch.is_autocast_enabled(device.type)


@pytest.mark.parametrize("value, force", [("1", False), ("force", True), ("0", None), ("", None)])
def test_the_environment_turns_compat_on_and_forces_it_only_when_asked(monkeypatch, value, force):
    calls = []
    monkeypatch.setattr(cuda_compatibility, "enable", lambda force=False: calls.append(force))
    monkeypatch.setenv(cuda_compatibility.ENV_VAR, value)
    cuda_compatibility.apply_environment()
    assert calls == ([] if force is None else [force])


class _Doubled(torch.autograd.Function):
    @staticmethod
    @torch.amp.custom_fwd(device_type="cuda", cast_inputs=torch.float32)
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


def test_torchs_own_cuda_autocast_leaves_cudas_state_alone(device):
    """custom_fwd builds torch's own (unpatched) autocast("cuda"), which saves and restores
    CUDA's state through torch.is_autocast_enabled("cuda"): the layer answers for the vendor
    only when no device is named, so CUDA's state is what it was afterwards."""
    before = torch._C.is_autocast_enabled("cuda"), torch._C.get_autocast_dtype("cuda")
    with torch_fl.cuda_compat():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            assert torch.is_autocast_enabled() and not torch.is_autocast_enabled("cuda")
            result = _Doubled.apply(torch.ones(3, device="cuda"))
        assert result.dtype == torch.float32
    assert (torch._C.is_autocast_enabled("cuda"), torch._C.get_autocast_dtype("cuda")) == before
    assert not torch.is_autocast_enabled()
