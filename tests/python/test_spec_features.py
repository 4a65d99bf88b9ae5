"""Spec features seen from PyTorch: guards route calls to the fallback with
their reason, layouts are honoured, autocast follows the spec's policy."""
from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import torch_fl


def guarded_rows():
    return [row for row in torch_fl.support_matrix()["ops"] if row.get("guard")]


def test_guard_sends_the_call_to_the_fallback_with_its_reason(device, fallback_mode):
    if not any(row["name"] == "convolution_overrideable" for row in guarded_rows()):
        pytest.skip("this vendor's convolution has no guard")
    fallback_mode("silent")
    x, w = torch.randn(1, 2, 5, 5), torch.randn(2, 3, 3, 3)
    torch_fl.reset_fallback_stats()
    y = F.conv_transpose2d(x.to(device), w.to(device))  # transposed: outside the guard
    torch.testing.assert_close(y.cpu(), F.conv_transpose2d(x, w))
    assert "guard not met" in torch_fl.fallback_report()
    fallback_mode("strict")
    with pytest.raises(NotImplementedError, match="convolution_overrideable.*guard not met"):
        F.conv_transpose2d(x.to(device), w.to(device))
    torch_fl.reset_fallback_stats()
    F.conv2d(x.to(device), w.transpose(0, 1).contiguous().to(device))  # inside the guard: native
    assert torch_fl.fallback_count() == 0


def test_layout_rule_makes_non_contiguous_operands_work(device, fallback_mode):
    fallback_mode("strict")
    x = torch.randn(1, 3, 6, 6).to(memory_format=torch.channels_last)
    w = torch.randn(4, 3, 3, 3)
    y = F.conv2d(x.to(device), w.to(device))
    torch.testing.assert_close(y.cpu(), F.conv2d(x, w), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_autocast_follows_the_spec_policy(device, dtype, fallback_mode):
    fallback_mode("strict")
    a, b = torch.randn(8, 8).to(device), torch.randn(8, 8).to(device)
    with torch.autocast(device_type=device.type, dtype=dtype):
        product = a @ b  # lower_precision_fp
        exp = torch.exp(product)  # fp32
        linear = F.linear(a, b)
    assert product.dtype == dtype and linear.dtype == dtype
    assert exp.dtype == torch.float32
    torch.testing.assert_close(product.float().cpu(), (a.cpu().to(dtype) @ b.cpu().to(dtype)).float(),
                               rtol=1e-2, atol=1e-2)


def test_support_matrix_shows_guards_layouts_and_gates():
    matrix = torch_fl.support_matrix()
    conv = next(row for row in matrix["ops"] if row["name"] == "convolution_overrideable")
    assert conv["guard"] == "not transposed"
    assert conv["layout"] == {"input": "contiguous", "weight": "contiguous"}
    assert "gated" in matrix and isinstance(matrix["gated"], list)
