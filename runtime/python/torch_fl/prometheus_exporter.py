"""torch_fl.monitor's numbers for Prometheus, as NVIDIA's DCGM exporter and Ascend's
npu-exporter publish theirs: `torch_fl.monitor.start_http_server(port)` inside the
training process (the runtime's counters live there), or
`torch-fl monitor --prometheus PORT -- python train.py`.

Each scrape takes one DeviceMonitor reading. Counters are the runtime's totals since
the process started (Prometheus computes rates: `rate(torch_fl_op_calls_total[1m])`);
gauges are the state at the scrape, and the utilization ratio covers the time since the
previous scrape. prometheus_client is imported only here, when an exporter starts.
"""
from __future__ import annotations

import threading
from typing import Callable, Optional

from . import _backend, fallback

# (metric name, help, DeviceStats field) of the gauges read from each window.
GAUGES = (
    ("torch_fl_device_memory_used_bytes", "Device memory held by tensors.", "memory_used"),
    ("torch_fl_device_memory_reserved_bytes", "Device memory held by the caching allocator.", "memory_reserved"),
    ("torch_fl_device_memory_total_bytes", "The device's memory, as its driver reports it.", "memory_total"),
    ("torch_fl_device_memory_free_bytes", "The device's free memory, as its driver reports it.", "memory_free"),
    ("torch_fl_device_memory_fragmentation_ratio",
     "Share of the caching allocator's memory that no tensor uses.", "fragmentation"),
    ("torch_fl_device_largest_free_block_bytes", "The largest free block the caching allocator holds.",
     "largest_free_block"),
)


class DeviceCollector:
    """A prometheus_client collector over a torch_fl.monitor.DeviceMonitor (one reading
    per scrape; the monitor is given, so that this module does not import monitor's)."""

    def __init__(self, monitor, vendor: str):
        self.monitor = monitor
        self.vendor = vendor

    def describe(self):
        return []  # collected lazily: no reading at registration

    def collect(self):
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
        stats = self.monitor.get_stats()
        readings = self.monitor.latest_readings()
        for name, documentation, field in GAUGES:
            family = GaugeMetricFamily(name, documentation, labels=["device", "vendor"])
            for device, entry in stats.items():
                family.add_metric([str(device), self.vendor], float(entry[field]))
            yield family
        utilization = GaugeMetricFamily(
            "torch_fl_device_utilization_ratio",
            "Share of the time since the previous scrape in which the device's queues had work.",
            labels=["device", "vendor"])
        busy = CounterMetricFamily("torch_fl_device_busy_seconds",
                                   "Time the device's queues had work since it came up.", labels=["device", "vendor"])
        calls = CounterMetricFamily("torch_fl_op_calls",
                                    "Ops on the device: native kernel launches and CPU fallbacks.",
                                    labels=["device", "vendor", "path"])
        for device, entry in stats.items():
            reading = readings[device.index]
            labels = [str(device), self.vendor]
            if entry.utilization is not None:  # a driver that cannot tell publishes no series
                utilization.add_metric(labels, entry.utilization / 100)
                busy.add_metric(labels, reading.busy_ns / 1e9)
            calls.add_metric(labels + ["native"], float(reading.native_calls))
            calls.add_metric(labels + ["fallback"], float(reading.fallback_calls))
        yield utilization
        yield busy
        yield calls
        per_op = CounterMetricFamily("torch_fl_fallback_calls", "CPU fallbacks per op, dtype and reason.",
                                     labels=["op", "dtype", "reason", "vendor"])
        for record in fallback.records():
            per_op.add_metric([record["op"], record["dtype"], record["reason"], self.vendor], float(record["count"]))
        yield per_op


_lock = threading.Lock()
_collector: Optional[DeviceCollector] = None


def register_collector(make_monitor: Callable[[], object]) -> DeviceCollector:
    """The process's collector, registered once with prometheus_client's default registry
    (so an application's own metrics are served beside ours)."""
    global _collector
    from prometheus_client import REGISTRY
    with _lock:
        if _collector is None:
            _collector = DeviceCollector(make_monitor(), _backend.load().vendor)
            REGISTRY.register(_collector)
        return _collector


def serve(port: int, addr: str, make_monitor: Callable[[], object]):
    """Serves /metrics on addr:port from a daemon thread (prometheus_client's server);
    returns (server, thread) as prometheus_client does."""
    try:
        import prometheus_client
    except ImportError as error:
        raise ImportError("torch_fl.monitor.start_http_server needs prometheus_client: "
                          "pip install prometheus-client") from error
    register_collector(make_monitor)
    return prometheus_client.start_http_server(port, addr=addr)
