"""Layout conversions the spec declares reusable (`layout: {weight: {convert: fn,
reuse: true}}`): converted once, reused while the source is unchanged, redone
after any in-place change. Vendor-neutral: it reads the rules from the matrix."""
from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import torch_fl


def reused_conversions():
    return {row["name"]: row["layout"] for row in torch_fl.support_matrix()["ops"]
            if any("reused" in rule for rule in row.get("layout", {}).values())}


@pytest.fixture
def conv_with_reused_weight():
    rows = reused_conversions()
    if "convolution_overrideable" not in rows:
        pytest.skip(f"the {torch_fl.vendor()} spec reuses no converted convolution weight")
    return rows["convolution_overrideable"]


def test_a_converted_weight_is_reused_while_unchanged(device, conv_with_reused_weight, fallback_mode):
    fallback_mode("strict")
    x, w = torch.randn(2, 3, 8, 8), torch.randn(5, 3, 3, 3)
    xd, wd = x.to(device), w.to(device)
    F.conv2d(xd, wd, padding=1)
    before = torch_fl.conversion_cache_stats()
    for _ in range(3):
        y = F.conv2d(xd, wd, padding=1)
    after = torch_fl.conversion_cache_stats()
    assert after["hits"] - before["hits"] == 3 and after["misses"] == before["misses"]
    torch.testing.assert_close(y.cpu(), F.conv2d(x, w, padding=1), rtol=1e-4, atol=1e-4)


def test_an_in_place_change_invalidates_the_conversion(device, conv_with_reused_weight, fallback_mode):
    fallback_mode("strict")
    x, w = torch.randn(1, 4, 6, 6), torch.randn(2, 4, 3, 3)
    xd, wd = x.to(device), w.to(device)
    F.conv2d(xd, wd)
    wd.mul_(-2.0)  # an optimizer step does the same: an in-place write bumps the version
    misses = torch_fl.conversion_cache_stats()["misses"]
    y = F.conv2d(xd, wd)
    assert torch_fl.conversion_cache_stats()["misses"] == misses + 1
    torch.testing.assert_close(y.cpu(), F.conv2d(x, w * -2.0), rtol=1e-4, atol=1e-4)


def test_a_new_tensor_at_a_reused_address_is_converted_afresh(device, conv_with_reused_weight, fallback_mode):
    fallback_mode("strict")
    x = torch.randn(1, 3, 5, 5)
    xd = x.to(device)
    first = torch.randn(4, 3, 3, 3)
    wd = first.to(device)
    F.conv2d(xd, wd)
    del wd  # its block returns to the caching allocator and is handed out again below
    second = torch.randn(4, 3, 3, 3)
    y = F.conv2d(xd, second.to(device))
    torch.testing.assert_close(y.cpu(), F.conv2d(x, second), rtol=1e-4, atol=1e-4)


def test_empty_cache_drops_cached_conversions(device, conv_with_reused_weight):
    wd = torch.randn(4, 3, 3, 3).to(device)
    F.conv2d(torch.randn(1, 3, 5, 5).to(device), wd)
    assert torch_fl.conversion_cache_stats()["entries"] >= 1
    getattr(torch, device.type).empty_cache()
    assert torch_fl.conversion_cache_stats()["entries"] == 0


def test_cast_rules_make_int64_indices_native(device, fallback_mode):
    casts = {row["name"]: row["cast"] for row in torch_fl.support_matrix()["ops"] if "cast" in row}
    if "index_select" not in casts:
        pytest.skip(f"the {torch_fl.vendor()} spec casts no index argument")
    fallback_mode("strict")
    x, index = torch.randn(5, 3), torch.tensor([4, 0, 2, 2])
    assert index.dtype == torch.int64
    torch_fl.reset_fallback_stats()
    y = torch.index_select(x.to(device), 0, index.to(device))
    assert torch.equal(y.cpu(), torch.index_select(x, 0, index))
    assert torch_fl.fallback_count() == 0
