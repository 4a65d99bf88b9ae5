"""Issue #40 item 3: backend metadata of device tensors. torch._utils'
set_tensor_metadata/get_tensor_metadata round-trip, the flags travel with
torch.save/load and with TensorImpl's own copies (detach, .data), and a tensor in a
private format is saved as public data plus a format tag, which a load re-makes
private where the backend has that format and formats are on."""
from __future__ import annotations

import io

import pytest
import torch
import torch.nn.functional as F

import torch_fl

FORMAT_KEY = "torch_fl.private_format."


def save_and_load(value):
    buffer = io.BytesIO()
    torch.save(value, buffer)
    buffer.seek(0)
    return torch.load(buffer)


def test_metadata_round_trips_on_a_device_tensor(device):
    t = torch.arange(6.0, device=device)
    assert torch._utils.get_tensor_metadata(t) == {}
    torch._utils.set_tensor_metadata(t, {"vendor.tiled": True, "vendor.checked": False})
    assert torch._utils.get_tensor_metadata(t) == {"vendor.tiled": True, "vendor.checked": False}
    # conj and neg stay torch's own entries, next to ours.
    torch._utils.set_tensor_metadata(t, {"neg": True, "vendor.tiled": True})
    assert t.is_neg() and torch._utils.get_tensor_metadata(t) == {"neg": True, "vendor.tiled": True}


def test_metadata_survives_save_load_detach_and_data(device):
    t = torch.arange(6.0, device=device)
    torch._utils.set_tensor_metadata(t, {"vendor.tiled": True})
    loaded = save_and_load(t)
    assert loaded.device == device and torch.equal(loaded.cpu(), t.cpu())
    assert torch._utils.get_tensor_metadata(loaded) == {"vendor.tiled": True}
    assert torch._utils.get_tensor_metadata(t.detach()) == {"vendor.tiled": True}
    assert torch._utils.get_tensor_metadata(torch.nn.Parameter(t).data) == {"vendor.tiled": True}
    # A CPU tensor has no backend metadata of ours.
    assert torch._utils.get_tensor_metadata(t.cpu()) == {}


def conv_on(on):
    torch.manual_seed(0)
    x, w = torch.randn(2, 16, 6, 6), torch.randn(16, 16, 3, 3)
    return F.conv2d(x.to(on), w.to(on), padding=1)


@pytest.fixture
def format_name(device) -> str:
    """The private format the vendor writes convolution results in, or a skip."""
    name = torch_fl.storage_format(conv_on(device))
    if name is None:
        pytest.skip(f"the {torch_fl.vendor()} spec writes convolution results in no private format")
    return name


def test_a_private_tensor_is_saved_public_with_its_format_and_loaded_private(device, format_name):
    out, expected = conv_on(device), conv_on("cpu")
    assert torch_fl.storage_format(out) == format_name
    assert torch._utils.get_tensor_metadata(out) == {FORMAT_KEY + format_name: True}
    loaded = save_and_load(out)
    assert torch_fl.storage_format(out) is None  # saving read public bytes, as any other reader does
    assert torch_fl.storage_format(loaded) == format_name
    torch.testing.assert_close(loaded.cpu(), expected, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close((loaded + 1).cpu(), expected + 1, rtol=1e-4, atol=1e-4)


def test_with_formats_off_a_saved_private_tensor_loads_public(device, format_name):
    out = conv_on(device)
    buffer = io.BytesIO()
    torch.save(out, buffer)
    torch_fl.set_private_formats(False)
    try:
        buffer.seek(0)
        loaded = torch.load(buffer)
    finally:
        torch_fl.set_private_formats(True)
    assert torch_fl.storage_format(loaded) is None
    assert torch.equal(loaded.cpu(), out.cpu())


def test_a_format_this_backend_lacks_loads_public(device):
    t = torch.arange(16.0, device=device).reshape(1, 1, 4, 4)
    torch._utils.set_tensor_metadata(t, {FORMAT_KEY + "NOT_A_FORMAT": True})
    assert torch_fl.storage_format(t) is None and torch.equal(t.cpu(), torch.arange(16.0).reshape(1, 1, 4, 4))


def test_tensors_loaded_over_one_private_storage_still_share_it(device, format_name):
    """A state dict saves a tensor and its aliases: after the load they are still one memory."""
    out = conv_on(device)
    loaded = save_and_load({"a": out, "b": out.detach(), "c": out.view(2, 16, 36)})
    assert torch_fl.storage_format(loaded["a"]) == format_name
    loaded["a"].add_(1)
    torch.testing.assert_close(loaded["b"].cpu(), loaded["a"].cpu())
    torch.testing.assert_close(loaded["c"].cpu(), loaded["a"].cpu().view(2, 16, 36))
