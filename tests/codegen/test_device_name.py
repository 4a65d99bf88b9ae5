"""A spec's `device` is a name the backend can rename PrivateUse1 to: not one
of PyTorch's own device types (cuda, cpu, meta, ...), and a name
torch.device() parses (lowercase letters and _). The list of PyTorch's names
comes from the installed torch, and agrees with torch.device()."""
from __future__ import annotations

import re

import pytest
from cli import assert_spec_error
from test_spec_errors import VALID_SPEC

from codegen import device_names


@pytest.mark.parametrize("device", ["cuda", "cpu", "meta", "xla", "lazy", "mps"])
def test_pytorch_device_types_are_refused(tmp_path, device):
    assert_spec_error(tmp_path, VALID_SPEC.replace("device: mlu", f"device: {device}"), 2,
                      f"device '{device}'", "name the chip, e.g. 'mlu' or 'npu'")


@pytest.mark.parametrize("device, suggestion", [("MLU", "mlu"), ("Mlu", "mlu"), ("dev2", "dev"),
                                                ("'my-chip'", "mychip")])
def test_names_torch_device_does_not_parse_are_refused(tmp_path, device, suggestion):
    assert_spec_error(tmp_path, VALID_SPEC.replace("device: mlu", f"device: {device}"), 2,
                      "lowercase letters and _ only", f"e.g. '{suggestion}'")


@pytest.mark.parametrize("device", ["mlu", "npu", "nvgpu", "my_chip", "privateuseone"])
def test_chip_names_are_accepted(device):
    assert device_names.problem(device) is None


@pytest.mark.filterwarnings("ignore:'mkldnn' is no longer used as device type")
def test_the_reserved_names_agree_with_torch_device():
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as error:
        torch.device("surely_no_such_device")
    # "Expected one of cpu, cuda, ..., privateuseone device type at start of device string: ..."
    parsed = re.search(r"Expected one of (.*?) device type", str(error.value)).group(1).split(", ")
    assert len(parsed) > 10
    taken = device_names.torch_device_types()
    assert set(parsed) - {"privateuseone"} <= taken
    for name in taken:
        try:
            assert torch.device(name).type == name
        except RuntimeError:
            pass  # a DeviceType torch.device() does not parse (metal): reserved all the same
