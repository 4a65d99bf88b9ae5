"""The CPU fallback policy and its counters, and errors on bad input: mixed
devices, out of memory, vendor status errors."""
from __future__ import annotations

import warnings

import pytest
import torch

import torch_fl
import spec_dtypes
import vendor_facts


def not_in_spec(x: torch.Tensor) -> torch.Tensor:
    return torch.special.bessel_j0(x)  # a Bessel function: no chip's spec declares it


def test_fallback_computes_the_cpu_result_and_is_counted(device, fallback_mode):
    fallback_mode("silent")
    torch_fl.reset_fallback_stats()
    x = torch.arange(5.0)
    assert torch.equal(not_in_spec(x.to(device)).cpu(), torch.special.bessel_j0(x))
    assert torch_fl.fallback_stats() == {"aten::special_bessel_j0.out": {"Float": 1}}


def test_warn_mode_warns_once_per_op(device, fallback_mode):
    fallback_mode("warn")
    torch_fl.reset_fallback_stats()
    x = torch.arange(5.0).to(device)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        not_in_spec(x)
        not_in_spec(x)
    messages = [str(w.message) for w in caught if "runs on CPU" in str(w.message)]
    assert len(messages) == 1, messages
    assert "special_bessel_j0" in messages[0] and "not in spec" in messages[0]


def test_silent_mode_does_not_warn(device, fallback_mode):
    fallback_mode("silent")
    torch_fl.reset_fallback_stats()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        not_in_spec(torch.arange(3.0).to(device))
    assert not [w for w in caught if "runs on CPU" in str(w.message)]


def test_strict_mode_raises_naming_op_dtype_and_reason(device, fallback_mode):
    fallback_mode("strict")
    with pytest.raises(NotImplementedError, match=r"special_bessel_j0.*Float.*not in spec.*strict"):
        not_in_spec(torch.arange(3.0).to(device))


def test_dtype_outside_the_spec_falls_back_with_its_reason(device, fallback_mode):
    foreign = spec_dtypes.non_native_float()
    name = spec_dtypes.C10_NAMES[foreign]
    fallback_mode("strict")
    with pytest.raises(NotImplementedError, match=rf"add\.Tensor.*{name}.*dtype not native"):
        torch.ones(3, dtype=foreign).to(device) + 1
    fallback_mode("silent")
    x = torch.ones(3, dtype=foreign).to(device)
    torch_fl.reset_fallback_stats()
    y = x + 1
    assert y.dtype == foreign and y.device.type == device.type
    assert torch.equal(y.cpu(), torch.full((3,), 2.0, dtype=foreign))
    assert torch_fl.fallback_stats()["aten::add.Tensor"] == {name: 1}
    assert "dtype not native" in torch_fl.fallback_report()


@pytest.mark.skipif(torch_fl.device_count() < 2, reason="needs two devices of this vendor (the simulators have two)")
def test_mixed_devices_name_the_op_and_both_devices(device):
    name = device.type
    with pytest.raises(RuntimeError, match=rf"mm.*same device.*'mat2' is on {name}:1.*'self' is on {name}:0"):
        torch.mm(torch.ones(2, 2, device=torch_fl.device(0)), torch.ones(2, 2, device=torch_fl.device(1)))


def test_cpu_tensor_mixed_with_a_device_tensor_is_refused(device):
    with pytest.raises(RuntimeError, match=r"same device.*cpu"):
        torch.mm(torch.ones(2, 2, device=device), torch.ones(2, 2))


def test_python_numbers_are_accepted_next_to_device_tensors(device):
    x = torch.arange(4).to(device)
    assert (x * 2.5).dtype == torch.float32  # a wrapped number does not promote to float64
    assert torch.equal((x * 2.5).cpu(), torch.arange(4) * 2.5)


def test_out_of_memory_is_an_out_of_memory_error_and_the_device_recovers(device):
    mod = getattr(torch, device.type)
    ooms_before = mod.memory_stats()["num_ooms"]
    with pytest.raises(torch.OutOfMemoryError, match=r"out of memory.*tried to allocate \d+ bytes.*free"):
        torch.empty(1 << 40, dtype=torch.uint8, device=device)
    x = torch.ones(1000, device=device)
    assert x.sum().item() == 1000
    assert mod.memory_stats()["num_ooms"] == ooms_before + 1


def test_vendor_status_error_names_vendor_op_and_message(device):
    with pytest.raises(RuntimeError, match=vendor_facts.expected(vendor_facts.INVALID_ARGUMENT)):
        vendor_facts.facts(vendor_facts.INVALID_ARGUMENT_CALLS)(device)
    assert torch.ones(2, device=device).sum().item() == 2  # still usable
