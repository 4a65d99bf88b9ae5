"""The device under torch.compile: Dynamo's device interface, and Inductor lowering
every op to the vendor's ATen kernels.

- `backend="eager"` and `backend="aot_eager"`: Dynamo traces, the graph runs the
  generated kernels. Dynamo learns the device (streams, events, synchronize, device
  properties) from the interface registered here.
- Inductor: its generated kernels (C++ from CppScheduling, Triton) read and write
  tensor memory directly from the host thread that runs them. A simulated chip's
  memory is not host-addressable (protection mode faults on it) and its work runs in
  order on its queue's worker; a real chip's memory is on the chip. So Inductor gets
  no kernel code generator for the device: it compiles device graphs in its lite mode
  (`torch.compile(model, mode="lite")`: `fallback_by_default`, every op an ATen call,
  which reaches the vendor's kernels through the dispatcher), with its Python wrapper
  and this device's stream and guard calls. Asked to generate a kernel for the device
  (the default mode fuses pointwise ops into generated kernels), it raises, saying so.

Registration costs nothing at import: importing torch._dynamo takes about 2 s, so the
registrations run when torch imports the module they extend (a post-import hook). From
torch 2.15, Inductor asks the device module itself at its first compile
(`torch.<device>._inductor_backend_init`, under Dynamo's compile lock, so a second
thread's first compile waits for it); there that hook registers the Inductor backend and
no post-import hook is needed for it.
"""
from __future__ import annotations

import torch

from . import device_module
from .post_import import after_import

DYNAMO_DEVICE_INTERFACE = "torch._dynamo.device_interface"
INDUCTOR_GRAPH = "torch._inductor.graph"  # imported when Inductor compiles, after its codegen registry

_device_name: str = ""


def install(device: str) -> None:
    """Registers `device` with Dynamo and Inductor now if they are imported, else when they are."""
    global _device_name
    _device_name = device
    after_import(DYNAMO_DEVICE_INTERFACE, _register_dynamo_interface)
    device_module._inductor_backend_init = _register_inductor_backend  # read by torch >= 2.15
    if not inductor_asks_the_device_module():
        after_import(INDUCTOR_GRAPH, _register_inductor_backend)


def inductor_asks_the_device_module() -> bool:
    """Whether Inductor calls torch.<device>._inductor_backend_init at its first compile (2.15)."""
    major, minor = (int(part) for part in torch.__version__.split(".")[:2])
    return (major, minor) >= (2, 15)


_DEVICE_FUNCTIONS = ("current_device", "set_device", "device_count", "is_available", "stream", "current_stream",
                     "set_stream", "synchronize", "get_device_properties", "memory_allocated")
_WORKER_FUNCTIONS = ("set_device", "current_device", "get_device_properties")


def _register_dynamo_interface() -> None:
    from torch._dynamo import device_interface as di

    class DeviceInterface(di.DeviceInterface):
        """torch.<device> as Dynamo asks for it (cf. its CudaInterface)."""

        device = device_module.device
        Event = device_module.Event
        Stream = device_module.Stream

        class Worker:
            pass  # its functions are set below

        @staticmethod
        def maybe_exchange_device(device: int) -> int:
            previous = device_module.current_device()
            if device >= 0 and device != previous:
                device_module.set_device(device)
            return previous

        exchange_device = maybe_exchange_device

        @staticmethod
        def _set_stream_by_id(stream_id: int, device_index: int, device_type: int) -> None:
            device_module.set_stream(torch.Stream(stream_id=stream_id, device_index=device_index,
                                                  device_type=device_type))

        @staticmethod
        def get_raw_stream(device_idx: int) -> int:
            return device_module.current_stream(device_idx).stream_id

        @staticmethod
        def get_compute_capability(device=None):
            major, minor = device_module.get_device_capability(device)
            return major * 10 + minor

        @staticmethod
        def is_bf16_supported(including_emulation: bool = False) -> bool:
            return torch.bfloat16 in device_module.get_amp_supported_dtype()

        @staticmethod
        def is_triton_capable(device=None) -> bool:
            return False  # no Triton backend for the chip: see the module's docstring

    # What Dynamo's interface (and its Worker, which compile workers use) takes from
    # torch.<device> unchanged.
    for name in _DEVICE_FUNCTIONS:
        setattr(DeviceInterface, name, staticmethod(getattr(device_module, name)))
    for name in _WORKER_FUNCTIONS:
        setattr(DeviceInterface.Worker, name, staticmethod(getattr(device_module, name)))
    di.register_interface_for_device(_device_name, DeviceInterface)
    for index in range(device_module.device_count()):
        di.register_interface_for_device(f"{_device_name}:{index}", DeviceInterface)


def _register_inductor_backend() -> None:
    from torch._inductor.codegen import common
    from torch._inductor.codegen.wrapper import PythonWrapperCodegen
    from torch._inductor.scheduler import BaseScheduling
    from torch._inductor.utils import sympy_product
    from torch._inductor.virtualized import V

    device = _device_name
    module = f"torch.{device}"

    class DeviceOpOverrides(common.DeviceOpOverrides):
        """What Inductor's Python wrapper writes to set the device, guard it and sync."""

        def import_get_raw_stream_as(self, name: str) -> str:
            return f"def {name}(index): return {module}.current_stream(index).stream_id"

        def set_device(self, device_idx: int) -> str:
            return f"{module}.set_device({device_idx})"

        def synchronize(self) -> str:
            return f"{module}.synchronize()"

        def device_guard(self, device_idx: int) -> str:
            return f"{module}.device({device_idx})"

        def current_stream(self) -> str:
            return f"{module}.current_stream()"

    class AtenOnlyScheduling(BaseScheduling):
        """Device graphs compile with every op an ATen call (Inductor's lite mode):
        there is nothing to fuse and no kernel to generate."""

        def can_fuse_vertical(self, node1, node2) -> bool:
            return False

        def can_fuse_horizontal(self, node1, node2) -> bool:
            return False

        def group_fn(self, sizes):
            return tuple(V.graph.sizevars.simplify(sympy_product(size)) for size in sizes)

        def codegen_node(self, node) -> None:
            raise RuntimeError(
                f"Torch-FL: Inductor asked to generate a kernel for the {device} device, which it cannot "
                f"target: its kernels would read the chip's memory from the host. Compile with "
                f"torch.compile(model, mode=\"lite\") (every op runs the vendor's kernel) or "
                f"backend=\"aot_eager\"; see Torch-FL's docs/torch-compile.md")

        codegen_template = codegen_node

        def codegen_sync(self) -> None:
            pass

        def flush(self) -> None:
            pass

    common.register_device_op_overrides(device, DeviceOpOverrides())
    common.register_backend_for_device(device, AtenOnlyScheduling, PythonWrapperCodegen)
