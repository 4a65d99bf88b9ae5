"""The producer/consumer scenario of test_tensor_ipc.py, as a script: spawned
children re-import __main__ from a file. Run as `ipc_script.py <device type>`;
prints one line per checked step and "ok" at the end."""
import gc
import os
import sys
from multiprocessing.reduction import ForkingPickler

import torch
import torch.multiprocessing as mp

import torch_fl

DEVICE = sys.argv[1] if len(sys.argv) > 1 else "mlu"
TIMEOUT = 60


def consumer(inbox, outbox):
    # Writes both ways, through a view with an offset and a stride.
    base, view = inbox.get(timeout=TIMEOUT)
    assert base.device == torch.device(DEVICE, 0) and torch.ops.torch_fl._ipc_is_received(base)
    assert (view.storage_offset(), view.stride()) == (3, (2,))
    assert view.untyped_storage().data_ptr() == base.untyped_storage().data_ptr(), "one storage, opened once"
    assert torch.equal(base.cpu(), torch.arange(base.numel(), dtype=torch.float32))
    view.fill_(-1.0)
    torch.accelerator.synchronize()
    outbox.put("written")
    assert inbox.get(timeout=TIMEOUT) == "look"
    outbox.put(base[:3].tolist())

    # A received tensor is not sent on.
    try:
        ForkingPickler.dumps(base)
        outbox.put("re-shared")
    except RuntimeError as error:
        outbox.put(str(error))
    del base, view

    # The producer frees its tensor and allocates more while this one holds it,
    # and a child forked from this one drops its inherited reference (which must
    # release nothing: this process still reads it).
    held = inbox.get(timeout=TIMEOUT)
    child = os.fork()
    if child == 0:
        del held
        gc.collect()
        os._exit(0)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0, status
    outbox.put("forked")
    assert inbox.get(timeout=TIMEOUT) == "check"
    outbox.put(held.cpu().tolist())
    del held
    outbox.put("released")
    assert inbox.get(timeout=TIMEOUT) == "exit"


def main():
    ctx = mp.get_context("spawn")
    inbox, outbox = ctx.Queue(), ctx.Queue()
    process = ctx.Process(target=consumer, args=(inbox, outbox))
    process.start()
    module = getattr(torch, DEVICE)

    base = torch.arange(1 << 20, dtype=torch.float32, device=f"{DEVICE}:0")  # 4 MiB: a segment of its own
    inbox.put((base, base[3::2]))
    assert outbox.get(timeout=TIMEOUT) == "written"
    expected = torch.arange(1 << 20, dtype=torch.float32)
    expected[3::2] = -1.0
    assert torch.equal(base.cpu(), expected), "the consumer's writes through its view"
    print("consumer's writes seen")
    base[0] = 42.0
    torch.accelerator.synchronize()
    inbox.put("look")
    assert outbox.get(timeout=TIMEOUT) == [42.0, 1.0, 2.0], "the producer's write"
    print("producer's writes seen")
    refusal = outbox.get(timeout=TIMEOUT)
    assert "received from another process cannot be sent on; clone it first" in refusal, refusal
    print("re-sharing refused")

    # A small tensor: its segment (2 MiB) is shared with whatever else lives there.
    allocated_before = module.memory_allocated()
    small = torch.full((256,), 7.0, device=f"{DEVICE}:0")
    inbox.put(small)
    del small  # freed here while the consumer holds it: the block waits in limbo
    assert outbox.get(timeout=TIMEOUT) == "forked"
    assert module.ipc_collect() == 0, "released by the consumer's forked child"
    others = [torch.zeros(256, device=f"{DEVICE}:0") for _ in range(64)]  # would reuse a freed block
    torch.accelerator.synchronize()
    inbox.put("check")
    assert outbox.get(timeout=TIMEOUT) == [7.0] * 256, "the block was reused while the consumer held it"
    print("a freed block is kept while the consumer holds it")
    assert outbox.get(timeout=TIMEOUT) == "released"
    del others
    collected = module.ipc_collect()
    assert collected >= 1, collected
    assert module.memory_allocated() == allocated_before, (module.memory_allocated(), allocated_before)
    print(f"collected {collected} released block(s)")
    inbox.put("exit")
    process.join(timeout=TIMEOUT)
    assert process.exitcode == 0, process.exitcode
    print("ok")


if __name__ == "__main__":
    main()
