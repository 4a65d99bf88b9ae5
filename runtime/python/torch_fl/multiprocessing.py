"""Device tensors crossing process boundaries (torch.multiprocessing queues,
DataLoader workers started with "spawn").

PyTorch shares a CUDA tensor with another process through a CUDA IPC handle;
for any other device its reducer asks the storage for a host file descriptor
and fails ("_share_fd_: only available on CPU"), and a queue's reader then
waits forever because the failure happens in the writer's feeder thread.
Torch-FL installs its own reducer for the device's tensors.

**Shared memory** (a driver with TFL_CAP_IPC_MEMORY: mlu, npu, nvidia). As with
CUDA, the receiver maps the sender's device memory: a write on either side is
seen on the other once the writer's device work is done (synchronize first),
views keep their offsets and strides, and the sender keeps the block allocated
until every receiver has freed its tensor (a sent tensor the sender frees waits
in "limbo": ``torch.<device>.ipc_collect()``). A received tensor cannot be sent
on (clone it first), and a tensor sent back to its sender is its own storage
again. The device is synchronized when a tensor is sent, so no event travels
with it; device events themselves cannot be pickled.

**By value** (no capability, e.g. opencl, or ``TORCH_FL_IPC=0``): the tensor is
copied to host memory, which torch.multiprocessing shares as usual, and the
receiver copies it onto the same device index of its own backend. The two sides
then hold separate tensors; a warning says so once per process, and why.
"""
from __future__ import annotations

import os
import warnings
from multiprocessing.context import get_spawning_popen
from multiprocessing.reduction import ForkingPickler

import torch
from torch.multiprocessing.reductions import reduce_tensor

from .formats import make_public

_warned = False


def _restore(storage: torch.UntypedStorage, device: str, dtype: torch.dtype, offset: int, size: tuple,
             stride: tuple, metadata: dict, requires_grad: bool, is_parameter: bool) -> torch.Tensor:
    # The tensor over the whole storage: strides, offset and storage size arrive as
    # they were, as a CPU tensor's do through torch's own reducer.
    tensor = torch.empty(0, dtype=dtype, device=device).set_(storage, offset, size, stride)
    if metadata:
        torch._utils.set_tensor_metadata(tensor, metadata)  # conj/neg bits, backend metadata
    if is_parameter:
        return torch.nn.Parameter(tensor, requires_grad=requires_grad)
    return tensor.requires_grad_(requires_grad)


def _rebuild_device_tensor(storage_bytes: torch.Tensor, device: str, *view) -> torch.Tensor:
    # A spawned process has loaded the backend by now: unpickling imported this module,
    # and with it the torch_fl package, whose import starts the device.
    return _restore(storage_bytes.to(device).untyped_storage(), device, *view)


def _rebuild_shared_tensor(record: bytes, device: str, *view) -> torch.Tensor:
    index = torch.device(device).index or 0
    storage_bytes = torch.ops.torch_fl._ipc_open(torch.frombuffer(bytearray(record), dtype=torch.uint8), index)
    return _restore(storage_bytes.untyped_storage(), device, *view)


def ipc_collect() -> int:
    """Frees the device memory of sent tensors that this process has freed and
    every receiver has released (torch.cuda.ipc_collect); returns how many storages."""
    return torch.ops.torch_fl._ipc_collect()


def _by_value_reason(tensor: torch.Tensor) -> str | None:
    """Why `tensor` goes by value, or None when its memory can be shared."""
    if os.environ.get("TORCH_FL_IPC", "1") == "0":
        return "TORCH_FL_IPC=0"
    if not torch.ops.torch_fl._ipc_supported(tensor.device.index or 0):
        return f"the {tensor.device.type} driver cannot share device memory between processes"
    if tensor.untyped_storage().nbytes() == 0:
        return ""  # nothing to share; no warning either
    return None


def _reduce(device_type: str):
    def reduce(tensor: torch.Tensor):
        if tensor.device.type != device_type:
            return reduce_tensor(tensor)
        if tensor.requires_grad and not tensor.is_leaf:
            raise RuntimeError(
                f"cannot send a non-leaf {device_type} tensor that requires grad to another process: autograd does "
                "not cross process boundaries; call .detach() on it first")
        reason = _by_value_reason(tensor)
        if reason is None:
            # A storage in a vendor's private format (the NPU's NC1HWC0 after a conv)
            # is shared in the public layout; its metadata then names no format.
            make_public(tensor)
        view = (tensor.dtype, tensor.storage_offset(), tuple(tensor.size()), tensor.stride(),
                torch._utils.get_tensor_metadata(tensor), tensor.requires_grad,
                isinstance(tensor, torch.nn.Parameter))
        if reason is None:
            record = torch.ops.torch_fl._ipc_share(tensor)  # synchronizes the device: the bytes are final
            return _rebuild_shared_tensor, (record.numpy().tobytes(), str(tensor.device), *view)
        global _warned
        if reason and not _warned:
            _warned = True
            warnings.warn(f"torch_fl: {device_type} tensors are sent to other processes by value (copied through "
                          f"shared host memory) because {reason}: a write on one side is not seen on the other",
                          stacklevel=3)
        storage_bytes = torch.empty(0, dtype=torch.uint8, device=tensor.device).set_(tensor.untyped_storage())
        host = storage_bytes.to("cpu")  # waits for the device: the bytes are final when pickled
        # A spawned Process's arguments are pickled before the child starts, and
        # the child inherits the shared memory's file descriptor by number, so the
        # copy must stay open until then: it lives as long as the Process's Popen,
        # as a CPU tensor argument lives as long as the Process. (Queues duplicate
        # the descriptor when pickling and need nothing kept.)
        popen = get_spawning_popen()
        if popen is not None:
            popen.__dict__.setdefault("_torch_fl_host_copies", []).append(host)
        return _rebuild_device_tensor, (host, str(tensor.device), *view)
    return reduce


def _reduce_event(device_type: str):
    def reduce(event: torch.Event):
        if event.device.type == device_type:
            raise RuntimeError(f"{device_type} events cannot be shared between processes; a {device_type} tensor "
                               "is synchronized when it is sent, so no event is needed to wait for it")
        return event.__reduce_ex__(2)  # torch's own behaviour for other devices' events
    return reduce


def register_reductions(device_type: str) -> None:
    """Installs the reducer for the tensor classes torch.multiprocessing registers, and
    refuses to pickle the device's events; other devices keep PyTorch's own reducers."""
    reduce = _reduce(device_type)
    for cls in (torch.Tensor, torch.nn.Parameter, *torch._tensor_classes):
        ForkingPickler.register(cls, reduce)
    ForkingPickler.register(torch.Event, _reduce_event(device_type))
