"""torch.<device>.memory's snapshots (torch_fl/device_memory.py, runtime/src/allocator_history.h),
read back by PyTorch's own memory visualiser code (torch.cuda._memory_viz): the recorded
actions of a tensor's life, the segment and block accounting, the ring's bound, the
pickle, and the snapshot an out-of-memory writes under TORCH_FL_OOM_SNAPSHOT."""
from __future__ import annotations

import base64
import json
import os
import pickle
import re
import shutil
import subprocess
import sys

import pytest
import torch
from torch.cuda import _memory_viz

import torch_fl


@pytest.fixture
def mod(device):
    module = getattr(torch, device.type)
    module.synchronize()
    module.empty_cache()
    yield module
    module.memory._record_memory_history(enabled=None)


def test_a_tensors_life_is_recorded_in_the_visualisers_actions(device, mod):
    mod.memory._record_memory_history()
    # 48 MiB: more than any block an earlier test's live segment could have cached, so it
    # takes a segment of its own from the driver.
    x = torch.empty(48 << 20, dtype=torch.uint8, device=device)
    address = x.data_ptr()
    del x
    mod.synchronize()
    mod.empty_cache()
    snapshot = mod.memory._snapshot()
    trace = snapshot["device_traces"][device.index or 0]
    mine = [e for e in trace if e["addr"] == address and e["action"] in ("alloc", "free_requested", "free_completed")]
    assert [e["action"] for e in mine] == ["alloc", "free_requested", "free_completed"]
    assert mine[0]["size"] >= 48 << 20
    actions = [e["action"] for e in trace]
    assert actions.index("segment_alloc") < actions.index("alloc") < actions.index("segment_free")
    times = [e["time_us"] for e in trace]
    assert times == sorted(times) and all(e["frames"] == [] for e in trace)
    mod.memory._record_memory_history(enabled=None)
    torch.empty(16, device=device)
    assert mod.memory._snapshot()["device_traces"][device.index or 0] == []  # stopped: nothing kept


def test_segments_account_for_their_blocks(device, mod):
    held = [torch.empty(n, dtype=torch.uint8, device=device) for n in (4096, 8192, 1 << 20)]
    segments = mod.memory.memory_snapshot()
    assert segments and all(s["device"] in range(torch_fl.device_count()) for s in segments)
    for segment in segments:
        sizes = {state: sum(b["size"] for b in segment["blocks"] if b["state"] == state)
                 for state in ("active_allocated", "active_pending_free", "inactive")}
        assert sum(b["size"] for b in segment["blocks"]) == segment["total_size"]
        assert segment["allocated_size"] == sizes["active_allocated"]
        assert segment["active_size"] == sizes["active_allocated"] + sizes["active_pending_free"]
    in_use = sum(s["allocated_size"] for s in segments if s["device"] == (device.index or 0))
    assert in_use == mod.memory_allocated(device) and in_use >= 4096 + 8192 + (1 << 20)
    del held


def test_the_visualisers_readers_take_the_snapshot(device, mod, tmp_path):
    mod.memory._record_memory_history()
    a = torch.randn(256, 256, device=device)
    b = a @ a
    del a
    summary = _memory_viz.segsum(mod.memory._snapshot())
    assert "segments:" in summary and "total_reserved" in summary
    text = _memory_viz.trace(mod.memory._snapshot())
    # Its listing: "b = a[offset:size]" (a recorded segment), "a = seg_0[...]" or "a = MEM[...]"
    # for an allocation, "del b" for a free.
    assert re.search(r"^\w+ = \w+\[\d+:", text, re.MULTILINE) and re.search(r"^del \w+", text, re.MULTILINE), text
    path = tmp_path / "snapshot.pickle"
    mod.memory._dump_snapshot(str(path))
    with open(path, "rb") as f:
        loaded = pickle.load(f)
    assert loaded.keys() == {"segments", "device_traces", "allocator_settings"}
    # PyTorch's page embeds the pickle (base64) for its script to read.
    page = mod.memory.trace_page(loaded)
    embedded = json.loads(re.search(r"const local_files = (\[.*?\])\n", page).group(1))[0]["base64"]
    assert pickle.loads(base64.b64decode(embedded)) == loaded
    del b


def test_a_failed_dump_leaves_the_earlier_snapshot_whole(device, mod, tmp_path, monkeypatch):
    from torch_fl import device_memory
    path = tmp_path / "snapshot.pickle"
    mod.memory._dump_snapshot(str(path))
    earlier = path.read_bytes()

    class Unpicklable:
        def __reduce__(self):
            raise OSError("No space left on device")

    snapshot = device_memory._snapshot
    monkeypatch.setattr(device_memory, "_snapshot", lambda: {**snapshot(), "late": Unpicklable()})
    with pytest.raises(OSError, match="No space left"):
        mod.memory._dump_snapshot(str(path))
    assert path.read_bytes() == earlier and [p.name for p in tmp_path.iterdir()] == ["snapshot.pickle"]


def test_the_ring_keeps_the_newest_entries(device, mod):
    mod.memory._record_memory_history(max_entries=10)
    kept = [torch.empty(64, device=device) for _ in range(20)]
    trace = mod.memory._snapshot()["device_traces"][device.index or 0]
    assert len(trace) == 10 and trace[-1]["action"] == "alloc" and trace[-1]["addr"] == kept[-1].data_ptr()
    with pytest.raises(ValueError, match="enabled must be"):
        mod.memory._record_memory_history(enabled="everything")


OOM = """
import os, pickle, torch, torch_fl
device = torch_fl.device(0)
small = torch.empty(1024, device=device)
try:
    torch.empty(1 << 40, dtype=torch.uint8, device=device)  # 1 TiB
except torch.OutOfMemoryError as error:
    print("OOM", str(error).splitlines()[0])
with open(os.environ["TORCH_FL_OOM_SNAPSHOT"], "rb") as f:
    snapshot = pickle.load(f)
oom = [e for e in snapshot["device_traces"][0] if e["action"] == "oom"]
print("SNAPSHOT", len(snapshot["segments"]), oom[-1]["size"], "device_free" in oom[-1])
"""


def test_an_out_of_memory_writes_a_snapshot_when_asked(device, tmp_path):
    path = tmp_path / "oom.pickle"
    run = subprocess.run([sys.executable, "-c", OOM], env=dict(os.environ, TORCH_FL_OOM_SNAPSHOT=str(path)),
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "OOM [" in run.stdout, run.stdout
    assert f"SNAPSHOT 1 {1 << 40} True" in run.stdout, run.stdout
    assert f"memory snapshot written to {path}" in run.stderr


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium here (make setup installs Debian's)")
def test_the_offline_memory_page_shows_in_a_browser(device, mod, tmp_path):
    from torch_fl import memory_page
    mod.memory._record_memory_history()
    layers = [torch.randn(128, 128, device=device) for _ in range(6)]
    del layers[::2]
    snapshot = mod.memory._snapshot()
    page = tmp_path / "memory.html"
    memory_page.write(snapshot, str(page))
    dom = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                          "--disable-background-networking", "--dump-dom", f"file://{page}"],
                         capture_output=True, text=True, timeout=90).stdout
    index = device.index or 0
    recorded = len(snapshot["device_traces"][index])
    assert f"Device {index}: memory held by tensors over {recorded} actions" in dom
    assert dom.count("<polyline") >= 1 and "active_allocated" in dom and "inactive" in dom
    picture = tmp_path / "memory.png"
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                    "--disable-background-networking", f"--screenshot={picture}", "--window-size=1000,700",
                    f"file://{page}"], capture_output=True, timeout=90)
    assert picture.stat().st_size > 10_000  # a drawn page (a blank one is about 3 KB)
