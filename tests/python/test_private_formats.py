"""Private formats as a tensor property (the spec's `formats:` and `format:`):
a CNN's activations stay in the vendor's layout between format-aware ops, are
converted once into it and once out of it, and nothing a user can observe
depends on it: every mixed sequence, view, in-place op, copy, save and thread
sees the values the CPU computes. Vendor-neutral: it reads which ops are
format-aware from the support matrix, and skips (saying so) on a vendor whose
spec declares no format."""
from __future__ import annotations

import io
import threading

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import torch_fl

TOLERANCE = {"rtol": 1e-4, "atol": 1e-4}


def format_rules() -> dict[str, dict]:
    return {row["name"]: row["format"] for row in torch_fl.support_matrix()["ops"] if "format" in row}


@pytest.fixture
def conv_format() -> str:
    """The format convolutions write (NC1HWC0 on the NPU), or a skip."""
    rules = format_rules()
    conv = rules.get("convolution_overrideable")
    if conv is None or "out" not in conv["makes"]:
        pytest.skip(f"the {torch_fl.vendor()} spec declares no private format for convolution results")
    for op in ("relu", "relu_", "native_batch_norm", "max_pool2d_with_indices"):
        if op not in rules:
            pytest.skip(f"the {torch_fl.vendor()} spec's {op} is not format-aware")
    return conv["name"]


def block(channels_in: int, channels_out: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(channels_in, channels_out, 3, padding=1), nn.BatchNorm2d(channels_out),
                         nn.ReLU(inplace=True), nn.MaxPool2d(2), nn.Conv2d(channels_out, channels_out, 3, padding=1),
                         nn.BatchNorm2d(channels_out), nn.ReLU())


def twin(model: nn.Module, device) -> nn.Module:
    """The same module (weights and buffers) on the device."""
    buffer = io.BytesIO()
    torch.save(model, buffer)
    buffer.seek(0)
    return torch.load(buffer, weights_only=False).to(device)


def stats_delta(before: dict[str, int]) -> dict[str, int]:
    after = torch_fl.private_format_stats()
    return {key: after[key] - before[key] for key in after}


@pytest.mark.parametrize("channels", [(3, 8), (5, 20), (16, 32)], ids=["3to8", "5to20", "16to32"])
def test_a_cnn_forward_converts_once_in_and_once_out(device, conv_format, fallback_mode, channels):
    fallback_mode("strict")  # every op of the region native: a fallback raises
    torch.manual_seed(0)
    model = block(*channels).eval()
    model_device = twin(model, device)
    x = torch.randn(2, channels[0], 9, 11)
    xd = x.to(device)
    before = torch_fl.private_format_stats()
    with torch.no_grad():
        y = model_device(xd)
        assert torch_fl.storage_format(y) == conv_format, "the region's result is still in the format"
        inside = stats_delta(before)
        result = y.cpu()
    total = stats_delta(before)
    # one conversion in (the image, for the first convolution), none between the
    # ops, one out (the copy to the host); 7 private results: 2 convolutions, 2
    # batch norms, the out-of-place relu and max pooling's values and indices
    assert inside == {"to_private": 1, "to_public": 0, "created": 7}, inside
    assert total["to_public"] == 1, total
    with torch.no_grad():
        torch.testing.assert_close(result, model(x), **TOLERANCE)


def test_training_forward_updates_running_statistics_like_cpu(device, conv_format):
    torch.manual_seed(1)
    model = block(4, 12).train()
    model_device = twin(model, device)
    x = torch.randn(3, 4, 8, 8)
    y = model_device(x.to(device))
    expected = model(x)
    torch.testing.assert_close(y.cpu(), expected, **TOLERANCE)
    for name, buffer in model.named_buffers():
        torch.testing.assert_close(dict(model_device.named_buffers())[name].cpu(), buffer, **TOLERANCE,
                                   msg=lambda m: f"{name}: {m}")


def test_a_training_step_matches_cpu(device, conv_format):
    """Backward ops are not format-aware: the activations autograd saved are
    converted (once each) when the backward reads them."""
    torch.manual_seed(2)
    model = nn.Sequential(block(3, 16), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 4)).train()
    model_device = twin(model, device)
    x, target = torch.randn(4, 3, 12, 12), torch.tensor([0, 3, 1, 2])
    for m, inputs in ((model, (x, target)), (model_device, (x.to(device), target.to(device)))):
        loss = F.cross_entropy(m(inputs[0]), inputs[1])
        loss.backward()
    for (name, p), p_device in zip(model.named_parameters(), model_device.parameters()):
        torch.testing.assert_close(p_device.grad.cpu(), p.grad, rtol=1e-3, atol=1e-4, msg=lambda m: f"{name}: {m}")


def private_conv(device, channels=5):
    """A convolution's result in the private format, and the same computed on CPU."""
    torch.manual_seed(3)
    x, w, b = torch.randn(2, 3, 6, 7), torch.randn(channels, 3, 3, 3), torch.randn(channels)
    y = F.conv2d(x.to(device), w.to(device), b.to(device), padding=1)
    return y, F.conv2d(x, w, b, padding=1)


# Each step is what model code does with an activation, format-aware or not.
MIXED = {
    "add a number": lambda y: y + 1.5,
    "relu then sum": lambda y: torch.relu(y).sum(dim=(2, 3)),
    "in-place relu then multiply": lambda y: torch.relu_(y.clone()).mul(2),
    "view then relu": lambda y: torch.relu(y.view(2, 5, 42)),
    "channel slice then relu": lambda y: torch.relu(y[:, 1:4]),
    "transpose contiguous": lambda y: y.transpose(1, 3).contiguous(),
    "flatten then linear": lambda y: y.flatten(1) @ torch.ones(210, 3, device=y.device),
    "cat with itself": lambda y: torch.cat([y, y], dim=1),
    "half precision": lambda y: y.half().float(),
    "softmax over channels": lambda y: torch.softmax(y, dim=1),
    "max pool then add": lambda y: F.max_pool2d(y, 2) + 1,
    "batch norm then relu": lambda y: torch.relu(F.batch_norm(y, None, None, training=True)),
    "conv of conv": lambda y: F.conv2d(y, torch.ones(4, 5, 1, 1, device=y.device)),
}


@pytest.mark.parametrize("name", list(MIXED))
def test_mixed_sequences_match_cpu(device, conv_format, name):
    y, expected = private_conv(device)
    assert torch_fl.storage_format(y) == conv_format
    step = MIXED[name]
    torch.testing.assert_close(step(y).cpu(), step(expected), **TOLERANCE)


def test_a_view_taken_before_an_in_place_format_aware_op_sees_its_result(device, conv_format):
    y, expected = private_conv(device)
    corner = y[:, 2, 1:3]  # a view: shares the private storage
    torch.relu_(y)  # format-aware in place: y stays private
    assert torch_fl.storage_format(y) == conv_format
    torch.testing.assert_close(corner.cpu(), torch.relu(expected)[:, 2, 1:3], **TOLERANCE)
    torch.testing.assert_close(y.cpu(), torch.relu(expected), **TOLERANCE)


def test_an_in_place_write_through_a_view_reaches_the_whole_tensor(device, conv_format):
    y, expected = private_conv(device)
    y[:, 1].mul_(-3)  # not format-aware: the whole storage turns public first
    expected[:, 1].mul_(-3)
    assert torch_fl.storage_format(y) is None
    torch.testing.assert_close(y.cpu(), expected, **TOLERANCE)


def test_item_storage_size_and_serialization_are_public(device, conv_format):
    y, expected = private_conv(device)
    assert y.untyped_storage().nbytes() == expected.numel() * expected.element_size()
    assert y[1, 4, 5, 6].item() == pytest.approx(expected[1, 4, 5, 6].item(), rel=1e-4, abs=1e-4)
    y, expected = private_conv(device)
    buffer = io.BytesIO()
    torch.save(y, buffer)
    buffer.seek(0)
    torch.testing.assert_close(torch.load(buffer).cpu(), expected, **TOLERANCE)


def test_make_public_for_raw_pointer_readers(device, conv_format):
    y, expected = private_conv(device)
    assert torch_fl.make_public(y) is y
    assert torch_fl.storage_format(y) is None
    torch.testing.assert_close(y.cpu(), expected, **TOLERANCE)


def test_turning_formats_off_makes_a_private_argument_public_at_its_next_use(device, conv_format):
    y, expected = private_conv(device)
    torch_fl.set_private_formats(False)
    try:
        outputs = [torch.relu(y), F.max_pool2d(y, 2), F.batch_norm(y, None, None, training=True)]
        assert torch_fl.storage_format(y) is None
        assert all(torch_fl.storage_format(o) is None for o in outputs)
    finally:
        torch_fl.set_private_formats(True)
    torch.testing.assert_close(outputs[0].cpu(), torch.relu(expected), **TOLERANCE)
    torch.testing.assert_close(outputs[1].cpu(), F.max_pool2d(expected, 2), **TOLERANCE)


def test_another_stream_reads_a_tensor_converted_on_the_default_stream(device, conv_format):
    module = getattr(torch, device.type)
    y, expected = private_conv(device, channels=40)
    side = module.Stream()
    side.wait_stream(module.current_stream())  # ordered after the producer, as CUDA code does
    busy = torch.randn(1024, 1024, device=device)
    queued = busy @ busy  # the default stream is busy for a while
    z = y + 1  # converts y on the default stream, behind the product
    with module.stream(side):
        w = y * 2  # reads y on the side stream: must see the converted bytes
    module.synchronize()
    del queued
    torch.testing.assert_close(z.cpu(), expected + 1, **TOLERANCE)
    torch.testing.assert_close(w.cpu(), expected * 2, **TOLERANCE)


def test_a_device_to_device_copy_and_clone_are_public(device, conv_format):
    y, expected = private_conv(device)
    copied = torch.empty_like(y).copy_(y)
    cloned = y.clone()
    assert torch_fl.storage_format(copied) is None and torch_fl.storage_format(cloned) is None
    for result in (copied, cloned, y):
        torch.testing.assert_close(result.cpu(), expected, **TOLERANCE)


def test_overwriting_a_private_tensor_by_copy(device, conv_format):
    y, _ = private_conv(device)
    source = torch.randn(2, 5, 6, 7)
    y[:, :2].copy_(source[:, :2].to(device))  # a partial write: the rest must survive
    y_cpu = y.cpu()
    torch.testing.assert_close(y_cpu[:, :2], source[:, :2])
    assert torch.isfinite(y_cpu).all()


def test_threads_reading_one_private_tensor_convert_it_once(device, conv_format):
    y, expected = private_conv(device, channels=20)
    before = torch_fl.private_format_stats()
    results, errors = [None] * 4, []

    def read(i):
        try:
            results[i] = y.cpu()
        except Exception as error:  # surfaced below, with the thread's failure
            errors.append(error)

    threads = [threading.Thread(target=read, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for result in results:
        torch.testing.assert_close(result, expected, **TOLERANCE)
    assert stats_delta(before)["to_public"] == 1


def test_a_conversion_is_counted_and_a_public_input_is_converted_per_call(device, conv_format):
    x, w = torch.randn(1, 3, 5, 5, device=device), torch.randn(4, 3, 3, 3, device=device)
    before = torch_fl.private_format_stats()
    first = F.conv2d(x, w)
    second = F.conv2d(first, torch.randn(2, 4, 1, 1, device=device))  # reads first in the format
    delta = stats_delta(before)
    assert delta == {"to_private": 1, "to_public": 0, "created": 2}, delta
    assert torch_fl.storage_format(second) == conv_format


def test_float16_stays_in_the_format_and_matches_cpu(device, conv_format, fallback_mode):
    fallback_mode("strict")
    torch.manual_seed(4)
    model = block(3, 8).eval()
    model_device = twin(model, device).half()
    x = torch.randn(2, 3, 8, 8)
    with torch.no_grad():
        y = model_device(x.to(device).half())
        assert torch_fl.storage_format(y) == conv_format
        torch.testing.assert_close(y.cpu().float(), model(x), rtol=2e-2, atol=2e-2)
