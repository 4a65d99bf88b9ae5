"""What production users watch on each device, as the articles use it:

    from torch_fl.monitor import DeviceMonitor
    monitor = DeviceMonitor()                 # every device of the loaded vendor
    stats = monitor.get_stats()               # per device, since the previous reading
    stats["mlu:0"]["utilization"], stats["mlu:0"]["memory_used"], stats["mlu:0"]["memory_total"]

Each reading covers the window since the previous one (the first: since the monitor
was made). With `interval=SECONDS` a daemon thread takes a reading every SECONDS and
get_stats() returns the latest window without waiting (`close()` stops it).

The numbers come from the runtime, never estimated:
- utilization: the share of the window in which the device's queues had work
  (the driver's busy time), in percent; None where the driver cannot tell;
- memory: bytes held by tensors (used), held by the caching allocator (reserved),
  the device's total and free memory; fragmentation, the share of reserved memory no
  tensor uses, and the largest cached free block;
- op calls: native kernel launches and CPU fallbacks on the device in the window
  (counted by the runtime, op_calls.h), their rate per second, and the fallback rate.

`torch-fl info` (cli.py) prints the same readings; start_http_server(port) publishes
them for Prometheus (prometheus_exporter.py).
"""
from __future__ import annotations

import threading
import time
from dataclasses import asdict, dataclass, fields
from typing import Iterable, Optional, Union

import torch

DeviceLike = Union[int, str, torch.device]


@dataclass(frozen=True)
class DeviceReading:
    """One device's counters at one instant: what a window is computed from."""
    index: int
    wall_ns: int  # time.monotonic_ns() when read
    busy_ns: Optional[int]  # None: the driver cannot tell (busy_unknown says why)
    elapsed_ns: Optional[int]
    busy_unknown: Optional[str]
    native_calls: int
    fallback_calls: int
    allocated_bytes: int
    reserved_bytes: int
    total_bytes: int
    free_bytes: int
    largest_free_block_bytes: int


def read_device(index: int) -> DeviceReading:
    import ctypes

    from . import _backend, device_module
    lib = _backend.load()
    busy = elapsed = unknown = None
    try:
        busy, elapsed = device_module.busy_time(index)
    except RuntimeError as error:
        unknown = str(error)
    native, fallback = ctypes.c_uint64(), ctypes.c_uint64()
    lib.call("tfl_op_calls", index, ctypes.byref(native), ctypes.byref(fallback))
    stats = device_module.memory_stats(index)
    free, total = device_module.mem_get_info(index)
    cached = [block["size"] for segment in device_module.memory_snapshot(index) for block in segment["blocks"]
              if block["state"] == "inactive"]
    return DeviceReading(index=index, wall_ns=time.monotonic_ns(), busy_ns=busy, elapsed_ns=elapsed,
                         busy_unknown=unknown, native_calls=native.value, fallback_calls=fallback.value,
                         allocated_bytes=stats["allocated_bytes.all.current"],
                         reserved_bytes=stats["reserved_bytes.all.current"], total_bytes=total, free_bytes=free,
                         largest_free_block_bytes=max(cached, default=0))


def busy_share(busy_ns: int, elapsed_ns: int) -> float:
    """busy over elapsed, 0..1 (4 decimals); 0 for an empty window."""
    return round(busy_ns / elapsed_ns, 4) if elapsed_ns > 0 else 0.0


@dataclass(frozen=True)
class DeviceStats:
    """One device over one window. Indexable by field name, as the articles write it
    (stats[device]["utilization"])."""
    device: str
    window_seconds: float
    utilization: Optional[float]  # percent of the window the queues were busy; None: unknown
    utilization_since_start: Optional[float]
    memory_used: int
    memory_reserved: int
    memory_total: int
    memory_free: int
    fragmentation: float  # (reserved - used) / reserved; 0 when nothing is reserved
    largest_free_block: int
    op_calls: int  # native launches plus CPU fallbacks in the window
    fallback_calls: int
    fallback_rate: float  # fallback_calls / op_calls; 0 when no op ran
    op_calls_per_second: float

    @classmethod
    def between(cls, device_type: str, before: DeviceReading, now: DeviceReading) -> "DeviceStats":
        seconds = max(now.wall_ns - before.wall_ns, 0) / 1e9
        utilization = since_start = None
        if now.busy_ns is not None and before.busy_ns is not None:
            utilization = round(100 * busy_share(now.busy_ns - before.busy_ns, now.elapsed_ns - before.elapsed_ns), 2)
        if now.busy_ns is not None:
            since_start = round(100 * busy_share(now.busy_ns, now.elapsed_ns), 2)
        fallbacks = now.fallback_calls - before.fallback_calls
        calls = now.native_calls - before.native_calls + fallbacks
        reserved = now.reserved_bytes
        return cls(device=f"{device_type}:{now.index}", window_seconds=round(seconds, 6), utilization=utilization,
                   utilization_since_start=since_start, memory_used=now.allocated_bytes, memory_reserved=reserved,
                   memory_total=now.total_bytes, memory_free=now.free_bytes,
                   fragmentation=round((reserved - now.allocated_bytes) / reserved, 4) if reserved else 0.0,
                   largest_free_block=now.largest_free_block_bytes, op_calls=calls, fallback_calls=fallbacks,
                   fallback_rate=round(fallbacks / calls, 4) if calls else 0.0,
                   op_calls_per_second=round(calls / seconds, 1) if seconds > 0 else 0.0)

    def __getitem__(self, key: str):
        if key not in _STAT_NAMES:
            raise KeyError(f"{key!r}: a device's stats are {', '.join(sorted(_STAT_NAMES))}")
        return getattr(self, key)

    def keys(self):
        return [f.name for f in fields(self)]

    def as_dict(self) -> dict:
        return asdict(self)


_STAT_NAMES = {f.name for f in fields(DeviceStats)}


class DeviceStatsByDevice(dict):
    """{torch.device: DeviceStats}, also indexed by "mlu:0" or by the index 0."""

    def __init__(self, device_type: str, stats: Iterable[DeviceStats]):
        super().__init__((torch.device(s.device), s) for s in stats)
        self._device_type = device_type

    def __getitem__(self, key: DeviceLike) -> DeviceStats:
        return super().__getitem__(_as_device(self._device_type, key))

    def __contains__(self, key) -> bool:
        try:
            return super().__contains__(_as_device(self._device_type, key))
        except (ValueError, RuntimeError, TypeError):
            return False

    def get(self, key, default=None):
        """As dict.get, with every spelling of a device ("mlu:0", 0, torch.device) the index takes."""
        return self[key] if key in self else default


def _as_device(device_type: str, key: DeviceLike) -> torch.device:
    device = torch.device(device_type, key) if isinstance(key, int) else torch.device(key)
    if device.type != device_type:
        raise ValueError(f"torch_fl.monitor: {key!r} is not a {device_type} device")
    return device if device.index is not None else torch.device(device_type, 0)


class DeviceMonitor:
    def __init__(self, devices: Optional[Iterable[DeviceLike]] = None, interval: Optional[float] = None):
        from . import _backend, device_module
        self.device_type = _backend.load().device
        count = device_module.device_count()
        indices = range(count) if devices is None else [_as_device(self.device_type, d).index for d in devices]
        for index in indices:
            if not 0 <= index < count:
                raise ValueError(f"torch_fl.monitor: {self.device_type}:{index} does not exist "
                                 f"({count} device(s))")
        self.indices = list(indices)
        self._lock = threading.Lock()
        self._previous = {index: read_device(index) for index in self.indices}
        self._latest: Optional[DeviceStatsByDevice] = None
        self._stop = threading.Event()
        self._thread = None
        self._sampling_error: Optional[BaseException] = None
        if interval is not None:
            if interval <= 0:
                raise ValueError(f"torch_fl.monitor: interval must be positive seconds, got {interval!r}")
            self._thread = threading.Thread(target=self._sample, args=(interval,), name="torch_fl monitor",
                                            daemon=True)
            self._thread.start()

    def _read(self) -> DeviceStatsByDevice:
        with self._lock:
            now = {index: read_device(index) for index in self.indices}
            stats = DeviceStatsByDevice(self.device_type, [
                DeviceStats.between(self.device_type, self._previous[index], now[index]) for index in self.indices])
            self._previous = now
            self._latest = stats
            return stats

    def _sample(self, interval: float) -> None:
        try:
            while not self._stop.wait(interval):
                self._read()
        except Exception as error:  # noqa: BLE001 - kept for get_stats, which raises it
            # A reading that fails (a device error) ends the thread: without this the
            # monitor would go on answering its last window as if it were current.
            self._sampling_error = error

    def get_stats(self) -> DeviceStatsByDevice:
        """Each device's stats since the previous reading; with `interval`, the latest
        window the sampling thread closed (the first call waits for none: it reads).
        If the sampling thread failed, its error is raised here."""
        if self._sampling_error is not None:
            raise RuntimeError(f"torch_fl.monitor: the sampling thread stopped: "
                               f"{type(self._sampling_error).__name__}: {self._sampling_error}") \
                from self._sampling_error
        if self._thread is not None:
            with self._lock:
                latest = self._latest
            if latest is not None:
                return latest
        return self._read()

    def latest_readings(self) -> dict[int, DeviceReading]:
        """The raw counters of the latest reading, by device index."""
        with self._lock:
            return dict(self._previous)

    def least_busy_device(self) -> torch.device:
        """The device whose queues were busy least in the latest window (ties: the
        least memory used, then the lowest index): the articles' dynamic selector."""
        stats = self.get_stats()
        return min(stats, key=lambda device: (stats[device].utilization or 0.0, stats[device].memory_used,
                                              device.index))

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def __enter__(self) -> "DeviceMonitor":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def start_http_server(port: int, addr: str = "0.0.0.0"):
    """Publishes these numbers for Prometheus on addr:port/metrics from a daemon thread
    (prometheus_client's server and its default address, all interfaces; give
    addr="127.0.0.1" to keep it local). Returns (server, thread)."""
    from .prometheus_exporter import serve
    return serve(port, addr, DeviceMonitor)


def prometheus_collector():
    """The process's Prometheus collector, registered once with prometheus_client's
    default registry (start_http_server registers it too)."""
    from .prometheus_exporter import register_collector
    return register_collector(DeviceMonitor)


def least_busy_device(devices: Optional[Iterable[DeviceLike]] = None, window: float = 0.05) -> torch.device:
    """Watches the devices for `window` seconds and returns the least busy one."""
    with DeviceMonitor(devices) as monitor:
        time.sleep(window)
        return monitor.least_busy_device()
