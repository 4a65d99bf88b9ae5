"""The OpenCL vendor's two memory paths (vendors/opencl/driver/ocl_svm.h).

The handle path (the default) hands PyTorch opaque addresses in a reserved,
inaccessible range; TORCH_FL_OPENCL_MEMORY=svm hands it the addresses of
shared virtual memory. Both run every kernel on a cl_mem plus an offset. The
whole Python suite runs on either (CI runs it on the handle path); these tests
tell the paths apart and run a training step on the SVM one in a fresh process.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
import torch

import torch_fl
from torch_fl import device_module

pytestmark = pytest.mark.skipif("memory_svm" not in device_module.driver_counters(),
                                reason="only the OpenCL driver has a choice of memory paths")


def mapping_permissions(address: int) -> str:
    """The permissions ("r-xp", "---p", ...) of the mapping of this process that holds `address`."""
    with open("/proc/self/maps") as maps:
        for line in maps:
            span, permissions = line.split()[:2]
            start, end = (int(part, 16) for part in span.split("-"))
            if start <= address < end:
                return permissions
    return "unmapped"


def test_this_process_runs_the_path_the_environment_chose(device):
    wanted_svm = os.environ.get("TORCH_FL_OPENCL_MEMORY") == "svm"
    assert device_module.driver_counters()["memory_svm"] == (1 if wanted_svm else 0)
    x = torch.ones(1024).to(device)
    permissions = mapping_permissions(x.data_ptr())
    if wanted_svm:
        assert permissions.startswith("rw"), f"an SVM address is host memory the platform mapped: {permissions}"
    else:
        # An opaque address: a host-side dereference faults instead of reading garbage.
        assert permissions == "---p", f"a handle-path address must be inaccessible, its mapping is {permissions}"


SVM_STEP = textwrap.dedent("""
    import torch, torch_fl
    from torch_fl import device_module
    assert device_module.driver_counters()["memory_svm"] == 1
    device = torch_fl.device(0)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.LayerNorm(16), torch.nn.Linear(16, 3))
    data, target = torch.randn(32, 8), torch.randint(0, 3, (32,))
    state = {k: v.clone() for k, v in model.state_dict().items()}
    def train(model, device):
        model.to(device)
        optimizer = torch.optim.AdamW(model.parameters(), lr=0.01)
        for _ in range(5):
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(data.to(device)), target.to(device))
            loss.backward()
            optimizer.step()
        return {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}  # not aliases of the CPU model
    on_cpu = train(model, "cpu")
    model.load_state_dict(state)
    on_device = train(model, device)
    for name in on_cpu:
        torch.testing.assert_close(on_device[name], on_cpu[name], rtol=1e-4, atol=1e-5)
    # In-place writes through a view, and memory given back.
    module = getattr(torch, device.type)
    module.synchronize(); module.empty_cache()
    free_before = module.mem_get_info(0)[0]
    x = torch.zeros(6, 6).to(device)
    x[1:4, 2:5].add_(1)
    expected = torch.zeros(6, 6); expected[1:4, 2:5] += 1
    assert torch.equal(x.cpu(), expected)
    del x
    module.synchronize(); module.empty_cache()
    assert module.mem_get_info(0)[0] == free_before, "SVM allocations leaked"
    print("svm ok")
""")


def test_a_training_step_on_the_svm_path_matches_cpu():
    if os.environ.get("TORCH_FL_OPENCL_MEMORY") == "svm":
        pytest.skip("this process already runs the SVM path: the suite itself is the test")
    env = dict(os.environ, TORCH_FL_OPENCL_MEMORY="svm", TORCH_FL_FALLBACK="strict")
    run = subprocess.run([sys.executable, "-c", SVM_STEP], env=env, capture_output=True, text=True, timeout=600)
    if run.returncode != 0 and "no coarse-grain buffer SVM" in run.stderr:
        pytest.skip("this machine's OpenCL devices have no coarse-grain buffer SVM")
    assert run.returncode == 0, run.stderr[-3000:]
    assert "svm ok" in run.stdout


def test_an_unknown_memory_path_is_refused_naming_the_choices():
    env = dict(os.environ, TORCH_FL_OPENCL_MEMORY="unified")
    script = "import torch, torch_fl\ntorch.ones(1).to(torch_fl.device(0))"
    run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode != 0
    assert "TORCH_FL_OPENCL_MEMORY=unified is not a memory path: use 'buffers'" in run.stderr, run.stderr[-2000:]
    assert "'svm'" in run.stderr
    assert "Exception ignored in atexit" not in run.stderr, "a driver that never started has nothing to drain"
