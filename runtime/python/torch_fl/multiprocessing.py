"""Device tensors crossing process boundaries (torch.multiprocessing queues,
DataLoader workers started with "spawn").

PyTorch shares a CUDA tensor with another process through a CUDA IPC handle;
for any other device its reducer asks the storage for a host file descriptor
and fails ("_share_fd_: only available on CPU"), and a queue's reader then
waits forever because the failure happens in the writer's feeder thread.

A simulated chip's memory is private to its process, so there is no handle to
share. Torch-FL sends a device tensor by value instead: it is copied to host
memory, which torch.multiprocessing shares as usual, and the receiver copies it
onto the same device index of its own backend. Unlike CUDA IPC, the two sides
then hold separate tensors: a write on one side is not seen on the other. A
warning says so once per process.
"""
from __future__ import annotations

import warnings
from multiprocessing.context import get_spawning_popen
from multiprocessing.reduction import ForkingPickler

import torch
from torch.multiprocessing.reductions import reduce_tensor

_warned = False


def _rebuild_device_tensor(storage_bytes: torch.Tensor, device: str, dtype: torch.dtype, offset: int,
                           size: tuple, stride: tuple, metadata: dict, requires_grad: bool,
                           is_parameter: bool) -> torch.Tensor:
    # A spawned process has loaded the backend by now: unpickling imported this module,
    # and with it the torch_fl package, whose import starts the device.
    # The whole storage, then the tensor over it: its strides, offset and storage size
    # arrive as they were, as a CPU tensor's do through torch's own reducer.
    storage = storage_bytes.to(device).untyped_storage()
    tensor = torch.empty(0, dtype=dtype, device=device).set_(storage, offset, size, stride)
    if metadata:
        torch._utils.set_tensor_metadata(tensor, metadata)  # conj/neg bits, backend metadata
    if is_parameter:
        return torch.nn.Parameter(tensor, requires_grad=requires_grad)
    return tensor.requires_grad_(requires_grad)


def _reduce(device_type: str):
    def reduce(tensor: torch.Tensor):
        if tensor.device.type != device_type:
            return reduce_tensor(tensor)
        global _warned
        if tensor.requires_grad and not tensor.is_leaf:
            raise RuntimeError(
                f"cannot send a non-leaf {device_type} tensor that requires grad to another process: autograd does "
                "not cross process boundaries; call .detach() on it first")
        if not _warned:
            _warned = True
            warnings.warn(f"torch_fl: {device_type} tensors are sent to other processes by value (copied through "
                          f"shared host memory): unlike CUDA IPC, a write on one side is not seen on the other",
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
        return _rebuild_device_tensor, (host, str(tensor.device), tensor.dtype, tensor.storage_offset(),
                                        tuple(tensor.size()), tensor.stride(),
                                        torch._utils.get_tensor_metadata(tensor), tensor.requires_grad,
                                        isinstance(tensor, torch.nn.Parameter))
    return reduce


def register_reductions(device_type: str) -> None:
    """Installs the by-value reducer for the tensor classes torch.multiprocessing registers;
    tensors of other devices keep PyTorch's own reducer."""
    reduce = _reduce(device_type)
    for cls in (torch.Tensor, torch.nn.Parameter, *torch._tensor_classes):
        ForkingPickler.register(cls, reduce)
