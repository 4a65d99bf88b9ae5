"""Issue #41's examples, each compared with CPU: in-place writes through views on
the CPU fallback, view ops, conjugate and negative views, random ops with a device
generator, and deterministic mode's fill of new memory. Every test runs with
TORCH_FL_FALLBACK=silent and fails on any warning: the fallback's own "view
operator" warning used to show even then."""
from __future__ import annotations

import copy
import threading
import warnings

import pytest
import torch

import torch_fl


@pytest.fixture(autouse=True)
def silent_and_warning_free(fallback_mode):
    """Warnings of ours, or the fallback's about view operators, are errors; torch's
    own (sparse invariants, nested tensors' prototype status) show on CPU too."""
    fallback_mode("silent")
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=rf".*(\[{torch_fl.vendor()}\]|appears to be a view operator).*")
        yield


def both(make, edit, device):
    """edit(t) applied to make() on CPU and to make().to(device); both results."""
    cpu = make()
    dev = cpu.clone().to(device)
    edit(cpu)
    edit(dev)
    return cpu, dev.cpu()


def assert_same(make, edit, device):
    cpu, dev = both(make, edit, device)
    torch.testing.assert_close(dev, cpu, equal_nan=True)


def _column_setitem(t):
    t[:, 0][t[:, 0] < 0] = 0


def _column_centring(t):
    t[:, 0] -= t[:, 0].mean()


@pytest.mark.parametrize("edit", [
    _column_setitem,
    _column_centring,
    lambda t: t[:, 0].add_(1),
    lambda t: t[:, 1].nan_to_num_(),
    lambda t: t[:, 1].clamp_max_(0.5),
    lambda t: t[:, 2].index_fill_(0, torch.tensor([1, 2], device=t.device), 7),
    lambda t: t[:, 2].index_copy_(0, torch.tensor([0, 3], device=t.device), torch.ones(2, dtype=t.dtype, device=t.device)),
    lambda t: t[:, 1].index_put_((torch.tensor([0, 2], device=t.device),), torch.tensor(5, dtype=t.dtype, device=t.device), accumulate=True),
    lambda t: t[:, 0].masked_scatter_(t[:, 0] > 0, torch.arange(4, dtype=t.dtype, device=t.device)),
    lambda t: t[::2].put_(torch.tensor([0, 5], device=t.device), torch.tensor([9, 8], dtype=t.dtype, device=t.device)),
    lambda t: t.t()[1].scatter_reduce_(0, torch.tensor([0, 0, 1, 1], device=t.device), torch.ones(4, dtype=t.dtype, device=t.device), "sum"),
    lambda t: torch.neg(torch.ones(4, dtype=t.dtype, device=t.device), out=t[:, 1]),
    lambda t: t[:, 1].heaviside_(torch.tensor(0.5, dtype=t.dtype, device=t.device)),
    lambda t: t[:, 2].sigmoid_().logit_(),
    lambda t: t[:, 0].index_reduce_(0, torch.tensor([0, 0, 3], device=t.device),
                                    torch.tensor([2, 3, 4], dtype=t.dtype, device=t.device), "prod"),
], ids=["setitem-mask", "centring", "add_", "nan_to_num_", "clamp_max_", "index_fill_", "index_copy_", "index_put_",
        "masked_scatter_", "put_", "scatter_reduce_", "out=", "heaviside_", "logit_", "index_reduce_"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_in_place_writes_through_column_views(device, edit, dtype):
    """float64 runs on the fallback (the chips have no float64): every write went to
    a dense block at the view's offset, and the view lost its strides."""
    assert_same(lambda: (torch.arange(12.).reshape(4, 3) - 5).to(dtype), edit, device)


@pytest.mark.parametrize("dtype", [torch.int8, torch.int16, torch.uint8, torch.complex64])
def test_in_place_add_on_a_view_of_any_dtype(device, dtype):
    assert_same(lambda: torch.zeros(3, 3, dtype=dtype), lambda t: t[:, 0].add_(1), device)


def test_float32_view_with_a_float64_operand(device):
    assert_same(lambda: torch.zeros(3, 3), lambda t: t[:, 0].add_(torch.ones(3, dtype=torch.float64, device=t.device)), device)


def test_out_into_a_strided_tensor_keeps_its_strides(device):
    cpu = torch.zeros(4, 3)[:, 1]
    dev = torch.zeros(4, 3, device=device)[:, 1]
    torch.heaviside(torch.tensor([-1., 0, 2, 3]), torch.tensor(0.5), out=cpu)
    torch.heaviside(torch.tensor([-1., 0, 2, 3], device=device), torch.tensor(0.5, device=device), out=dev)
    assert dev.stride() == cpu.stride() == (3,)
    assert torch.equal(dev._base.cpu(), cpu._base)


def test_resize_to_the_same_shape_keeps_a_views_strides(device):
    view = torch.zeros(4, 3, device=device)[:, 0]
    view.resize_(4)
    assert view.stride() == (3,)


def test_writes_into_an_expanded_tensor_match_cpu(device):
    """Its elements share memory: the fallback gives CPU the same sharing."""
    def edit(t):
        v = t.unsqueeze(0).expand(3, -1, -1)
        v[v > 3] = 2
        t.as_strided((2, 2), (0, 1)).zero_()
    assert_same(lambda: torch.arange(10, dtype=torch.int64).reshape(5, 2), edit, device)


def test_bernoulli_through_a_column_view_writes_only_the_column(device):
    base = torch.full((4, 3), 7.0, device=device)
    base[:, 1].bernoulli_(0.5)
    column = base[:, 1].cpu()
    assert ((column == 0) | (column == 1)).all()
    assert (base.cpu()[:, [0, 2]] == 7).all()


def test_nn_init_sparse(device):
    torch.manual_seed(0)
    weight = torch.empty(6, 4, device=device)
    torch.nn.init.sparse_(weight, sparsity=0.5)
    assert ((weight.cpu() == 0).sum(0) == 3).all()


def test_view_as_real_complex_and_imag_are_views(device):
    z = torch.complex(torch.arange(4.), torch.zeros(4)).to(device)
    torch.view_as_real(z)[1, 1] = 5
    z.imag[2] = 7
    pairs = torch.zeros(3, 2, device=device)
    torch.view_as_complex(pairs)[0] = 1 + 2j
    assert z.cpu().tolist() == [0j, 1 + 5j, 2 + 7j, 3 + 0j]
    assert pairs.cpu().tolist() == [[1, 2], [0, 0], [0, 0]]
    assert z.is_set_to(z) and not z.is_set_to(z.clone())


def test_conjugate_and_negative_views_copy_in_both_directions(device):
    cpu = torch.complex(torch.randn(5), torch.randn(5))
    dev = cpu.to(device)
    assert torch.equal(dev.conj().cpu(), cpu.conj().resolve_conj())
    assert torch.equal(torch._neg_view(dev).cpu(), -cpu)
    target = torch.zeros(5, dtype=torch.complex64, device=device)
    target.conj().copy_(cpu)  # writes conj(cpu) into target's memory
    assert torch.equal(target.cpu(), cpu.conj().resolve_conj())
    assert torch.equal(dev.conj().clone().cpu(), cpu.conj().resolve_conj())


class _ComplexRoPE(torch.nn.Module):
    """LLaMA's rotary embedding in complex form: the backward of a complex multiply
    copies a conjugate view."""

    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)
        angles = torch.outer(torch.arange(4.), 1.0 / 10000 ** (torch.arange(0, 8, 2).float() / 8))
        self.register_buffer("rotation", torch.polar(torch.ones_like(angles), angles))

    def forward(self, x):
        q = torch.view_as_complex(self.proj(x).reshape(*x.shape[:-1], 4, 2))
        return torch.view_as_real(q * self.rotation).flatten(-2)


def test_complex_rope_trains_as_on_cpu(device):
    torch.manual_seed(0)
    models = [_ComplexRoPE(), None]
    models[1] = type(models[0])()
    models[1].load_state_dict(models[0].state_dict())
    models[1].to(device)
    x = torch.randn(2, 4, 8)
    losses = []
    for model, inputs in ((models[0], x), (models[1], x.to(device))):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(3):
            optimizer.zero_grad()
            loss = model(inputs).square().mean()
            loss.backward()
            optimizer.step()
        losses.append(loss.item())
    assert losses[1] == pytest.approx(losses[0], rel=1e-5)
    torch.testing.assert_close(models[1].proj.weight.detach().cpu(), models[0].proj.weight.detach())


RANDOM_OPS = {
    "randint": lambda d, g: torch.randint(0, 100, (8,), device=d, generator=g),
    "randperm": lambda d, g: torch.randperm(10, device=d, generator=g),
    "bernoulli": lambda d, g: torch.bernoulli(torch.full((8,), 0.5, device=d), generator=g),
    "bernoulli_": lambda d, g: torch.empty(8, device=d).bernoulli_(0.3, generator=g),
    "multinomial": lambda d, g: torch.multinomial(torch.ones(6, device=d), 4, generator=g),
    "exponential_": lambda d, g: torch.empty(8, device=d).exponential_(generator=g),
    "random_": lambda d, g: torch.empty(8, device=d).random_(0, 50, generator=g),
    "poisson": lambda d, g: torch.poisson(torch.full((8,), 3.0, device=d), generator=g),
    "geometric_": lambda d, g: torch.empty(8, device=d).geometric_(0.3, generator=g),
    "cauchy_": lambda d, g: torch.empty(8, device=d).cauchy_(generator=g),
    "log_normal_": lambda d, g: torch.empty(8, device=d).log_normal_(generator=g),
    "normal": lambda d, g: torch.normal(0.0, 1.0, (8,), device=d, generator=g),
    "rand": lambda d, g: torch.rand(8, device=d, generator=g),
}


@pytest.mark.parametrize("op", sorted(RANDOM_OPS))
def test_a_seeded_device_generator_reproduces_every_random_op(device, op):
    draw = RANDOM_OPS[op]
    generator = torch.Generator(device=device)
    generator.manual_seed(7)
    first, second = draw(device, generator).cpu(), draw(device, generator).cpu()
    generator.manual_seed(7)
    assert torch.equal(draw(device, generator).cpu(), first)
    assert torch.equal(draw(device, generator).cpu(), second)


@pytest.mark.parametrize("op", sorted(RANDOM_OPS))
def test_the_device_seed_and_rng_state_reproduce_every_random_op(device, op):
    draw = RANDOM_OPS[op]
    module = getattr(torch, device.type)
    module.manual_seed(11)
    first = draw(device, None).cpu()
    state = module.get_rng_state()
    second = draw(device, None).cpu()
    module.manual_seed(11)
    assert torch.equal(draw(device, None).cpu(), first)
    module.set_rng_state(state)
    assert torch.equal(draw(device, None).cpu(), second)
    # torch.manual_seed seeds the device too, and CPU's generator is not what it draws from.
    torch.manual_seed(3)
    seeded = draw(device, None).cpu()
    torch.manual_seed(3)
    torch.rand(5)  # a CPU draw in between changes nothing on the device
    assert torch.equal(draw(device, None).cpu(), seeded)


@pytest.mark.parametrize("dtype, fill", [(torch.float32, float("nan")), (torch.float64, float("nan")),
                                         (torch.int32, 2**31 - 1), (torch.uint8, 255)])
def test_deterministic_mode_fills_new_memory(device, dtype, fill):
    stale = torch.full((64,), 3, dtype=dtype, device=device)
    del stale  # its block goes back to the cache, for the next allocation to reuse
    torch.use_deterministic_algorithms(True)
    try:
        made = [torch.empty(64, dtype=dtype, device=device),
                torch.empty_strided((8, 8), (1, 8), dtype=dtype, device=device),
                torch.empty_like(torch.zeros(64, dtype=dtype, device=device)),
                torch.zeros(2, dtype=dtype, device=device).new_empty(64)]
        grown = torch.zeros(1, dtype=dtype, device=device)
        grown.resize_(64)
        for t in made + [grown[1:]]:
            expected = torch.full(t.shape, fill, dtype=dtype)
            torch.testing.assert_close(t.cpu(), expected, equal_nan=True)
    finally:
        torch.use_deterministic_algorithms(False)


def test_sparse_embedding_with_sparse_adam_matches_cpu(device):
    torch.manual_seed(0)
    embeddings = [torch.nn.Embedding(20, 6, sparse=True)]
    embeddings.append(copy.deepcopy(embeddings[0]).to(device))
    indices = torch.tensor([[1, 4, 4, 9], [0, 19, 4, 2]])
    for embedding in embeddings:
        on = embedding.weight.device
        optimizer = torch.optim.SparseAdam(embedding.parameters(), lr=0.1)
        for _ in range(3):
            optimizer.zero_grad()
            embedding(indices.to(on)).square().sum().backward()
            assert embedding.weight.grad.is_sparse and embedding.weight.grad.device == on
            optimizer.step()
    torch.testing.assert_close(embeddings[1].weight.detach().cpu(), embeddings[0].weight.detach())


def test_sparse_coo_tensors_move_and_compute(device):
    indices, values = torch.tensor([[0, 1, 1], [2, 0, 2]]), torch.tensor([3., 4, 5])
    cpu = torch.sparse_coo_tensor(indices, values, (2, 3))
    for dev in (cpu.to(device), torch.sparse_coo_tensor(indices.to(device), values.to(device), (2, 3))):
        assert dev.is_sparse and dev.device == device and dev._values().device == device
        assert torch.equal(dev.to_dense().cpu(), cpu.to_dense())
        assert torch.equal((dev + dev).coalesce().cpu().to_dense(), (cpu + cpu).to_dense())
        dense = torch.ones(3, 2, device=device)
        assert torch.equal(torch.sparse.mm(dev, dense).cpu(), torch.sparse.mm(cpu, dense.cpu()))
        assert torch.equal(dev.cpu().to_dense(), cpu.to_dense())
        total = torch.zeros(2, 3, device=device)
        total.add_(dev)
        assert torch.equal(total.cpu(), cpu.to_dense())


@pytest.mark.skipif(torch_fl.device_count() < 2, reason="needs two devices of this vendor (the simulators have two)")
def test_sparse_coo_tensors_go_to_a_device_that_is_not_the_current_one(device):
    """ATen's sparse constructors make the tensor's own empty indices and values on the current
    device first: without a guard, a sparse tensor for device 1 made while device 0 is current
    failed SparseTensorImpl's device check (nn.DataParallel broadcasts sparse buffers so)."""
    second = torch.device(device.type, 1)
    cpu = torch.sparse_coo_tensor(torch.tensor([[0, 1], [2, 0]]), torch.tensor([3., 4]), (2, 3))
    assert getattr(torch, device.type).current_device() == 0
    for moved in (cpu.to(second), cpu.to(device).to(second), cpu.to(second).clone(),
                  torch.sparse_coo_tensor(cpu._indices().to(second), cpu._values().to(second), (2, 3)),
                  torch.zeros(2, 3, layout=torch.sparse_coo, device=second) + cpu.to(second)):
        assert moved.device == moved._indices().device == moved._values().device == second
        assert torch.equal(moved.to_dense().cpu(), cpu.to_dense())


def test_transformer_encoder_fast_path_with_a_padding_mask_matches_cpu(device):
    """In eval mode with a src_key_padding_mask the encoder packs its input into a
    nested tensor (its "sparsity fast path") without being asked."""
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
    encoders = [torch.nn.TransformerEncoder(layer, 2).eval()]
    encoders.append(copy.deepcopy(encoders[0]).to(device))
    x = torch.randn(3, 5, 8)
    mask = torch.tensor([[False] * 5, [False] * 3 + [True] * 2, [False] * 4 + [True]])
    outputs = []
    for encoder in encoders:
        on = next(encoder.parameters()).device
        with torch.no_grad():
            outputs.append(encoder(x.to(on), src_key_padding_mask=mask.to(on)).cpu())
    torch.testing.assert_close(outputs[1], outputs[0], rtol=1e-4, atol=1e-5)


def test_nested_tensors_live_on_the_device(device):
    parts = [torch.randn(2, 3), torch.randn(4, 3)]
    nested = torch.nested.nested_tensor([p.to(device) for p in parts])
    assert nested.is_nested and nested.device == device
    doubled = (nested * 2).to_padded_tensor(0.0)
    expected = torch.nested.nested_tensor(parts).mul(2).to_padded_tensor(0.0)
    assert torch.equal(doubled.cpu(), expected)
    assert [t.cpu().tolist() for t in nested.unbind()] == [p.tolist() for p in parts]


def test_a_write_into_an_overlapping_conjugate_view_matches_cpu(device):
    """Found by the composition fuzzer (chain 102402): the conjugate bit was applied
    in place to the destination after the copy, twice to elements sharing memory."""
    def edit(t):
        v = t.conj().as_strided([2, 2], [1, 1], t.storage_offset())
        v[torch.tensor([1, 0], device=t.device)] += 3
    assert_same(lambda: torch.complex(torch.arange(8.), -torch.arange(8.)).reshape(4, 2), edit, device)


def test_a_fallback_write_leaves_memory_between_its_arguments_alone(device):
    """Two arguments on one storage are copied to CPU as one span; only their own
    elements go back. Another thread's writes to a row between them must survive
    (found by a second reading: the whole span went back, reverting them)."""
    base = torch.zeros(8, 4, device=device)
    index = torch.tensor([0, 1], device=device)

    def fallback_writes():
        for _ in range(200):  # base[0] written and base[-1] read by one fallback op: one span
            base[0].index_put_((index,), base[-1][:2], accumulate=True)

    writer = threading.Thread(target=fallback_writes)
    writer.start()
    for _ in range(200):
        base[4].add_(1)
    writer.join()
    assert torch.equal(base[4].cpu(), torch.full((4,), 200.0))


def test_sparse_in_place_ops_update_the_values_held(device):
    s = torch.sparse_coo_tensor(torch.tensor([[0, 1, 1], [2, 0, 2]]), torch.tensor([3., 4, 5]), (2, 3))
    s = s.coalesce().to(device)
    values = s.values()
    s.div_(2)
    assert values.cpu().tolist() == [1.5, 2.0, 2.5]


def test_sparse_and_nested_views_stay_on_the_device(device):
    s = torch.sparse_coo_tensor(torch.tensor([[0, 1], [2, 0]]), torch.tensor([3., 4]), (2, 3)).to(device)
    assert torch.equal(s.permute(1, 0).to_dense().cpu(), s.to_dense().cpu().t())
    assert s.unsqueeze(0).shape == (1, 2, 3)
    nested = torch.nested.nested_tensor([torch.arange(6.).reshape(2, 3), torch.arange(3.).reshape(1, 3)]).to(device)
    assert torch.equal(nested[0].cpu(), torch.arange(6.).reshape(2, 3))
    assert nested.detach().is_nested and nested.transpose(1, 2).is_nested


def test_an_out_tensor_resized_by_the_fallback_takes_cpus_strides(device):
    x = torch.randn(2, 3, 4, 5).to(memory_format=torch.channels_last)
    expected = torch.special.bessel_j0(x, out=torch.empty(0))
    out = torch.special.bessel_j0(x.to(device), out=torch.empty(0, device=device))
    assert out.stride() == expected.stride()
    torch.testing.assert_close(out.cpu(), expected)


def test_a_device_generator_with_cpu_tensors_is_refused_as_on_cpu(device):
    generator = torch.Generator(device=device)
    with pytest.raises(RuntimeError):
        torch.multinomial(torch.full((4,), 0.5), 2, generator=generator)
