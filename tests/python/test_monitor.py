"""torch_fl.monitor: DeviceMonitor as the articles use it, each number checked
against what the test did on the device in the window (busy and idle windows,
tensors held and freed, native calls and fallbacks counted)."""
from __future__ import annotations

import time

import pytest
import torch

import torch_fl
from torch_fl import device_module
from torch_fl.monitor import DeviceMonitor, least_busy_device


def busy_time_known(device) -> bool:
    try:
        device_module.busy_time(device.index or 0)
        return True
    except RuntimeError:
        return False


def test_the_articles_calls(device):
    """DeviceMonitor(devices).get_stats()[d]['utilization' / 'memory_used' / 'memory_total']."""
    devices = [torch_fl.device(i) for i in range(torch_fl.device_count())]
    stats = DeviceMonitor(devices).get_stats()
    for d in devices:
        for spelling in (d, str(d), d.index):
            entry = stats[spelling]
            assert entry["memory_total"] == device_module.mem_get_info(d.index)[1]
            assert 0 <= entry["memory_used"] <= entry["memory_total"]
            assert entry["utilization"] is None or 0.0 <= entry["utilization"] <= 100.0
    assert set(stats) == set(devices)
    with pytest.raises(KeyError, match="utilization"):
        stats[devices[0]]["utilisation"]


def test_memory_used_reserved_and_fragmentation_follow_the_tensors(device):
    device_module.empty_cache()
    monitor = DeviceMonitor([device])
    held = torch.empty(4 << 20, dtype=torch.uint8, device=device)  # 4 MiB
    with_tensor = monitor.get_stats()[device]
    assert with_tensor.memory_used >= 4 << 20
    assert with_tensor.memory_reserved >= with_tensor.memory_used
    del held
    cached = monitor.get_stats()[device]
    # Freed into the allocator's cache: still reserved, no longer used.
    assert cached.memory_used <= with_tensor.memory_used - (4 << 20)
    assert cached.memory_reserved == with_tensor.memory_reserved
    assert cached.fragmentation == pytest.approx(
        (cached.memory_reserved - cached.memory_used) / cached.memory_reserved, abs=1e-4)
    assert cached.largest_free_block >= 4 << 20
    device_module.empty_cache()
    emptied = monitor.get_stats()[device]
    assert emptied.memory_reserved < cached.memory_reserved


def test_op_calls_and_the_fallback_rate_count_what_ran(device, fallback_mode):
    fallback_mode("silent")
    x = torch.randn(64, device=device)
    device_module.synchronize()
    monitor = DeviceMonitor([device])
    for _ in range(30):
        x = x * 1.0001  # native on every chip
    torch.special.erfcx(x)  # no chip declares it: one CPU fallback
    stats = monitor.get_stats()[device]
    assert stats.op_calls >= 31 and stats.fallback_calls == 1
    assert stats.fallback_rate == pytest.approx(1 / stats.op_calls, abs=1e-4)
    assert stats.op_calls_per_second == pytest.approx(stats.op_calls / stats.window_seconds, rel=0.01)
    quiet = monitor.get_stats()[device]
    assert quiet.op_calls == 0 and quiet.fallback_rate == 0.0


def test_utilization_is_the_busy_share_of_each_window(device):
    if not busy_time_known(device):
        pytest.skip(f"the {torch_fl.vendor()} driver reports no busy time")
    a = torch.randn(512, 512, device=device)
    device_module.synchronize()
    monitor = DeviceMonitor([device])
    started = time.monotonic()
    while time.monotonic() - started < 0.3:  # keep the queue full for 0.3 s
        for _ in range(4):
            a = (a @ a).clamp_(-1, 1)
        device_module.synchronize()
    busy = monitor.get_stats()[device]
    time.sleep(0.3)
    idle = monitor.get_stats()[device]
    assert busy.utilization > 40.0, busy
    assert idle.utilization < 10.0, idle
    assert busy.utilization_since_start is not None


def test_a_sampling_monitor_returns_the_latest_window_without_waiting(device):
    with DeviceMonitor([device], interval=0.05) as monitor:
        time.sleep(0.2)
        started = time.monotonic()
        stats = monitor.get_stats()[device]
        assert time.monotonic() - started < 0.05
        assert 0.03 < stats.window_seconds < 0.5
    assert monitor._thread is None  # closed


def test_a_failed_sampling_thread_is_reported_not_answered_for(device, monkeypatch):
    """A reading that fails ends the sampling thread: get_stats raises its error instead of
    answering the last window, forever, as current."""
    from torch_fl import monitor as monitor_module
    with DeviceMonitor([device], interval=0.02) as monitor:
        time.sleep(0.1)
        monkeypatch.setattr(monitor_module, "read_device", lambda index: (_ for _ in ()).throw(
            RuntimeError("device lost")))
        deadline = time.monotonic() + 5
        while monitor._sampling_error is None and time.monotonic() < deadline:
            time.sleep(0.02)
        with pytest.raises(RuntimeError, match="sampling thread stopped: RuntimeError: device lost"):
            monitor.get_stats()


def test_get_takes_every_spelling_of_a_device(device):
    stats = DeviceMonitor([device]).get_stats()
    assert stats.get(str(device)) is stats.get(device.index or 0) is stats[device]
    assert stats.get("cpu") is None and stats.get(99, "none") == "none"


def test_least_busy_device_picks_the_idle_one(device):
    if torch_fl.device_count() < 2:
        pytest.skip("needs two devices")
    if not busy_time_known(device):
        pytest.skip(f"the {torch_fl.vendor()} driver reports no busy time")
    second = torch_fl.device(1)
    a = torch.randn(512, 512, device=device)
    monitor = DeviceMonitor()
    started = time.monotonic()
    while time.monotonic() - started < 0.2:
        a = (a @ a).clamp_(-1, 1)
        device_module.synchronize(0)
    assert monitor.least_busy_device() == second
    assert least_busy_device(window=0.05) in {torch_fl.device(i) for i in range(torch_fl.device_count())}


def test_bad_devices_are_refused(device):
    with pytest.raises(ValueError, match="does not exist"):
        DeviceMonitor([torch_fl.device_count()])
    with pytest.raises(ValueError, match=f"not a {device.type} device"):
        DeviceMonitor(["cpu"])
    with pytest.raises(ValueError, match="interval must be positive"):
        DeviceMonitor(interval=0)
