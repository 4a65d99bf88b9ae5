"""DeepSpeed's accelerator for the device, installed when DeepSpeed is imported (a
post-import hook on deepspeed.accelerator.real_accelerator: nothing is imported
otherwise).

DeepSpeed picks its accelerator by importing the vendor modules it knows by name
(torch_npu, torch_mlu, ...) and otherwise logs "Setting accelerator to CPU". It also
takes any DeepSpeedAccelerator through set_accelerator(), which is what this does,
right after the module defining it has run: before any other DeepSpeed module asks
get_accelerator(). DS_ACCELERATOR still wins when it names another accelerator
("cpu", "cuda", ...); naming this device ("mlu") picks ours.

What it answers:
- device, streams, events, RNG and memory: the device module (torch.<device>);
- communication_backend_name(): the vendor's c10d backend (cncl, hccl, ocl_gloo);
- range_push/range_pop: torch.profiler ranges (record_function);
- op builders: none. DeepSpeed's fused kernels are CUDA (or CPU) extensions, so
  create_op_builder() answers None, which DeepSpeed reads as "not available", and
  FusedAdam, DeepSpeedCPUAdam and the like refuse where they are built. Torch's
  optimizers work under every ZeRO stage;
- graphs: none (create_graph raises, naming the device).
"""
from __future__ import annotations

import abc
import functools
import logging
import os
import sys
import threading
from typing import Any, Optional

import torch

from . import _backend, device_module
from .post_import import after_import

logger = logging.getLogger("torch_fl")

DEEPSPEED_MODULE = "deepspeed.accelerator.real_accelerator"
# What DeepSpeed's launcher reads and writes as the node's device list (CUDA_VISIBLE_DEVICES
# for CUDA): read only by the launcher (see set_visible_devices_envs).
VISIBLE_DEVICES_VARIABLE = "TORCH_FL_VISIBLE_DEVICES"


def install() -> None:
    """Sets the accelerator when DeepSpeed's accelerator module is imported (now, if it is)."""
    after_import(DEEPSPEED_MODULE, _choose_accelerator, failure=lambda: (
        f"DeepSpeed is imported, but its {_backend.load().device} accelerator could not be set; "
        "DeepSpeed chooses its own"))


def _choose_accelerator() -> None:
    real_accelerator = sys.modules[DEEPSPEED_MODULE]  # after_import runs this once it is imported
    name = _backend.load().device
    chosen = os.environ.get("DS_ACCELERATOR")
    if chosen not in (None, "", name):
        logger.info("torch_fl: DS_ACCELERATOR=%s: DeepSpeed keeps its own accelerator, not %s", chosen, name)
        return
    if getattr(real_accelerator, "ds_accelerator", None) is not None:
        logger.warning("torch_fl: DeepSpeed already chose its %s accelerator; %s is not set",
                       real_accelerator.ds_accelerator._name, name)
        return
    other = _in_tree_accelerator() if chosen != name else None
    if other is not None:
        # A machine with a real GPU and our wheel: DeepSpeed finds the GPU itself, as before
        # the wheel was installed. DS_ACCELERATOR=<device> asks for ours instead.
        logger.info("torch_fl: a %s device is present: DeepSpeed uses it, not %s (DS_ACCELERATOR=%s chooses %s)",
                    other, name, name, name)
        return
    real_accelerator.set_accelerator(accelerator_class()())


def _in_tree_accelerator() -> Optional[str]:
    """The accelerator built into torch that DeepSpeed would find by itself, if any. Under
    the CUDA compatibility layer torch.cuda answers for our device, so the real count is read."""
    from . import cuda_compatibility
    if cuda_compatibility._real_cuda_present():
        return "cuda"
    xpu = getattr(torch, "xpu", None)
    if xpu is not None and xpu.is_available():
        return "xpu"
    return None


def accelerator_class() -> type:
    """A DeepSpeedAccelerator for the loaded vendor's device (DeepSpeed must be importable)."""
    from deepspeed.accelerator.abstract_accelerator import DeepSpeedAccelerator
    name = _backend.load().device
    vendor = _backend.load().vendor

    def index_of(device_index: Optional[int]) -> int:
        return device_module.current_device() if device_index is None else int(device_index)

    class TorchFLAccelerator(DeepSpeedAccelerator):
        def __init__(self):
            super().__init__()
            self._name = name
            from . import distributed
            self._communication_backend_name = distributed.backend_name()
            self._compile_backend = "inductor"
            self._ranges = threading.local()

        # How the device runs: asynchronously on streams, like CUDA.
        def is_synchronized_device(self) -> bool:
            return False

        def use_host_timers(self) -> bool:
            return self.is_synchronized_device()

        def resolves_data_dependency(self) -> bool:
            return self.is_synchronized_device()

        def handles_memory_backpressure(self) -> bool:
            return self.is_synchronized_device()

        # Devices
        def device_name(self, device_index: Optional[int] = None) -> str:
            return name if device_index is None else f"{name}:{device_index}"

        def device(self, device_index: Optional[int] = None):
            return device_module.device(index_of(device_index))

        def set_device(self, device_index) -> None:
            device_module.set_device(device_index)

        def current_device(self) -> int:
            return device_module.current_device()

        def current_device_name(self) -> str:
            return f"{name}:{device_module.current_device()}"

        def device_count(self) -> int:
            return device_module.device_count()

        def synchronize(self, device_index: Optional[int] = None) -> None:
            device_module.synchronize(device_index)

        def is_available(self) -> bool:
            return device_module.is_available()

        # Random numbers
        def random(self):
            return torch.random

        def set_rng_state(self, new_state, device_index: Optional[int] = None) -> None:
            device_module.set_rng_state(new_state, index_of(device_index))

        def get_rng_state(self, device_index: Optional[int] = None):
            return device_module.get_rng_state(index_of(device_index))

        def manual_seed(self, seed) -> None:
            device_module.manual_seed(seed)

        def manual_seed_all(self, seed) -> None:
            device_module.manual_seed_all(seed)

        def initial_seed(self) -> int:
            return device_module.initial_seed()

        def default_generator(self, device_index):
            return _DefaultGenerator(index_of(device_index))

        # Streams and events
        @property
        def Stream(self):
            return device_module.Stream

        def stream(self, stream):
            return device_module.stream(stream)

        def current_stream(self, device_index: Optional[int] = None):
            return device_module.current_stream(device_index)

        def default_stream(self, device_index: Optional[int] = None):
            return device_module.default_stream(device_index)

        @property
        def Event(self):
            return device_module.Event

        # Memory
        def empty_cache(self) -> None:
            device_module.empty_cache()

        def total_memory(self, device_index: Optional[int] = None) -> int:
            return device_module.get_device_properties(index_of(device_index)).total_memory

        def available_memory(self, device_index: Optional[int] = None) -> int:
            return device_module.mem_get_info(index_of(device_index))[0]

        # Data types: what the spec gives autocast (float16, bfloat16) besides float32
        def is_bf16_supported(self) -> bool:
            return torch.bfloat16 in device_module.get_amp_supported_dtype()

        def is_fp16_supported(self) -> bool:
            return torch.float16 in device_module.get_amp_supported_dtype()

        def is_fp64_supported(self) -> bool:
            # DeepSpeed sums gradient norms in float64 when this says yes, and all_reduces
            # them: the chips without float64 units (mlu, npu) leave it out of their
            # collectives' dtypes too.
            from . import distributed
            return torch.float64 in distributed.collective_backend().dtypes

        def supported_dtypes(self) -> list[torch.dtype]:
            return [torch.float32, *device_module.get_amp_supported_dtype()]

        # Profiler ranges: nested per thread, as NVTX's
        def range_push(self, msg, domain=None, category=None) -> None:
            stack = self._ranges.__dict__.setdefault("stack", [])
            stack.append(torch.ops.profiler._record_function_enter_new(str(msg), None))

        def range_pop(self, domain=None) -> None:
            stack = self._ranges.__dict__.get("stack")
            if stack:
                torch.ops.profiler._record_function_exit._RecordFunction(stack.pop())

        def lazy_call(self, callback) -> None:
            callback()  # the device is initialized by torch_fl's import: nothing to defer to

        def communication_backend_name(self) -> str:
            return self._communication_backend_name

        def is_triton_supported(self) -> bool:
            return False

        # Graphs: the device has no graph capture
        def create_graph(self):
            raise NotImplementedError(f"[{vendor}] the {name} device has no graph capture: "
                                      "turn off DeepSpeed's cuda_graph option")

        def capture_to_graph(self, graph, pool=None, stream=None):
            return self.create_graph()

        def replay_graph(self, graph):
            return self.create_graph()

        def on_accelerator(self, tensor: torch.Tensor) -> bool:
            return tensor.device.type == name

        # Op builders: none (see the module's docstring). op_builder_dir names a package
        # DeepSpeed imports to list builders; each it asks for is None here.
        def op_builder_dir(self) -> str:
            return "deepspeed.ops.op_builder.cpu"

        def create_op_builder(self, class_name):
            logger.info("torch_fl: DeepSpeed's %s is not available on %s (no device extensions)", class_name, name)
            return None

        def get_op_builder(self, class_name):
            return None

        def build_extension(self):
            from torch.utils.cpp_extension import BuildExtension
            return BuildExtension

        # The launcher (deepspeed ...): the variables it passes to other nodes, and the one
        # that lists each node's devices. It is DeepSpeed's, not the runtime's: the runtime
        # does not renumber devices, so ranks take devices 0..k-1 by LOCAL_RANK, and a
        # choice of others (--include localhost:1) is refused here rather than ignored.
        def export_envs(self) -> list[str]:
            return ["TORCH_FL"]

        def visible_devices_envs(self) -> list[str]:
            return [VISIBLE_DEVICES_VARIABLE]

        def set_visible_devices_envs(self, current_env, local_accelerator_ids) -> None:
            ids = [int(i) for i in local_accelerator_ids]
            if ids != list(range(len(ids))):
                raise ValueError(f"[{vendor}] DeepSpeed's launcher chose {name} devices {ids}, but the {name} runtime "
                                 f"does not renumber devices: each rank uses {name}:LOCAL_RANK, so only the first k "
                                 f"devices can be chosen (--num_gpus k, or {VISIBLE_DEVICES_VARIABLE}=0,...,k-1)")
            current_env[VISIBLE_DEVICES_VARIABLE] = ",".join(map(str, ids))

        def get_compile_backend(self) -> str:
            return self._compile_backend

        def set_compile_backend(self, backend: str) -> None:
            if backend not in torch._dynamo.list_backends(exclude_tags=()):
                raise ValueError(f"torch_fl: {backend} is not a torch.compile backend "
                                 f"(have: {torch._dynamo.list_backends(exclude_tags=())})")
            self._compile_backend = backend

    # Typed tensor constructors on the device, as torch.cuda.FloatTensor (abstract
    # properties of DeepSpeedAccelerator: filled in here, then the ABC is told).
    for attribute, dtype in TYPED_TENSORS.items():
        setattr(TorchFLAccelerator, attribute, property(lambda self, dtype=dtype: _typed_tensor(dtype)))
    # Memory statistics: the device module's, under DeepSpeed's names ("cached" is reserved).
    for method, statistic in MEMORY_STATISTICS.items():
        setattr(TorchFLAccelerator, method,
                lambda self, device_index=None, statistic=statistic: getattr(device_module, statistic)(device_index))
    abc.update_abstractmethods(TorchFLAccelerator)
    TorchFLAccelerator.__qualname__ = TorchFLAccelerator.__name__ = f"{name.upper()}_Accelerator"
    return TorchFLAccelerator


MEMORY_STATISTICS = {
    "memory_allocated": "memory_allocated", "max_memory_allocated": "max_memory_allocated",
    "reset_max_memory_allocated": "reset_peak_memory_stats", "memory_cached": "memory_reserved",
    "max_memory_cached": "max_memory_reserved", "reset_max_memory_cached": "reset_peak_memory_stats",
    "memory_stats": "memory_stats", "reset_peak_memory_stats": "reset_peak_memory_stats",
    "memory_reserved": "memory_reserved", "max_memory_reserved": "max_memory_reserved"}
TYPED_TENSORS = {"BFloat16Tensor": torch.bfloat16, "ByteTensor": torch.uint8, "DoubleTensor": torch.float64,
                 "FloatTensor": torch.float32, "HalfTensor": torch.float16, "IntTensor": torch.int32,
                 "LongTensor": torch.int64}


class _DefaultGenerator:
    """One device's default generator as DeepSpeed uses it (get_state/set_state, what
    activation checkpointing restores): its state is the device module's."""

    def __init__(self, index: int):
        self.index = index

    def get_state(self) -> torch.Tensor:
        return device_module.get_rng_state(self.index)

    def set_state(self, state: torch.Tensor) -> "_DefaultGenerator":
        device_module.set_rng_state(state, self.index)
        return self

    def initial_seed(self) -> int:
        with device_module.device(self.index):
            return device_module.initial_seed()


def _typed_tensor(dtype: torch.dtype):
    """A constructor as DeepSpeed's CUDA accelerator gives (torch.tensor with the dtype, on
    the current device): FloatTensor(3) is the number 3.0, FloatTensor([1, 2]) the list."""
    return functools.partial(torch.tensor, dtype=dtype, device=_backend.load().device)
