"""The Prometheus exporter (torch_fl/prometheus_exporter.py): its text format read
back with prometheus_client's own parser, and end to end, a real Prometheus server
(Debian's package, installed by `make setup`) scraping a training process on the
loopback, queried through its HTTP API. Everything is bounded in time and stops by
itself."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
import time
import urllib.parse
import urllib.request

import pytest
import torch

import torch_fl
from torch_fl import device_module
from processes import free_port, read_lines

prometheus_client = pytest.importorskip("prometheus_client", reason="prometheus-client is pinned in requirements.txt")
from prometheus_client.parser import text_string_to_metric_families  # noqa: E402

# What this file tests is the same code for every vendor: chip_independent (conftest.py).
pytestmark = pytest.mark.chip_independent


def families_by_name(text: str) -> dict:
    return {family.name: family for family in text_string_to_metric_families(text)}


def test_the_exposition_names_types_and_values(device, fallback_mode):
    from torch_fl import monitor
    fallback_mode("silent")
    x = torch.randn(32, device=device)
    for _ in range(5):
        x = x * 2
    torch.special.erfcx(x)  # in no spec: a CPU fallback
    monitor.prometheus_collector()  # registered once per process, as start_http_server does
    text = prometheus_client.generate_latest(prometheus_client.REGISTRY).decode()
    assert "# HELP torch_fl_device_memory_used_bytes Device memory held by tensors." in text
    assert "# TYPE torch_fl_op_calls_total counter" in text
    assert "# TYPE torch_fl_device_memory_total_bytes gauge" in text
    families = families_by_name(text)
    label = str(torch_fl.device(0))
    total = {s.labels["device"]: s.value for s in families["torch_fl_device_memory_total_bytes"].samples}
    assert total[label] == device_module.mem_get_info(0)[1]
    calls = {(s.labels["device"], s.labels["path"]): s.value for s in families["torch_fl_op_calls"].samples}
    assert calls[(label, "native")] >= 5 and calls[(label, "fallback")] >= 1
    erfcx = [s for s in families["torch_fl_fallback_calls"].samples if s.labels["op"].startswith("aten::special_erfcx")]
    assert erfcx and erfcx[0].labels["reason"] == "not in spec" and erfcx[0].value >= 1
    for sample in families["torch_fl_device_memory_fragmentation_ratio"].samples:
        assert 0.0 <= sample.value <= 1.0
    # Counters only grow between scrapes.
    x * 2
    again = families_by_name(prometheus_client.generate_latest(prometheus_client.REGISTRY).decode())
    later = {(s.labels["device"], s.labels["path"]): s.value for s in again["torch_fl_op_calls"].samples}
    assert later[(label, "native")] > calls[(label, "native")]


TRAINING = textwrap.dedent("""
    import sys, time, warnings, torch, torch_fl
    from torch_fl import monitor
    warnings.simplefilter("ignore")
    monitor.start_http_server({port}, addr="127.0.0.1")
    device = torch_fl.device(0)
    model = torch.nn.Linear(64, 64).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    print("READY", flush=True)
    deadline = time.monotonic() + {seconds}
    while time.monotonic() < deadline:   # stops by itself
        loss = torch.special.erfcx(model(torch.randn(32, 64, device=device))).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        time.sleep(0.01)
""")


def query(prometheus_port: int, expression: str) -> list:
    url = f"http://127.0.0.1:{prometheus_port}/api/v1/query?" + urllib.parse.urlencode({"query": expression})
    with urllib.request.urlopen(url, timeout=5) as response:
        answer = json.load(response)
    assert answer["status"] == "success", answer
    return answer["data"]["result"]


@pytest.mark.skipif(shutil.which("prometheus") is None, reason="Debian's prometheus package is not installed "
                    "(make setup installs it)")
def test_a_prometheus_server_scrapes_a_training_process(device, tmp_path):
    exporter_port, prometheus_port = free_port(), free_port()
    training = subprocess.Popen([sys.executable, "-c", TRAINING.format(port=exporter_port, seconds=60)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    prometheus = None
    try:
        assert read_lines(training, 1, timeout=120)[0].strip() == "READY"
        config = tmp_path / "prometheus.yml"
        config.write_text(textwrap.dedent(f"""
            global:
              scrape_interval: 1s
            scrape_configs:
              - job_name: training
                static_configs:
                  - targets: ["127.0.0.1:{exporter_port}"]
        """))
        prometheus = subprocess.Popen(
            ["prometheus", f"--config.file={config}", f"--storage.tsdb.path={tmp_path / 'data'}",
             f"--web.listen-address=127.0.0.1:{prometheus_port}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        label = str(torch_fl.device(0))
        wanted = {
            "memory": f'torch_fl_device_memory_used_bytes{{device="{label}"}}',
            "native calls": f'torch_fl_op_calls_total{{device="{label}",path="native"}}',
            "fallbacks": 'torch_fl_fallback_calls_total{op=~"aten::special_erfcx.*"}',
            "call rate": f'rate(torch_fl_op_calls_total{{device="{label}",path="native"}}[5s])',
        }
        found: dict = {}
        deadline = time.monotonic() + 45
        while time.monotonic() < deadline and len(found) < len(wanted):
            time.sleep(1)
            for key, expression in wanted.items():
                try:
                    result = query(prometheus_port, expression)
                except OSError:
                    break  # Prometheus still starting
                if result and float(result[0]["value"][1]) > 0:
                    found[key] = result[0]
        assert set(found) == set(wanted), (found, prometheus.stderr.read()[-2000:] if prometheus.poll() else "")
        assert found["memory"]["metric"]["job"] == "training"
    finally:
        for process in (prometheus, training):
            if process is not None and process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
