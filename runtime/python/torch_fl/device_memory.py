"""torch.<device>.memory: memory snapshots as CUDA has them, in the format PyTorch's
memory visualiser reads (torch.cuda._memory_viz: trace_plot, segment_plot, segsum, and
the page at pytorch.org/memory_viz):

    torch.mlu.memory._record_memory_history()          # start recording the allocator
    ...                                                # the code to look at
    torch.mlu.memory._dump_snapshot("snapshot.pickle")
    torch.mlu.memory._record_memory_history(enabled=None)

A snapshot is {"segments": [...], "device_traces": [[...] per device], "allocator_settings":
{...}}: each segment the caching allocator holds from the driver with its blocks (their
states), and the allocator's recorded actions (alloc, free_requested, free_completed,
segment_alloc, segment_free, oom) with their times (runtime/src/allocator_history.h).
Two things CUDA's have and these lack: stack frames (the runtime is C++ below
Python's frames: every "frames" list is empty, and context/stacks are accepted and
ignored) and requested sizes (a block's requested_size is its rounded size).

With TORCH_FL_OOM_SNAPSHOT=<path>, the history is recorded from start-up and an
out-of-memory writes a snapshot to <path> before it is raised.
"""
from __future__ import annotations

import ctypes
import json
import logging
import os
import pickle
import sys
from typing import Any, Optional, Union

from . import _backend

OOM_SNAPSHOT_VARIABLE = "TORCH_FL_OOM_SNAPSHOT"
OOM_HISTORY_ENTRIES = 100_000  # recorded per device when TORCH_FL_OOM_SNAPSHOT is set

logger = logging.getLogger("torch_fl")
_OBSERVER_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_int)
_recording: Optional[str] = None  # "all" while recording, else None


def _lib():
    return _backend.load()


def _device_count() -> int:
    count = ctypes.c_int()
    _lib().call("tfl_device_count", ctypes.byref(count))
    return count.value


def _read_json(function, index: int) -> Any:
    text = function(index)
    if text is None:
        raise RuntimeError(_lib().lib.tfl_last_error().decode())
    return json.loads(text.decode())


def _segments(index: int) -> list[dict]:
    """One device's segments, in the visualiser's keys."""
    segments = []
    for raw in _read_json(_lib().lib.tfl_memory_snapshot_json, index):
        blocks = [{"address": b["address"], "size": b["size"], "requested_size": b["size"], "state": b["state"],
                   "frames": []} for b in raw["blocks"]]
        allocated = sum(b["size"] for b in blocks if b["state"] == "active_allocated")
        active = sum(b["size"] for b in blocks if b["state"] != "inactive")
        segments.append({"device": index, "address": raw["address"], "total_size": raw["total_size"],
                         "allocated_size": allocated, "active_size": active, "requested_size": allocated,
                         "stream": raw["stream"], "segment_type": raw["segment_type"], "segment_pool_id": (0, 0),
                         "is_expandable": False, "frames": [], "blocks": blocks})
    return segments


def _trace(index: int) -> list[dict]:
    events = []
    for raw in _read_json(_lib().lib.tfl_memory_history_json, index):
        event = {"action": raw["action"], "addr": raw["addr"], "size": raw["size"], "stream": raw["stream"],
                 "time_us": raw["time_us"], "frames": []}
        if raw["action"] == "oom":
            event["device_free"] = raw["device_free"]
        events.append(event)
    return events


def memory_snapshot(device: Union[None, int] = None) -> list[dict]:
    """The segments of every device (each names its "device"), as torch.cuda.memory_snapshot;
    or of one device index."""
    indices = range(_device_count()) if device is None else [device]
    return [segment for index in indices for segment in _segments(index)]


def _record_memory_history(enabled: Optional[str] = "all", context: Optional[str] = "all",
                           stacks: str = "all", max_entries: int = sys.maxsize, device: Any = None,
                           clear_history: bool = False, **ignored: Any) -> None:
    """As torch.cuda.memory._record_memory_history: "all" records the allocator's actions
    (up to max_entries per device; the oldest go first), None stops. "state" keeps only
    the state, which a snapshot always has here (no stack frames to keep), so it records
    nothing. Starting again clears what was recorded (as does clear_history)."""
    global _recording
    if enabled not in (None, "state", "all"):
        raise ValueError(f"_record_memory_history: enabled must be None, 'state' or 'all', got {enabled!r}")
    if enabled == "all":
        if max_entries <= 0:
            raise ValueError(f"_record_memory_history: max_entries must be positive, got {max_entries}")
        _lib().call("tfl_record_memory_history", min(max_entries, 2**63 - 1))
        _recording = "all"
    else:
        _lib().call("tfl_record_memory_history", 0)
        _recording = None


def _snapshot(device: Any = None) -> dict:
    """Every device's segments and recorded actions, in the visualiser's format."""
    count = _device_count()
    return {"segments": memory_snapshot(),
            "device_traces": [_trace(index) for index in range(count)],
            "allocator_settings": {"recording": _recording or "off", "vendor": _lib().vendor}}


def _dump_snapshot(filename: str = "dump_snapshot.pickle") -> None:
    """_snapshot() pickled to filename, for torch.cuda._memory_viz and pytorch.org/memory_viz.
    Written beside it first and moved into place: a dump that fails halfway (the disk fills
    up on an out-of-memory) leaves no truncated file, and an earlier snapshot stays whole."""
    partial = f"{filename}.{os.getpid()}.partial"
    try:
        with open(partial, "wb") as f:
            pickle.dump(_snapshot(), f)
        os.replace(partial, filename)
    finally:
        if os.path.exists(partial):
            os.remove(partial)


def _on_out_of_memory(device: int) -> None:
    path = os.environ.get(OOM_SNAPSHOT_VARIABLE, "")
    if not path:
        return
    try:
        _dump_snapshot(path)
        logger.warning("torch_fl: out of memory on %s:%d; memory snapshot written to %s", _lib().device, device, path)
    except Exception as error:  # noqa: BLE001 - the out-of-memory error itself must still be raised
        logger.warning("torch_fl: out of memory on %s:%d; the snapshot to %s failed: %s", _lib().device, device,
                       path, error)


_observer = _OBSERVER_TYPE(_on_out_of_memory)  # kept alive for as long as the runtime may call it


def apply_environment() -> None:
    """TORCH_FL_OOM_SNAPSHOT=<path> at start-up (torch_fl.init): records the history and
    writes a snapshot on an out-of-memory."""
    if os.environ.get(OOM_SNAPSHOT_VARIABLE, ""):
        if _recording is None:
            _record_memory_history("all", max_entries=OOM_HISTORY_ENTRIES)
        _lib().call("tfl_set_oom_observer", ctypes.cast(_observer, ctypes.c_void_p))


def trace_page(snapshot: Optional[dict] = None) -> str:
    """PyTorch's own visualiser page for a snapshot (torch.cuda._memory_viz.trace_plot):
    the snapshot embedded in an HTML file whose script is PyTorch's MemoryViz.js, loaded
    from the web when the page is opened."""
    from torch.cuda import _memory_viz
    return _memory_viz.trace_plot(snapshot if snapshot is not None else _snapshot())

