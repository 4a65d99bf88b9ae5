"""Vendor ops declared in the spec's `custom:` section: exposed as
torch.ops.<vendor>.*, with autograd, checked against their CPU reference."""
from __future__ import annotations

import pytest
import torch

import torch_fl
from torch_fl import references

CUSTOM = {name: spec for name, spec in torch_fl.custom_ops().items()}


def vendor_op(name: str):
    return getattr(getattr(torch.ops, torch_fl.vendor()), name)


@pytest.mark.skipif(not CUSTOM, reason="this vendor's spec declares no custom ops")
def test_custom_ops_are_registered_in_the_vendor_namespace():
    for name in CUSTOM:
        schema = vendor_op(name).default._schema
        assert schema.name == f"{torch_fl.vendor()}::{name}", schema
        assert torch._C._dispatch_has_kernel_for_dispatch_key(schema.name, "PrivateUse1"), schema.name


@pytest.mark.skipif("rms_norm" not in CUSTOM, reason="this vendor's spec declares no rms_norm")
@pytest.mark.parametrize("shape", [(4, 8), (2, 3, 16), (1, 1)])
def test_rms_norm_forward_and_backward_match_the_cpu_reference(device, shape, fallback_mode):
    fallback_mode("strict")
    g = torch.Generator().manual_seed(0)
    x = torch.randn(shape, generator=g)
    w = torch.randn(shape[-1], generator=g)
    upstream = torch.randn(shape, generator=g)

    x_ref, w_ref = x.clone().requires_grad_(), w.clone().requires_grad_()
    expected = references.rms_norm(x_ref, w_ref, 1e-5)
    expected.backward(upstream)

    x_dev, w_dev = x.to(device).requires_grad_(), w.to(device).requires_grad_()
    actual = vendor_op("rms_norm")(x_dev, w_dev, 1e-5)
    actual.backward(upstream.to(device))

    torch.testing.assert_close(actual.detach().cpu(), expected.detach())
    torch.testing.assert_close(x_dev.grad.cpu(), x_ref.grad, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(w_dev.grad.cpu(), w_ref.grad, rtol=1e-4, atol=1e-5)


@pytest.mark.skipif("rms_norm" not in CUSTOM, reason="this vendor's spec declares no rms_norm")
def test_rms_norm_passes_gradcheck(device):
    # The chip has no float64: gradcheck in float32 with a step and tolerances to match.
    g = torch.Generator().manual_seed(1)
    x = torch.randn(3, 6, generator=g).to(device).requires_grad_()
    w = (torch.rand(6, generator=g) + 0.5).to(device).requires_grad_()
    assert torch.autograd.gradcheck(lambda a, b: vendor_op("rms_norm")(a, b, 1e-5), (x, w),
                                    eps=1e-2, atol=2e-2, rtol=2e-2, fast_mode=False)


@pytest.mark.skipif("rms_norm" not in CUSTOM, reason="this vendor's spec declares no rms_norm")
def test_vendor_op_rejects_an_unsupported_dtype(device):
    with pytest.raises(NotImplementedError, match=r"rms_norm.*dtype not native.*no CPU fallback"):
        vendor_op("rms_norm")(torch.ones(2, 2, dtype=torch.int64).to(device),
                              torch.ones(2, dtype=torch.int64).to(device), 1e-6)
