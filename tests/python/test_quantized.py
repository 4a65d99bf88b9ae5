"""Quantized tensors on the device (runtime/src/quantized_ops.cpp), against CPU.

Quantizing and dequantizing run as device ops: the integers must equal CPU's
exactly (ties, clamping, every quantized dtype, per-tensor and per-channel);
dequantized values agree within float rounding (CPU's own vector and scalar
paths round `scale * (q - zero_point)` differently). The tensor then behaves as
a CPU one does: moves, copies, views that write through, save/load, deepcopy,
and ops with no device kernel on the CPU fallback."""
from __future__ import annotations

import copy
import io
import warnings

import pytest
import torch
from torch.testing._internal.common_dtype import get_all_dtypes

import torch_fl

# ATen warns that these creation functions are deprecated; they are still its API.
pytestmark = pytest.mark.filterwarnings("ignore:torch.quantize_per_tensor")

# Odd zero points move ties (torch 2.13's CPU adds the zero point before rounding,
# 2.14's after; the device must follow whichever torch is installed). qint32 takes
# zero point 0: CPU computes q - zero_point in int32, which wraps at the ends of
# the range, where the device (in int64) does not.
WHOLE_BYTE = [(torch.qint8, 10), (torch.qint8, -7), (torch.quint8, 127), (torch.qint32, 0)]
SUB_BYTE = [torch.quint4x2, torch.quint2x4]
QUANTIZED = {torch.qint8, torch.quint8, torch.qint32, *SUB_BYTE}


def values() -> torch.Tensor:
    """Random values, exact ties at half a step either way of zero, and values far past the range.

    Not past int32 once scaled: torch 2.14's CPU rounds value / scale into an int32
    before adding the zero point, and wraps there (-1e10 comes out as qint8's 127);
    the device clamps."""
    torch.manual_seed(0)
    random = torch.randn(5, 7) * 4
    ties = torch.tensor([0.05, -0.05, 0.15, -0.15, 0.25, 2.5, -2.5])
    extremes = torch.tensor([1e4, -1e4, 1e7, -1e7, 12.7, -12.8, 0.0])
    return torch.cat([random, ties.unsqueeze(0), extremes.unsqueeze(0)])


@pytest.mark.parametrize("dtype,zero_point", WHOLE_BYTE, ids=str)
def test_quantize_per_tensor_gives_cpus_integers(device, dtype, zero_point):
    x = values()
    expected = torch.quantize_per_tensor(x, 0.1, zero_point, dtype)
    got = torch.quantize_per_tensor(x.to(device), 0.1, zero_point, dtype)
    assert got.device == device and got.dtype == dtype and got.is_quantized
    assert (got.q_scale(), got.q_zero_point(), got.qscheme()) == (0.1, zero_point, torch.per_tensor_affine)
    assert got.int_repr().device == device
    assert torch.equal(got.int_repr().cpu(), expected.int_repr())
    dequantized = got.dequantize()
    assert dequantized.device == device and dequantized.dtype == torch.float32
    torch.testing.assert_close(dequantized.cpu(), expected.dequantize())


def test_quantize_takes_scale_and_zero_point_as_tensors(device):
    x = values()
    scale, zero_point = torch.tensor(0.2), torch.tensor(3)
    expected = torch.quantize_per_tensor(x, scale, zero_point, torch.qint8)
    got = torch.quantize_per_tensor(x.to(device), scale.to(device), zero_point.to(device), torch.qint8)
    assert got.device == device
    assert torch.equal(got.int_repr().cpu(), expected.int_repr())


@pytest.mark.parametrize("axis", [0, 1])
def test_quantize_per_channel_gives_cpus_integers(device, axis):
    x = values()
    channels = x.shape[axis]
    scales = torch.linspace(0.05, 0.5, channels, dtype=torch.double)
    zero_points = torch.arange(channels) - channels // 2
    expected = torch.quantize_per_channel(x, scales, zero_points, axis, torch.qint8)
    got = torch.quantize_per_channel(x.to(device), scales.to(device), zero_points.to(device), axis, torch.qint8)
    assert got.device == device and got.qscheme() == torch.per_channel_affine
    assert got.q_per_channel_axis() == axis
    torch.testing.assert_close(got.q_per_channel_scales().cpu(), scales)
    assert torch.equal(got.int_repr().cpu(), expected.int_repr())
    torch.testing.assert_close(got.dequantize().cpu(), expected.dequantize())


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("dtype", [torch.quint8, *SUB_BYTE], ids=str)
def test_quantize_per_channel_with_float_zero_points_gives_cpus_integers(device, dtype, axis):
    """per_channel_affine_float_qparams, as embedding tables are quantized: float zero
    points, a zero scale (CPU takes it as 1), and both moves."""
    x = values()
    channels = x.shape[axis]
    scales = torch.linspace(0.05, 0.5, channels, dtype=torch.double)
    scales[1] = 0.0
    zero_points = torch.linspace(-1.5, 2.5, channels)
    expected = torch.quantize_per_channel(x, scales, zero_points, axis, dtype)
    got = torch.quantize_per_channel(x.to(device), scales.to(device), zero_points.to(device), axis, dtype)
    assert got.device == device and got.qscheme() == torch.per_channel_affine_float_qparams
    assert torch.equal(got.int_repr().cpu(), expected.int_repr())
    torch.testing.assert_close(got.dequantize().cpu(), expected.dequantize())
    moved = expected.to(device)
    assert torch.equal(moved.int_repr().cpu(), expected.int_repr())
    torch.testing.assert_close(moved.dequantize().cpu(), expected.dequantize())
    torch.testing.assert_close(got.cpu().q_per_channel_zero_points(), zero_points)


@pytest.mark.parametrize("dtype", SUB_BYTE, ids=str)
@pytest.mark.parametrize("numel", [12, 13, 15])  # whole bytes, and a last byte part-filled
def test_sub_byte_dtypes_pack_as_cpu_does(device, dtype, numel):
    torch.manual_seed(1)
    x = torch.rand(numel) * 2 - 0.3
    expected = torch.quantize_per_tensor(x, 0.1, 2, dtype)
    got = torch.quantize_per_tensor(x.to(device), 0.1, 2, dtype)
    assert got.device == device and got.dtype == dtype and got.shape == x.shape
    assert torch.equal(got.int_repr().cpu(), expected.int_repr())  # CPU's int_repr: the packed bytes
    torch.testing.assert_close(got.dequantize().cpu(), expected.dequantize())
    back = got.cpu()
    assert torch.equal(back.int_repr(), expected.int_repr()) and back.q_scale() == 0.1


@pytest.mark.parametrize("dtype,zero_point", WHOLE_BYTE, ids=str)
def test_moves_keep_integers_and_parameters(device, dtype, zero_point):
    cpu = torch.quantize_per_tensor(values(), 0.25, zero_point, dtype)
    there = cpu.to(device)
    assert there.device == device and there.q_scale() == 0.25 and there.q_zero_point() == zero_point
    back = there.cpu()
    assert back.dtype == dtype and torch.equal(back.int_repr(), cpu.int_repr())
    per_channel = torch.quantize_per_channel(values(), torch.full((7,), 0.3, dtype=torch.double),
                                             torch.zeros(7, dtype=torch.long), 1, torch.qint8)
    moved = per_channel.to(device)
    assert moved.qscheme() == torch.per_channel_affine
    assert torch.equal(moved.cpu().int_repr(), per_channel.int_repr())


def test_copying_real_values_into_a_quantized_tensor_quantizes_them(device):
    x = values()
    expected = torch._empty_affine_quantized(x.shape, scale=0.5, zero_point=3, dtype=torch.quint8)
    expected.copy_(x)
    got = torch._empty_affine_quantized(x.shape, scale=0.5, zero_point=3, dtype=torch.quint8, device=device)
    got.copy_(x.to(device))
    assert got.device == device
    assert torch.equal(got.int_repr().cpu(), expected.int_repr())


def test_views_alias_and_writes_through_them_reach_the_base(device):
    cpu = torch.quantize_per_tensor(values(), 0.1, 0, torch.qint8)
    base = cpu.to(device)
    for make_view in (lambda t: t.transpose(0, 1)[2], lambda t: t[1:4, ::2], lambda t: t.view(-1)[3:9],
                      lambda t: t.unsqueeze(0).squeeze(0)[0]):
        view = make_view(base)
        assert view.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()
        assert torch.equal(view.int_repr().cpu(), make_view(cpu).int_repr())
    # A write through a view, with real values quantized by the base's parameters
    # (CPU takes such copies into contiguous views only).
    base[1:3].copy_(torch.full((2, 7), -1.0, device=device))
    cpu[1:3].copy_(torch.full((2, 7), -1.0))
    base[4:6].copy_(cpu[0:2])  # and quantized values from CPU
    cpu[4:6].copy_(cpu[0:2])
    assert torch.equal(base.int_repr().cpu(), cpu.int_repr())


def test_clone_save_load_and_deepcopy_keep_device_values_and_parameters(device):
    q = torch.quantize_per_tensor(values().to(device), 0.1, 10, torch.qint8)
    clone = q.transpose(0, 1).clone()
    assert clone.device == device and torch.equal(clone.int_repr().cpu(), q.cpu().transpose(0, 1).int_repr())
    buffer = io.BytesIO()
    torch.save({"q": q}, buffer)
    buffer.seek(0)
    loaded = torch.load(buffer)["q"]
    deep = copy.deepcopy(q)
    for other in (loaded, deep):
        assert other.device == device and other.dtype == torch.qint8
        assert (other.q_scale(), other.q_zero_point()) == (0.1, 10)
        assert torch.equal(other.int_repr().cpu(), q.int_repr().cpu())
    assert deep.untyped_storage().data_ptr() != q.untyped_storage().data_ptr()


def test_quantized_ops_without_a_device_kernel_run_on_the_cpu_fallback(device, fallback_mode):
    fallback_mode("silent")
    torch_fl.reset_fallback_stats()
    a_cpu = torch.quantize_per_tensor(values(), 0.1, 10, torch.quint8)
    b_cpu = torch.quantize_per_tensor(values().flip(0), 0.2, 5, torch.quint8)
    a, b = a_cpu.to(device), b_cpu.to(device)
    relu = torch.relu(a)
    added = torch.ops.quantized.add(a, b, 0.3, 7)
    assert relu.device == device and added.device == device
    assert torch.equal(relu.int_repr().cpu(), torch.relu(a_cpu).int_repr())
    assert torch.equal(added.int_repr().cpu(), torch.ops.quantized.add(a_cpu, b_cpu, 0.3, 7).int_repr())
    assert (added.q_scale(), added.q_zero_point()) == (0.3, 7)
    stats = torch_fl.fallback_stats()
    assert "aten::relu" in stats and "quantized::add" in stats, stats


def test_quantizing_is_not_a_cpu_fallback(device, fallback_mode):
    fallback_mode("silent")
    torch_fl.reset_fallback_stats()
    q = torch.quantize_per_tensor(values().to(device), 0.1, 10, torch.qint8)
    q.dequantize()
    q.int_repr()
    stats = torch_fl.fallback_stats()
    assert not any("quantize" in name or name == "aten::int_repr" for name in stats), stats


def test_a_quantized_tensor_cannot_be_copied_into_a_real_one(device):
    q = torch.quantize_per_tensor(values().to(device), 0.1, 10, torch.qint8)
    with pytest.raises(RuntimeError, match="please use dequantize"):
        torch.empty(q.shape, device=device).copy_(q)
    other = torch.quantize_per_tensor(values().to(device), 0.1, 10, torch.quint8)
    with pytest.raises(RuntimeError, match="is not allowed"):
        other.copy_(q)


def test_every_dtype_the_device_reports_can_be_made_on_it(device):
    supported = torch.accelerator.get_device_capability(device)["supported_dtypes"]
    wanted = get_all_dtypes(include_complex32=True, include_qint=True)
    assert all(dtype in supported for dtype in wanted), set(wanted) - set(supported)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for dtype in wanted:
            if dtype in QUANTIZED:
                made = torch.quantize_per_tensor(torch.ones(4, device=device), 0.5, 1, dtype)
                assert made.device == device and torch.equal(made.dequantize().cpu(), torch.ones(4))
            else:
                cpu = torch.arange(3).to(dtype)
                back = cpu.to(device).cpu()
                assert back.dtype == dtype
                # CPU has no equal for complex32: compared in complex64.
                wide = torch.complex64 if dtype == torch.complex32 else dtype
                assert torch.equal(back.to(wide), cpu.to(wide)), dtype
