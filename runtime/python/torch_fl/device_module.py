"""The `torch.<device>` module (torch.mlu, torch.npu, ...): the familiar
torch.cuda-style API over the loaded backend. Registered by torch_fl.init()."""
from __future__ import annotations

import ctypes
import json
from dataclasses import dataclass
from typing import Any, Optional, Union

import torch

from . import _backend
from . import device_memory as memory  # torch.<device>.memory: snapshots, history

DeviceLike = Union[int, str, torch.device, None]

# The runtime's MemoryStats fields (runtime/src/allocator.h,
# kMemoryStatFields) under the names torch.cuda.memory_stats() uses.
_PYTORCH_STAT_NAMES = {
    "allocated_bytes": "allocated_bytes.all.current",
    "reserved_bytes": "reserved_bytes.all.current",
    "active_bytes": "active_bytes.all.current",
    "peak_allocated_bytes": "allocated_bytes.all.peak",
    "peak_reserved_bytes": "reserved_bytes.all.peak",
    "peak_active_bytes": "active_bytes.all.peak",
    "allocations": "num_alloc_calls",
    "driver_allocations": "num_device_alloc",
    "alloc_retries": "num_alloc_retries",
    "ooms": "num_ooms",
}


def _lib():
    return _backend.load()


def _index(device: DeviceLike) -> int:
    """Device index for an int, 'mlu:1', torch.device or None (current device)."""
    if device is None:
        return current_device()
    if isinstance(device, int):
        return device
    device = torch.device(device)
    if device.type != _lib().device:
        raise ValueError(f"expected a {_lib().device} device, got {device}")
    return current_device() if device.index is None else device.index


def is_available() -> bool:
    # Never raises, in a forked child too, as torch.cuda.is_available().
    return _driver_device_count() > 0


def is_initialized() -> bool:
    """Whether this process has started the device (and is not a child forked after that),
    as torch.cuda.is_initialized()."""
    return bool(_lib().lib.tfl_is_initialized()) and not _is_in_bad_fork()


def __getattr__(name: str):
    # torch.cuda._initialized is a flag that torch's own Python reads with
    # getattr(device_module, "_initialized", False): torch.utils.checkpoint stashes
    # the device's RNG state only when it is true (else the recomputed forward
    # draws new dropout masks). Here it is computed, so it cannot go stale.
    if name == "_initialized":
        return is_initialized()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _check_not_forked() -> None:
    if _is_in_bad_fork():
        raise RuntimeError(f"Cannot re-initialize {_lib().device} in forked subprocess: the parent had "
                           f"initialised it, and its worker threads and memory do not survive fork. To use "
                           f"{_lib().device} with multiprocessing, use the 'spawn' start method.")


def init() -> None:
    """Starts the driver (as torch.cuda.init does); raises why when it cannot start, e.g. a bad
    TORCH_FL_<VENDOR>_* setting, or in a child forked after the parent started it. The backend
    is otherwise started on first use."""
    device_count()


@dataclass(frozen=True)
class DeviceProperties:
    """What the vendor driver reports for one device (torch.cuda's _CudaDeviceProperties fields)."""
    name: str
    major: int
    minor: int
    total_memory: int
    multi_processor_count: int

    def __repr__(self) -> str:
        return (f"_{_lib().device.capitalize()}DeviceProperties(name='{self.name}', major={self.major}, "
                f"minor={self.minor}, total_memory={self.total_memory // (1 << 20)}MB, "
                f"multi_processor_count={self.multi_processor_count})")


def get_device_properties(device: DeviceLike = None) -> DeviceProperties:
    raw = _backend.DriverDeviceProperties()
    _lib().call("tfl_device_properties", _index(device), ctypes.byref(raw))
    return DeviceProperties(raw.name.decode(errors="replace"), raw.major, raw.minor, raw.total_memory,
                            raw.multi_processor_count)


def get_device_name(device: DeviceLike = None) -> str:
    return get_device_properties(device).name


def get_device_capability(device: DeviceLike = None) -> tuple[int, int]:
    """(major, minor) in the vendor's own numbering, as torch.cuda.get_device_capability."""
    properties = get_device_properties(device)
    return properties.major, properties.minor


def _is_in_bad_fork() -> bool:
    """True in a child forked after the device was initialised (torch.manual_seed asks)."""
    return bool(_lib().lib.tfl_in_bad_fork())


def _lazy_init() -> None:
    """torch.cuda's lazy initialisation: starts the device (init()) if it has not started yet."""
    if not is_initialized():
        init()


def _driver_device_count() -> int:
    count = ctypes.c_int()
    _lib().call("tfl_device_count", ctypes.byref(count))
    return count.value


def device_count() -> int:
    """The number of devices; raises in a child forked after the parent started the device."""
    _check_not_forked()
    return _driver_device_count()


def current_device() -> int:
    index = ctypes.c_int()
    _lib().call("tfl_current_device", ctypes.byref(index))
    return index.value


def set_device(device: DeviceLike) -> None:
    _lib().call("tfl_set_device", _index(device))


class device:
    """Context manager that switches the current device."""

    def __init__(self, target: DeviceLike):
        self.index = _index(target)
        self.previous = -1

    def __enter__(self):
        self.previous = current_device()
        set_device(self.index)

    def __exit__(self, *exc: Any) -> None:
        set_device(self.previous)


def synchronize(device: DeviceLike = None) -> None:
    """Waits for all work queued on the device; raises the first asynchronous error."""
    _lib().call("tfl_synchronize", _index(device))


class Stream(torch.Stream):
    """A device stream (an in-order queue of work)."""

    def __new__(cls, device: DeviceLike = None, priority: int = 0, **kwargs):
        return super().__new__(cls, device=torch.device(_lib().device, _index(device)), priority=priority, **kwargs)


class Event:
    """A device event. Constructs a plain torch.Event: torch's event methods
    (elapsed_time, wait) accept torch.Event itself, not subclasses."""

    def __new__(cls, enable_timing: bool = False, **kwargs) -> torch.Event:
        return torch.Event(device=torch.device(_lib().device, current_device()), enable_timing=enable_timing,
                           **kwargs)


def current_stream(device: DeviceLike = None) -> torch.Stream:
    return torch.accelerator.current_stream(torch.device(_lib().device, _index(device)))


# c10::DeviceType::PrivateUse1, as torch.Stream's device_type argument takes it.
_PRIVATEUSE1_DEVICE_TYPE = 20


def default_stream(device: DeviceLike = None) -> torch.Stream:
    # Stream id 0 is each device's default stream (runtime/include/torch_fl/stream.h).
    return torch.Stream(stream_id=0, device_index=_index(device), device_type=_PRIVATEUSE1_DEVICE_TYPE)


class stream:
    """Context manager: makes `s` the current stream of its device."""

    def __init__(self, s: Optional[torch.Stream]):
        self.stream = s
        self.context = None

    def __enter__(self):
        if self.stream is not None:
            self.context = self.stream.__enter__()
        return self.stream

    def __exit__(self, *exc: Any) -> None:
        if self.stream is not None:
            self.stream.__exit__(*exc)


def set_stream(s: torch.Stream) -> None:
    torch.accelerator.set_stream(s)


def _runtime_stats(device: DeviceLike) -> dict[str, int]:
    """The runtime's MemoryStats by field name; a field one side has and the
    other lacks is an error, not a silently wrong number."""
    text = ctypes.c_char_p()
    _lib().call("tfl_memory_stats_json", _index(device), ctypes.byref(text))
    stats = json.loads(text.value.decode())
    if stats.keys() != _PYTORCH_STAT_NAMES.keys():
        raise RuntimeError(f"torch_fl and its backend library disagree on the memory statistics: the library has "
                           f"{sorted(stats)}, the package expects {sorted(_PYTORCH_STAT_NAMES)}")
    return stats


def memory_stats(device: DeviceLike = None) -> dict[str, int]:
    return {_PYTORCH_STAT_NAMES[name]: value for name, value in _runtime_stats(device).items()}


def memory_allocated(device: DeviceLike = None) -> int:
    return _runtime_stats(device)["allocated_bytes"]


def memory_reserved(device: DeviceLike = None) -> int:
    return _runtime_stats(device)["reserved_bytes"]


def max_memory_allocated(device: DeviceLike = None) -> int:
    return _runtime_stats(device)["peak_allocated_bytes"]


def max_memory_reserved(device: DeviceLike = None) -> int:
    return _runtime_stats(device)["peak_reserved_bytes"]


def memory_summary(device: DeviceLike = None, abbreviated: bool = False) -> str:
    """memory_stats(device) as a readable table, in torch.cuda.memory_summary's role (FSDP
    logs it at its DETAIL debug level). `abbreviated` is accepted for torch.cuda's signature;
    the table is short either way."""
    stats = memory_stats(device)
    rows = [f"{name:<28}{value:>16,}" for name, value in sorted(stats.items())]
    title = f"{_lib().device}:{_index(device)} caching allocator"
    return "\n".join([title, "-" * 44, *rows])


def reset_peak_memory_stats(device: DeviceLike = None) -> None:
    _lib().call("tfl_reset_peak_memory_stats", _index(device))


def memory_snapshot(device: DeviceLike = None) -> list[dict]:
    """The caching allocator's segments (driver allocations) with their blocks (address,
    size, state: active_allocated, active_pending_free, inactive), in the keys of
    torch.cuda.memory_snapshot: every device's (each segment names its "device"), or one's."""
    return memory.memory_snapshot(None if device is None else _index(device))


def empty_cache() -> None:
    _lib().call("tfl_empty_cache")


def ipc_collect() -> int:
    """torch.cuda.ipc_collect: frees the memory of tensors sent to other processes
    that this process has freed and every receiver has released; returns how many."""
    _lazy_init()
    return torch.ops.torch_fl._ipc_collect()


def mem_get_info(device: DeviceLike = None) -> tuple[int, int]:
    free, total = ctypes.c_uint64(), ctypes.c_uint64()
    _lib().call("tfl_memory_info", _index(device), ctypes.byref(free), ctypes.byref(total))
    return free.value, total.value


def busy_time(device: DeviceLike = None) -> tuple[int, int]:
    """(busy, elapsed) nanoseconds: how long the device has had work queued or running on
    any stream, and how long since it came up. Two readings give the utilisation between them."""
    busy, elapsed = ctypes.c_uint64(), ctypes.c_uint64()
    _lib().call("tfl_device_busy_time", _index(device), ctypes.byref(busy), ctypes.byref(elapsed))
    return busy.value, elapsed.value


def driver_counters() -> dict[str, float]:
    """What the vendor's driver counts beyond the runtime's own (opencl: its program
    cache's hits, builds and build time); empty for a driver that counts nothing."""
    counters = {}
    for line in _lib().lib.tfl_driver_counters().decode().splitlines():
        name, _, value = line.partition("=")
        counters[name] = float(value)
    return counters


def utilization(device: DeviceLike = None) -> int:
    """Percent of the time since the device came up that it had work (as torch.cuda.utilization,
    whose window is NVML's sample period instead)."""
    busy, elapsed = busy_time(device)
    return round(100 * busy / elapsed) if elapsed else 0


def manual_seed(seed: int) -> None:
    _lib().call("tfl_manual_seed", current_device(), int(seed) & 0xFFFF_FFFF_FFFF_FFFF)


def manual_seed_all(seed: int) -> None:
    for index in range(device_count()):
        _lib().call("tfl_manual_seed", index, int(seed) & 0xFFFF_FFFF_FFFF_FFFF)


def seed() -> None:
    value = ctypes.c_uint64()
    _lib().call("tfl_seed", current_device(), ctypes.byref(value))


def seed_all() -> None:
    value = ctypes.c_uint64()
    for index in range(device_count()):
        _lib().call("tfl_seed", index, ctypes.byref(value))


def initial_seed() -> int:
    value = ctypes.c_uint64()
    _lib().call("tfl_initial_seed", current_device(), ctypes.byref(value))
    return value.value


def get_rng_state(device: DeviceLike = None) -> torch.Tensor:
    """16 bytes: the counter-based generator's seed and offset."""
    state = (ctypes.c_uint8 * 16)()
    _lib().call("tfl_get_rng_state", _index(device), state)
    return torch.tensor(list(state), dtype=torch.uint8)


def set_rng_state(new_state: torch.Tensor, device: DeviceLike = None) -> None:
    data = new_state.to(torch.uint8).contiguous().tolist()
    if len(data) != 16:
        raise ValueError(f"an RNG state is 16 bytes (seed, offset), got {len(data)}")
    _lib().call("tfl_set_rng_state", _index(device), (ctypes.c_uint8 * 16)(*data))


def get_rng_state_all() -> list[torch.Tensor]:
    return [get_rng_state(i) for i in range(device_count())]


def set_rng_state_all(states: list[torch.Tensor]) -> None:
    for index, state in enumerate(states):
        set_rng_state(state, index)


def get_amp_supported_dtype() -> list[torch.dtype]:
    return [torch.float16, torch.bfloat16]


def _record_native_runs(on: bool) -> None:
    """For tools that verify the backend (the conformance run): start or stop
    recording which kernels run natively; either clears the record."""
    _lib().call("tfl_record_native_runs", int(on))


def _native_runs() -> list[dict]:
    """{"op", "dtype", "count"} of each kernel that ran natively since recording
    started: the overload as registered, under the dtype its decision read first."""
    return json.loads(_lib().lib.tfl_native_runs_json().decode())
