"""torchvision's detection ops on the device (the spec's `namespaces: torchvision`):
built when torchvision is installed beside torch (`make test TORCH=2.14.1`), run
natively for the dtypes the spec declares, and equal to torchvision's own CPU
kernels, forward and backward (torchvision's autograd reaches the backward ops
registered for the device). Other dtypes take torchvision's CPU kernel."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
import torch

import torch_fl
from native_runs import recorded_native_runs

try:
    import torchvision
    from torchvision import ops
except ImportError:  # the default torch of this project has no torchvision wheel here
    pytest.skip("torchvision is not installed beside this torch (it is in `make test TORCH=2.14.1`)",
                allow_module_level=True)

OPS = ("nms", "roi_align", "_roi_align_backward", "roi_pool", "_roi_pool_backward", "deform_conv2d",
       "_deform_conv2d_backward")


def matrix_rows() -> dict[str, dict]:
    return {row["name"]: row for row in torch_fl.support_matrix()["ops"]}


if not any(name.startswith("torchvision::") for name in matrix_rows()):
    pytest.skip(f"the {torch_fl.vendor()} spec declares no torchvision ops", allow_module_level=True)


def native_dtypes(op: str) -> list[str]:
    row = matrix_rows().get(f"torchvision::{op}")
    return [d for d, status in row["dtypes"].items() if status == "native"] if row else []


# The runtime files a run under the dtype's C++ name.
C10_NAMES = {torch.float32: "Float", torch.float16: "Half", torch.float64: "Double"}

DTYPES = [pytest.param(torch.float32, id="float32"), pytest.param(torch.float16, id="float16")]


def require_native(op: str, dtype: torch.dtype) -> None:
    name = str(dtype).removeprefix("torch.")
    if name not in native_dtypes(op):
        pytest.skip(f"torchvision::{op} ({name}) is not native in the {torch_fl.vendor()} spec")


def tolerance(dtype: torch.dtype) -> dict:
    return {"rtol": 1e-2, "atol": 1e-2} if dtype == torch.float16 else {"rtol": 1e-5, "atol": 1e-5}


def compare_with_cpu(call, leaves: dict, constants: dict, grad: torch.Tensor, device, **tolerance):
    """call(**leaves, **constants) and its backward from grad, on the device and on
    CPU (torchvision's kernels): outputs and the leaves' gradients must agree.
    Returns the kernels that ran natively on the device."""
    def run(where):
        tensors = {k: v.to(where, copy=True).requires_grad_() for k, v in leaves.items()}
        out = call(**tensors, **{k: v.to(where) for k, v in constants.items()})
        out.backward(grad.to(where))
        return [out.detach()] + [t.grad for t in tensors.values()]

    expected = run("cpu")
    with recorded_native_runs() as runs:
        result = run(device)
    for got, want in zip(result, expected, strict=True):
        assert got.device == device
        torch.testing.assert_close(got.cpu(), want, **tolerance)
    return runs


def random_boxes(count: int, generator: torch.Generator, size: float = 64.0) -> torch.Tensor:
    corners = torch.rand(count, 2, generator=generator) * size
    extents = torch.rand(count, 2, generator=generator) * size / 2 + 1
    return torch.cat([corners, corners + extents], dim=1)


def random_rois(count: int, batch: int, size: float, generator: torch.Generator) -> torch.Tensor:
    index = torch.randint(0, batch, (count, 1), generator=generator).float()
    return torch.cat([index, random_boxes(count, generator, size)], dim=1)


def test_every_torchvision_op_of_the_spec_is_registered_with_its_library_version():
    matrix = torch_fl.support_matrix()
    assert matrix["libraries"].get("torchvision") == torchvision.__version__.split("+")[0]
    rows = matrix_rows()
    # Every torchvision op the spec declares is one these tests verify (test_native_ops leaves them here).
    assert {name for name in rows if name.startswith("torchvision::")} == {f"torchvision::{op}" for op in OPS}
    for op in OPS:
        row = rows.get(f"torchvision::{op}")
        assert row is not None, f"torchvision::{op} is not in the {torch_fl.vendor()} matrix"
        assert row["sdk_call"], row
        assert "float32" in native_dtypes(op), row


@pytest.mark.parametrize("count", [0, 1, 50, 300])
def test_nms_keeps_the_boxes_torchvision_keeps_natively(device, count):
    generator = torch.Generator().manual_seed(count)
    boxes, scores = random_boxes(count, generator), torch.rand(count, generator=generator)
    expected = ops.nms(boxes, scores, 0.5)
    with recorded_native_runs() as runs:
        result = ops.nms(boxes.to(device), scores.to(device), 0.5)
    assert result.device == device and result.dtype == torch.int64
    assert result.shape == expected.shape and result.is_contiguous()
    torch.testing.assert_close(result.cpu(), expected)
    assert ("torchvision::nms", "Float") in runs


def test_nms_results_trimmed_to_their_length_stay_usable(device):
    # The kept indices index the boxes, a batched_nms composes with them, and the
    # storage they were trimmed from does not leak into later results.
    generator = torch.Generator().manual_seed(1)
    boxes, scores = random_boxes(200, generator), torch.rand(200, generator=generator)
    idxs = torch.randint(0, 3, (200,), generator=generator)
    expected = ops.batched_nms(boxes, scores, idxs, 0.3)
    with recorded_native_runs() as runs:
        result = ops.batched_nms(boxes.to(device), scores.to(device), idxs.to(device), 0.3)
    assert ("torchvision::nms", "Float") in runs
    torch.testing.assert_close(result.cpu(), expected)
    torch.testing.assert_close(boxes.to(device)[result].cpu(), boxes[expected])
    assert (result.clone() + 1).cpu().tolist() == (expected + 1).tolist()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("aligned,sampling_ratio", [(False, -1), (True, 2)])
def test_roi_align_forward_and_backward_match_torchvision_cpu(device, dtype, aligned, sampling_ratio):
    require_native("roi_align", dtype)
    generator = torch.Generator().manual_seed(2)
    x = torch.randn(2, 3, 16, 16, generator=generator).to(dtype)
    rois = random_rois(6, 2, 16.0, generator).to(dtype)
    grad = torch.randn(6, 3, 4, 4, generator=generator).to(dtype)
    runs = compare_with_cpu(
        lambda x, boxes: ops.roi_align(x, boxes, (4, 4), sampling_ratio=sampling_ratio, aligned=aligned),
        {"x": x}, {"boxes": rois}, grad, device, **tolerance(dtype))
    name = C10_NAMES[dtype]
    assert {("torchvision::roi_align", name), ("torchvision::_roi_align_backward", name)} <= runs


@pytest.mark.parametrize("dtype", DTYPES)
def test_roi_pool_forward_and_backward_match_torchvision_cpu(device, dtype):
    require_native("roi_pool", dtype)
    generator = torch.Generator().manual_seed(3)
    x = torch.randn(2, 4, 12, 12, generator=generator).to(dtype)
    rois = random_rois(5, 2, 12.0, generator).to(dtype)
    grad = torch.randn(5, 4, 3, 3, generator=generator).to(dtype)
    runs = compare_with_cpu(lambda x, boxes: ops.roi_pool(x, boxes, (3, 3)), {"x": x}, {"boxes": rois},
                            grad, device, **tolerance(dtype))
    name = C10_NAMES[dtype]
    assert {("torchvision::roi_pool", name), ("torchvision::_roi_pool_backward", name)} <= runs


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("with_mask", [False, True], ids=["no_mask", "mask"])
def test_deform_conv2d_forward_and_backward_match_torchvision_cpu(device, dtype, with_mask):
    require_native("deform_conv2d", dtype)
    generator = torch.Generator().manual_seed(4)
    leaves = {
        "input": torch.randn(2, 4, 9, 9, generator=generator),
        "weight": torch.randn(6, 2, 3, 3, generator=generator),  # two groups
        "bias": torch.randn(6, generator=generator),
        "offset": torch.randn(2, 2 * 2 * 9, 5, 5, generator=generator),  # two offset groups; stride 2, padding 1
    }
    if with_mask:
        leaves["mask"] = torch.rand(2, 2 * 9, 5, 5, generator=generator)
    grad = torch.randn(2, 6, 5, 5, generator=generator)
    loose = {"rtol": 5e-2, "atol": 5e-2} if dtype == torch.float16 else {"rtol": 1e-4, "atol": 1e-4}
    runs = compare_with_cpu(lambda **t: ops.deform_conv2d(t["input"], t["offset"], t["weight"], t["bias"], stride=2,
                                                          padding=1, mask=t.get("mask")),
                            {k: v.to(dtype) for k, v in leaves.items()}, {}, grad.to(dtype), device, **loose)
    name = C10_NAMES[dtype]
    assert {("torchvision::deform_conv2d", name), ("torchvision::_deform_conv2d_backward", name)} <= runs


def test_a_dtype_the_spec_does_not_declare_runs_on_torchvisions_cpu_kernel(device):
    # float64 has no arithmetic units on either simulated chip: torchvision's own CPU kernel runs.
    assert "float64" not in native_dtypes("roi_align")
    generator = torch.Generator().manual_seed(5)
    x = torch.randn(1, 2, 8, 8, generator=generator, dtype=torch.float64)
    rois = random_rois(3, 1, 8.0, generator).double()
    torch_fl.reset_fallback_stats()
    result = ops.roi_align(x.to(device), rois.to(device), (2, 2))
    assert result.device == device
    torch.testing.assert_close(result.cpu(), ops.roi_align(x, rois, (2, 2)))
    assert torch_fl.fallback_stats().get("torchvision::roi_align") == {C10_NAMES[torch.float64]: 1}, torch_fl.fallback_report()


def test_both_results_of_roi_pool_in_a_dtype_the_spec_does_not_declare_come_from_cpu(device):
    # Two results through the library fallback: the pooled values and the int32 argmax.
    generator = torch.Generator().manual_seed(6)
    x = torch.randn(1, 2, 8, 8, generator=generator, dtype=torch.float64)
    rois = random_rois(3, 1, 8.0, generator).double()
    values, argmax = torch.ops.torchvision.roi_pool(x.to(device), rois.to(device), 1.0, 2, 2)
    expected_values, expected_argmax = torch.ops.torchvision.roi_pool(x, rois, 1.0, 2, 2)
    assert values.device == device and argmax.device == device and argmax.dtype == torch.int32
    torch.testing.assert_close(values.cpu(), expected_values)
    torch.testing.assert_close(argmax.cpu(), expected_argmax)


@pytest.mark.parametrize("op", ["roi_align", "roi_pool"])
def test_no_rois_give_an_empty_result_and_a_zero_gradient(device, op):
    x = torch.randn(2, 3, 8, 8, device=device, requires_grad=True)
    rois = torch.zeros(0, 5, device=device)
    out = getattr(ops, op)(x, rois, (2, 2))
    assert out.shape == (0, 3, 2, 2) and out.device == device
    out.sum().backward()
    assert torch.count_nonzero(x.grad.cpu()) == 0


def test_a_malformed_call_raises_on_the_host_naming_the_problem(device):
    # The ops themselves, below torchvision's Python wrappers (which check some shapes first).
    x = torch.randn(1, 2, 8, 8, device=device)
    with pytest.raises(RuntimeError, match=r"roi_align: rois must have shape \[K, 5\]"):
        torch.ops.torchvision.roi_align(x, torch.zeros(3, 4, device=device), 1.0, 2, 2, -1, False)
    with pytest.raises(RuntimeError, match="roi_pool: the pooled size must be positive"):
        torch.ops.torchvision.roi_pool(x, torch.zeros(3, 5, device=device), 1.0, 0, 2)
    with pytest.raises(RuntimeError, match="nms: boxes should have 4 elements"):
        torch.ops.torchvision.nms(torch.zeros(3, 5, device=device), torch.zeros(3, device=device), 0.5)
    with pytest.raises(RuntimeError, match="deform_conv2d: offset needs 18 channels"):
        torch.ops.torchvision.deform_conv2d(x, torch.randn(3, 2, 3, 3, device=device),
                                            torch.zeros(1, 4, 6, 6, device=device),
                                            torch.zeros(1, 9, 6, 6, device=device), torch.zeros(3, device=device),
                                            1, 1, 0, 0, 1, 1, 1, 1, False)
    with pytest.raises(RuntimeError, match=r"deform_conv2d: mask must have shape \[1, 9, 6, 6\]"):
        torch.ops.torchvision.deform_conv2d(x, torch.randn(3, 2, 3, 3, device=device),
                                            torch.zeros(1, 18, 6, 6, device=device),
                                            torch.zeros(1, 8, 6, 6, device=device), torch.zeros(3, device=device),
                                            1, 1, 0, 0, 1, 1, 1, 1, True)


def test_rois_on_the_cpu_are_refused_naming_the_op_and_the_vendor(device):
    x = torch.randn(1, 2, 8, 8, device=device)
    rois = torch.tensor([[0.0, 0.0, 0.0, 4.0, 4.0]])
    with pytest.raises(RuntimeError) as caught:
        ops.roi_align(x, rois, (2, 2))
    message = str(caught.value)
    assert "roi_align" in message and torch_fl.vendor() in message


def test_torchvision_imported_before_the_backend_runs_natively_too():
    # Here torch_fl loaded first (conftest) and torchvision registered its schemas
    # after; in a user's script the order may be the other one.
    script = (
        "import torch, torchvision\n"
        "import torch_fl\n"
        "from torch_fl import device_module\n"
        "device_module._record_native_runs(True)\n"
        "boxes = torch.tensor([[0., 0., 10., 10.], [1., 1., 11., 11.], [50., 50., 60., 60.]])\n"
        "scores = torch.tensor([0.9, 0.8, 0.7])\n"
        "keep = torchvision.ops.nms(boxes.to(torch_fl.device(0)), scores.to(torch_fl.device(0)), 0.5)\n"
        "assert keep.cpu().tolist() == [0, 2], keep\n"
        "assert any(r['op'] == 'torchvision::nms' for r in device_module._native_runs())\n"
        "print('ok')\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ))
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-3000:]
