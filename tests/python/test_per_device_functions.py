"""The torch.<device> functions that take a device, in each form users write
(an index, a string, a torch.device), on the second device while the first is
current: a function that ignores its argument, or acts on the current device
only, fails here. Tests that need two devices say so and skip alone."""
from __future__ import annotations

import time
import warnings

import pytest
import torch

import torch_fl

needs_two_devices = pytest.mark.skipif(torch_fl.device_count() < 2,
                                       reason="needs two devices of this vendor (the simulators have two by default)")


@pytest.fixture
def mod(device):
    module = getattr(torch, device.type)
    module.set_device(0)
    yield module
    module.set_device(0)


def device_forms(device_type: str, index: int) -> list:
    return [index, f"{device_type}:{index}", torch.device(device_type, index)]


@needs_two_devices
def test_memory_functions_report_the_device_they_are_given(device, mod):
    mod.synchronize(1)
    mod.empty_cache()
    baseline = {form: mod.memory_allocated(form) for form in device_forms(device.type, 1)}
    before_on_0 = mod.memory_allocated(0)
    block = torch.empty(1 << 20, device=f"{device.type}:1")  # 4 MiB on device 1 only
    for form in device_forms(device.type, 1):
        assert mod.memory_allocated(form) == baseline[form] + block.nbytes, form
        assert mod.memory_reserved(form) >= mod.memory_allocated(form), form
        assert mod.max_memory_allocated(form) >= baseline[form] + block.nbytes, form
        assert mod.memory_stats(form)["allocated_bytes.all.current"] == baseline[form] + block.nbytes, form
    assert mod.memory_allocated(0) == before_on_0


@needs_two_devices
def test_mem_get_info_reports_the_device_it_is_given(device, mod):
    for index in range(2):
        mod.synchronize(index)
    mod.empty_cache()
    free_before = {form: mod.mem_get_info(form)[0] for form in device_forms(device.type, 1)}
    free_on_0 = mod.mem_get_info(0)[0]
    block = torch.empty(16 << 20, dtype=torch.uint8, device=f"{device.type}:1")
    for form in device_forms(device.type, 1):
        assert mod.mem_get_info(form)[0] <= free_before[form] - block.nbytes, form
    assert mod.mem_get_info(0)[0] == free_on_0


def test_seed_all_and_the_all_device_rng_state_functions(device, mod):
    count = torch_fl.device_count()
    mod.seed_all()
    seeds = []
    for index in range(count):
        with mod.device(index):
            seeds.append(mod.initial_seed())
    mod.seed_all()
    for index in range(count):
        with mod.device(index):
            assert mod.initial_seed() != seeds[index], "seed_all left a device's seed as it was"
    states = mod.get_rng_state_all()
    assert len(states) == count
    for index in range(count):
        assert torch.equal(states[index], mod.get_rng_state(index))
    draws = [torch.rand(8, device=torch_fl.device(index)).cpu() for index in range(count)]
    mod.set_rng_state_all(states)
    for index in range(count):
        assert torch.equal(torch.rand(8, device=torch_fl.device(index)).cpu(), draws[index]), index


def test_is_available_means_at_least_one_device(monkeypatch):
    from torch_fl import device_module
    for count, available in ((0, False), (1, True), (2, True)):
        monkeypatch.setattr(device_module, "_driver_device_count", lambda count=count: count)
        assert device_module.is_available() is available


def test_peak_reserved_is_not_peak_allocated(device, mod):
    """A 1-byte tensor holds a whole cached segment: reserved exceeds allocated."""
    mod.synchronize()
    mod.empty_cache()
    mod.reset_peak_memory_stats(0)
    tiny = torch.empty(1, device=device)
    assert mod.max_memory_reserved(0) > mod.max_memory_allocated(0) >= tiny.nbytes
    assert mod.max_memory_reserved(0) == mod.memory_stats(0)["reserved_bytes.all.peak"]


@needs_two_devices
def test_manual_seed_all_seeds_every_device(device, mod):
    draws = []
    for index in range(2):
        mod.manual_seed_all(1234)
        draws.append(torch.rand(8, device=f"{device.type}:{index}").cpu())
    # Both devices start from the same seed, hence the same counter-based stream.
    assert torch.equal(draws[0], draws[1])
    mod.manual_seed_all(99)
    with mod.device(1):
        assert mod.initial_seed() == 99
    mod.manual_seed(5)  # the current device only
    with mod.device(1):
        assert mod.initial_seed() == 99


@needs_two_devices
@pytest.mark.parametrize("form_index", [0, 1, 2])
def test_rng_state_functions_act_on_the_device_they_are_given(device, mod, form_index):
    target = device_forms(device.type, 1)[form_index]
    mod.manual_seed_all(7)
    saved = mod.get_rng_state(target)
    first = torch.rand(16, device=f"{device.type}:1").cpu()
    untouched_on_0 = mod.get_rng_state(0)
    mod.set_rng_state(saved, target)
    assert torch.equal(mod.get_rng_state(0), untouched_on_0), "set_rng_state changed another device"
    again = torch.rand(16, device=f"{device.type}:1").cpu()
    assert torch.equal(first, again), "set_rng_state did not restore the device it was given"


@needs_two_devices
@pytest.mark.parametrize("form_index", [0, 1, 2])
def test_streams_belong_to_the_device_they_are_given(device, mod, form_index):
    target = device_forms(device.type, 1)[form_index]
    stream = mod.Stream(device=target)
    assert stream.device == torch.device(device.type, 1)
    assert mod.current_stream(target).device == torch.device(device.type, 1)
    assert mod.default_stream(target).device_index == 1
    with mod.stream(stream):  # switches the current device too, as CUDA does
        x = torch.ones(4, device=f"{device.type}:1") * 3
    stream.synchronize()
    assert x.cpu().tolist() == [3.0] * 4


def test_fallback_stats_count_calls_not_records(device):
    """Three calls of an op no chip declares (a Bessel function) are three, in one record."""
    x = torch.randn(3, device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch_fl.reset_fallback_stats()
        for _ in range(3):
            torch.special.bessel_j0(x)
    stats = torch_fl.fallback_stats()
    assert stats.get("aten::special_bessel_j0.out") == {"Float": 3}, stats
    assert torch_fl.fallback_count() == 3


@needs_two_devices
def test_busy_time_counts_work_on_the_device_given_and_not_idle_time(device, mod):
    """What `torch-fl info` reports as utilisation: queued matmuls on device 1 keep it busy for
    most of the wall time they take; device 0 is not charged; an idle second is not busy."""
    try:
        mod.busy_time(0)
    except RuntimeError as error:
        pytest.skip(f"the {torch_fl.vendor()} driver reports no busy time: {error}")
    mod.synchronize(0)
    mod.synchronize(1)
    a = torch.randn(384, 384, device=f"{device.type}:1")
    mod.synchronize(1)
    busy_before, elapsed_before = mod.busy_time(f"{device.type}:1")
    other_before, _ = mod.busy_time(0)
    started = time.perf_counter()
    for _ in range(30):
        a = (a @ a).tanh()
    mod.synchronize(1)
    wall_ns = (time.perf_counter() - started) * 1e9
    busy_after, elapsed_after = mod.busy_time(torch.device(device.type, 1))
    assert busy_after - busy_before >= 0.5 * wall_ns, (busy_after - busy_before, wall_ns)
    assert elapsed_after - elapsed_before >= busy_after - busy_before
    assert mod.busy_time(0)[0] == other_before, "device 1's work was charged to device 0"

    time.sleep(0.2)
    busy_idle, elapsed_idle = mod.busy_time(1)
    assert busy_idle - busy_after < 0.02e9, "an idle device counted as busy"
    assert elapsed_idle - elapsed_after >= 0.2e9
    assert abs(mod.utilization(1) - 100 * busy_idle / elapsed_idle) <= 1  # percent since the device came up
