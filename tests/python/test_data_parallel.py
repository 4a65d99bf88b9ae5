"""nn.DataParallel over the vendor's devices (torch_fl/data_parallel.py), as a user
writes it: a model on device 0 wrapped whole, inputs on the device or on the CPU,
batches that do not split evenly. Training steps match the same steps on CPU, each
replica runs on its own device, and the comm functions under it keep what CUDA's
promise (a tensor already in place is returned itself; outputs in input order)."""
from __future__ import annotations

import subprocess
import sys

import pytest
import torch
import torch.nn.parallel.comm as comm

import torch_fl
from torch_fl import data_parallel

pytestmark = pytest.mark.skipif(torch_fl.device_count() < 2,
                                reason="needs two devices of this vendor (the simulators have two)")


class Recorder(torch.nn.Module):
    """Remembers the device each replica's input came on (replicas share this list)."""

    def __init__(self, seen: list):
        super().__init__()
        self.seen = seen

    def forward(self, x):
        self.seen.append(x.device)
        return x


def make_model(seen: list) -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.BatchNorm1d(8), torch.nn.ReLU(), Recorder(seen),
                               torch.nn.Linear(8, 3))


class Halves(torch.nn.Module):
    """The CPU reference: the model run on each half of the batch, as two replicas run it.
    Buffers (BatchNorm's running statistics) keep only the first half's update: replica 0
    updates the module's own buffers (broadcast returns them themselves on their device,
    as CUDA's does), and the other replicas' copies are dropped."""

    def __init__(self, model: torch.nn.Module):
        super().__init__()
        self.model = model

    def forward(self, inputs):
        first, second = inputs.chunk(2)
        throwaway_buffers = {name: buffer.clone() for name, buffer in self.model.named_buffers()}
        out_second = torch.func.functional_call(self.model, {**dict(self.model.named_parameters()),
                                                             **throwaway_buffers}, (second,))
        return torch.cat([self.model(first), out_second])


def train(model: torch.nn.Module, inputs: torch.Tensor, targets: torch.Tensor, steps: int = 3) -> list[float]:
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(inputs), targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


@pytest.mark.parametrize("inputs_on", ["device", "cpu"])
def test_training_through_data_parallel_matches_cpu(device, inputs_on):
    # 8 rows over two devices: BatchNorm sees 4 per replica, so the CPU reference is the
    # same model run on each half (what DataParallel computes), not one batch of 8.
    x = torch.randn(8, 6, generator=torch.Generator().manual_seed(1))
    y = torch.randn(8, 3, generator=torch.Generator().manual_seed(2))
    seen: list = []
    model = make_model(seen).to(torch.device(device.type, 0))
    parallel = torch.nn.DataParallel(model)
    assert parallel.device_ids == [0, 1]
    got = train(parallel, x.to(torch.device(device.type, 0)) if inputs_on == "device" else x,
                y.to(torch.device(device.type, 0)))

    reference = make_model([])
    expected = train(Halves(reference), x, y)
    torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-6)
    for (name, ours), theirs in zip(model.state_dict().items(), reference.state_dict().values()):
        assert ours.device == torch.device(device.type, 0), name
        torch.testing.assert_close(ours.cpu(), theirs, rtol=1e-5, atol=1e-6, msg=name)
    assert set(seen) == {torch.device(device.type, 0), torch.device(device.type, 1)}


def test_uneven_and_short_batches_and_keyword_inputs(device):
    seen: list = []
    model = make_model(seen).eval().to(torch.device(device.type, 0))
    parallel = torch.nn.DataParallel(model)
    x = torch.randn(5, 6, device=torch.device(device.type, 0))
    one = torch.randn(1, 6)
    expected, expected_one = model(x).cpu(), model(one.to(torch.device(device.type, 0))).cpu()
    seen.clear()
    torch.testing.assert_close(parallel(x).cpu(), expected)  # 3 rows and 2 rows
    assert sorted(map(str, seen)) == [f"{device.type}:0", f"{device.type}:1"]
    seen.clear()
    torch.testing.assert_close(parallel(input=one).cpu(), expected_one)
    assert seen == [torch.device(device.type, 0)]  # a single row runs on one replica only


def test_broadcast_coalesced_keeps_order_and_buckets(device):
    first, second = torch.device(device.type, 0), torch.device(device.type, 1)
    tensors = [torch.arange(6, dtype=torch.float32, device=first), torch.arange(4, device=first),
               torch.full((2, 3), 7.0, dtype=torch.float16, device=first), torch.ones(5, device=first)]
    # a buffer of 32 bytes puts the float32 tensors in separate buckets
    copies = comm.broadcast_coalesced(tensors, [0, 1], buffer_size=32)
    assert all(a is b for a, b in zip(copies[0], tensors))
    for ours, original in zip(copies[1], tensors):
        assert ours.device == second and ours.dtype == original.dtype
        torch.testing.assert_close(ours.cpu(), original.cpu())
    copies[1][0].add_(1)  # each copy has its own version counter and memory
    assert copies[1][3]._version == 0 and tensors[0][0].item() == 0


def test_scatter_gather_and_reduce_add(device):
    first, second = torch.device(device.type, 0), torch.device(device.type, 1)
    x = torch.arange(12.0).reshape(6, 2)
    parts = comm.scatter(x, [0, 1], chunk_sizes=[2, 4])
    assert [p.device for p in parts] == [first, second] and [p.shape[0] for p in parts] == [2, 4]
    torch.testing.assert_close(comm.gather(parts, 0, -1), x)
    torch.testing.assert_close(comm.gather(parts, 0, 1).cpu(), x)
    out = [torch.empty(3, 2, device=first), torch.empty(3, 2, device=second)]
    comm.scatter(x, out=out)
    torch.testing.assert_close(out[1].cpu(), x[3:])
    gathered = torch.empty(6, 2, device=second)
    assert comm.gather(out, out=gathered) is gathered
    torch.testing.assert_close(gathered.cpu(), x)
    torch.testing.assert_close(comm.reduce_add(out, destination=1).cpu(), x[:3] + x[3:])
    summed = comm.reduce_add_coalesced([[out[0], out[0] * 2], [out[1], out[1] * 2]], destination=0)
    torch.testing.assert_close(summed[1].cpu(), (x[:3] + x[3:]) * 2)
    assert summed[0].device == first
    with pytest.raises(RuntimeError, match=r"chunk_sizes \[2, 2\] must give one positive size per device"):
        comm.scatter(x, [0, 1], chunk_sizes=[2, 2])


class Scale(torch.nn.Module):
    def __init__(self, weight: torch.Tensor):
        super().__init__()
        self.weight = torch.nn.Parameter(weight)

    def forward(self, x):
        return x * self.weight


def test_complex_parameters_and_inputs(device):
    """comm moves complex tensors as real views, and DataParallel views the results back."""
    weight = torch.randn(3, dtype=torch.cfloat, generator=torch.Generator().manual_seed(0))
    x = torch.randn(4, 3, dtype=torch.cfloat, generator=torch.Generator().manual_seed(1))
    model = Scale(weight.to(device))
    out = torch.nn.DataParallel(model)(x.to(device))
    torch.testing.assert_close(out.cpu(), x * weight)
    out.abs().sum().backward()
    reference = Scale(weight.clone())
    (x * reference.weight).abs().sum().backward()
    torch.testing.assert_close(model.weight.grad.cpu(), reference.weight.grad)


def test_autocast_around_data_parallel_reaches_every_replica(device):
    """parallel_apply would run the replicas under autocast only if CUDA's were on."""
    seen: list = []
    model = torch.nn.Sequential(torch.nn.Linear(6, 4), Recorder(seen)).to(device)
    x = torch.randn(4, 6, device=device)
    with torch.autocast(device.type, dtype=torch.bfloat16):
        expected = model(x)
        seen.clear()
        got = torch.nn.DataParallel(model)(x)
    assert got.dtype == expected.dtype == torch.bfloat16 and len(seen) == 2
    torch.testing.assert_close(got.float().cpu(), expected.float().cpu())
    with torch_fl.cuda_compat(), torch.cuda.amp.autocast():  # CUDA's spelling
        assert torch.is_autocast_enabled()
        assert torch.nn.DataParallel(model)(x).dtype == torch.get_autocast_dtype(device.type) == torch.float16
    assert not torch._C.is_autocast_enabled("cuda") and not torch.is_autocast_enabled()


def test_comm_checks_what_cudas_checks(device):
    first, second = torch.device(device.type, 0), torch.device(device.type, 1)
    half, single = torch.ones(2, 3, dtype=torch.half, device=first), torch.ones(1, 3, device=second)
    assert comm.gather([half, single], 0, 0).dtype == torch.half  # the first input's dtype, as CUDA's
    with pytest.raises(RuntimeError, match=r"out has shape \(5,\), but the gathered shape is \(3, 3\)"):
        comm.gather([half, single], out=torch.empty(5, device=first))
    with pytest.raises(RuntimeError, match="expected at least one tensor"):
        comm.gather([])
    with pytest.raises(RuntimeError, match=r"output 1 has shape \(3, 4\), but it must match \(6, 1\)"):
        comm.scatter(torch.ones(6, 1), out=[torch.empty(3, 1, device=first), torch.empty(3, 4, device=second)])
    with pytest.raises(RuntimeError, match="output 0 is on cpu"):
        comm.broadcast(half, out=[torch.empty(2, 3, dtype=torch.half)])
    with pytest.raises(RuntimeError, match="0-dimensional tensors have no dimension"):
        comm.gather([half.sum(), half.sum()], destination=0)
    total = comm.reduce_add(inputs=[single.to(first), single], destination=1)  # torch's parameter name
    assert total.device == second and total.sum().item() == 6


def test_sparse_tensors_broadcast_to_the_other_device(device):
    sparse = torch.sparse_coo_tensor(torch.tensor([[0, 1]]), torch.tensor([1.0, 2.0]), (3,)).to(device)
    dense = torch.ones(2, device=device)
    (mine, theirs) = comm.broadcast_coalesced([sparse, dense], [0, 1])
    assert mine[0] is sparse and theirs[0].device == theirs[1].device == torch.device(device.type, 1)
    assert theirs[0].is_sparse and torch.equal(theirs[0].to_dense().cpu(), torch.tensor([1.0, 2.0, 0.0]))


def test_torch_cuda_comm_imported_before_the_backend_is_wrapped_too(device):
    """torch.cuda.comm imports comm's functions by name: imported first, it holds torch's."""
    code = ("import torch.cuda.comm as cuda_comm\nimport torch, torch_fl\n"
            f"x = torch.ones(2, device='{device.type}:0')\n"
            "print(*[t.device for t in cuda_comm.broadcast(x, [0, 1])])\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.split() == [f"{device.type}:0", f"{device.type}:1"]


def test_uninstall_puts_torchs_functions_back_and_install_is_idempotent(device):
    wrapped = comm.scatter
    data_parallel.install()
    assert comm.scatter is wrapped
    parallel_apply = torch.nn.parallel.parallel_apply
    data_parallel.uninstall()
    try:
        assert comm.scatter is wrapped._torch_fl_original and not data_parallel.is_installed()
        assert torch.nn.parallel.parallel_apply is parallel_apply._torch_fl_original
    finally:
        data_parallel.install()
    assert comm.scatter is not wrapped._torch_fl_original


def test_under_cuda_compat_data_parallel_homes_on_the_device(device):
    """CUDA-written code wraps `model.cuda()`: DataParallel must place its replicas' home on
    the vendor's device, where .cuda() put the parameters (it asked torch._utils, which said "cuda")."""
    data_parallel_module = sys.modules["torch.nn.parallel.data_parallel"]
    original = data_parallel_module._get_available_device_type
    with torch_fl.cuda_compat():
        model = torch.nn.Linear(4, 2).cuda()
        parallel = torch.nn.DataParallel(model)
        assert parallel.src_device_obj == torch.device(device.type, 0)
        x = torch.randn(4, 4).cuda()
        torch.testing.assert_close(parallel(x).cpu(), model(x).cpu())
    assert data_parallel_module._get_available_device_type is original
