"""One rank of test_distributed.py's runs, started by torchrun:

    python -m torch.distributed.run --standalone --nproc_per_node=2 \\
        tests/python/distributed_worker.py {ddp|fsdp|collectives|timeout} OUT_DIR

Each rank takes device LOCAL_RANK and joins the group with no backend named (the
device's backend is picked), then
  ddp, fsdp:    trains models.TinyGPT on its share of a global batch; the test
                compares losses and parameters with train() on the whole batch;
  collectives:  runs every collective for every dtype the spec declares on device
                tensors and, through a plain Gloo group, on CPU tensors;
  timeout:      rank 0 calls all_reduce, rank 1 never does;
and writes what it saw to OUT_DIR/rank<N>.pt.
"""
from __future__ import annotations

import datetime
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import models  # noqa: E402

STEPS = 3
GLOBAL_BATCH = 8
# The last step accumulates two micro-batches (DDP: under no_sync()).
ACCUMULATING_STEP = STEPS - 1


def global_batch(step: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(100 + step)
    data = torch.randint(0, 50, (GLOBAL_BATCH, 17), generator=g)
    return data[:, :-1], data[:, 1:]


def make_model(device: torch.device) -> torch.nn.Module:
    torch.manual_seed(0)
    return models.TinyGPT().to(device)


def train(model: torch.nn.Module, device: torch.device, rank: int = 0, world: int = 1,
          no_sync=None) -> list[float]:
    """Per step, the loss of this rank's share (the mean over ranks is the global batch's)."""
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
    losses = []
    share = GLOBAL_BATCH // world
    for step in range(STEPS):
        tokens, targets = (t[rank * share:(rank + 1) * share].to(device) for t in global_batch(step))
        optimizer.zero_grad()
        if step == ACCUMULATING_STEP:
            half = share // 2
            parts = [(tokens[:half], targets[:half]), (tokens[half:], targets[half:])]
            first = models.language_model_loss(model, *parts[0]) / 2
            if no_sync is not None:
                with no_sync():
                    first.backward()
            else:
                first.backward()
            second = models.language_model_loss(model, *parts[1]) / 2
            second.backward()
            loss = first.detach() + second.detach()
        else:
            loss = models.language_model_loss(model, tokens, targets)
            loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    return [loss.item() for loss in losses]


def _sample(dtype: torch.dtype, rank: int, numel: int = 8) -> torch.Tensor:
    """Rank-dependent values every dtype holds exactly (bool: a rank-dependent pattern)."""
    values = (torch.arange(numel) * (rank + 2) + rank) % 7
    return (values % 2 == 0) if dtype == torch.bool else values.to(dtype)


def _collectives(rank: int, world: int) -> dict[str, torch.Tensor]:
    """name → a function of (make tensor, group) running one collective and
    returning what it produced (on whichever device the tensors were made)."""
    import torch.distributed as dist
    ops = {"sum": dist.ReduceOp.SUM, "avg": dist.ReduceOp.AVG, "max": dist.ReduceOp.MAX,
           "min": dist.ReduceOp.MIN, "product": dist.ReduceOp.PRODUCT}

    def all_reduce(op):
        def run(make, group):
            t = make(0)
            dist.all_reduce(t, op=ops[op], group=group)
            return [t]
        return run

    def broadcast(make, group):
        t = make(0)
        dist.broadcast(t, src=1, group=group)
        return [t]

    def all_reduce_async(make, group):
        t = make(0)
        work = dist.all_reduce(t, group=group, async_op=True)
        work.wait()
        return [t.clone()]  # read on the caller's stream right after wait()

    def all_gather(make, group):
        outs = [make(9) for _ in range(world)]
        dist.all_gather(outs, make(0), group=group)
        return outs

    def all_gather_into_tensor(make, group):
        out = make(9).repeat(world)
        dist.all_gather_into_tensor(out, make(0), group=group)
        return [out]

    def reduce_scatter(make, group):
        out = make(9)
        dist.reduce_scatter(out, [make(i) for i in range(world)], group=group)
        return [out]

    def reduce_scatter_tensor(make, group):
        out = make(9)
        dist.reduce_scatter_tensor(out, torch.cat([make(i) for i in range(world)]), group=group)
        return [out]

    def all_to_all_single(make, group):
        out = make(9).repeat(world)
        dist.all_to_all_single(out, torch.cat([make(i) for i in range(world)]), group=group)
        return [out]

    def all_to_all(make, group):
        outs = [make(9) for _ in range(world)]
        dist.all_to_all(outs, [make(i) for i in range(world)], group=group)
        return outs

    def send_recv(make, group):
        t = make(0)
        if rank == 0:
            dist.send(t, dst=1, group=group)
        else:
            dist.recv(t, src=0, group=group)
        return [t]

    def reduce(make, group):
        t = make(0)
        dist.reduce(t, dst=0, group=group)
        return [t] if rank == 0 else []

    def gather(make, group):
        outs = [make(9) for _ in range(world)] if rank == 0 else None
        dist.gather(make(0), outs, dst=0, group=group)
        return outs or []

    def scatter(make, group):
        out = make(9)
        dist.scatter(out, [make(i) for i in range(world)] if rank == 1 else None, src=1, group=group)
        return [out]

    def in_place_all_to_all(make, group):
        tensors = [make(i) for i in range(world)]
        dist.all_to_all(tensors, tensors, group=group)  # outputs are the inputs
        return tensors

    def in_place_reduce_scatter(make, group):
        inputs = [make(i) for i in range(world)]
        dist.reduce_scatter(inputs[rank], inputs, group=group)  # the output is one of the inputs
        return [inputs[rank]]

    def back_to_back_async(make, group):
        t = make(0)
        if group is None:  # the device: the second reads what the first writes, both in flight
            first = dist.all_reduce(t, async_op=True)
            second = dist.all_reduce(t, async_op=True)
            first.wait()
            second.wait()
        else:  # Gloo on CPU does not order two works in flight on one tensor: the reference runs them in turn
            dist.all_reduce(t, group=group)
            dist.all_reduce(t, group=group)
        return [t.clone()]

    def future_then(make, group):
        t = make(0)
        future = dist.all_reduce(t, group=group, async_op=True).get_future()
        return [future.then(lambda f: f.value()[0].clone()).wait()]

    runs = {f"all_reduce[{op}]": all_reduce(op) for op in ops}
    runs.update(in_place_all_to_all=in_place_all_to_all, in_place_reduce_scatter=in_place_reduce_scatter,
                back_to_back_async=back_to_back_async, future_then=future_then)
    runs.update(broadcast=broadcast, all_reduce_async=all_reduce_async, all_gather=all_gather,
                all_gather_into_tensor=all_gather_into_tensor, reduce_scatter=reduce_scatter,
                reduce_scatter_tensor=reduce_scatter_tensor, all_to_all_single=all_to_all_single,
                all_to_all=all_to_all, send_recv=send_recv, reduce=reduce, gather=gather, scatter=scatter)
    return runs


def compare_collectives(device: torch.device, rank: int, world: int) -> dict:
    """Every collective × declared dtype on the device group and on a Gloo group of
    CPU tensors: the results (or the refusal) must be the same."""
    import torch.distributed as dist
    import torch_fl.distributed
    cpu_group = dist.new_group(backend="gloo")
    dtypes = torch_fl.distributed.collective_backend().dtypes
    checked, mismatches = [], []
    for name, run in _collectives(rank, world).items():
        for dtype in dtypes:
            def on(where):
                return lambda salt: _sample(dtype, rank + 10 * salt).to(where)
            try:
                expected, refused = run(on("cpu"), cpu_group), None
            except Exception as error:  # Gloo refuses some (op, dtype) pairs: the device must too
                expected, refused = None, error
            try:
                got = [t.cpu() for t in run(on(device), None)]
            except Exception as error:
                if refused is None:
                    mismatches.append(f"{name} {dtype}: device raised {error!r}, Gloo on CPU did not")
                checked.append((name, str(dtype), "refused"))
                continue
            if refused is not None:
                mismatches.append(f"{name} {dtype}: Gloo on CPU raised {refused!r}, the device did not")
            elif len(got) != len(expected) or not all(torch.equal(g, e) for g, e in zip(got, expected)):
                mismatches.append(f"{name} {dtype}: device {got} != CPU {expected}")
            checked.append((name, str(dtype), "equal"))
    dist.barrier()
    if torch_fl.distributed.collective_backend().transport != "gloo_staged":
        # Only the staged backend checks that the ranks agree (a vendor library such as
        # NCCL does not: a disagreement hangs or corrupts, there as with PyTorch's NCCL).
        return {"checked": checked, "mismatches": mismatches, "mismatched_shapes": None, "after_mismatch": None}
    # Ranks that disagree on the shape: an error on both (Gloo itself would abort the process).
    try:
        dist.all_reduce(torch.ones(4 + 2 * rank, device=device))
        mismatched = {"type": None, "error": None}
    except Exception as error:
        mismatched = {"type": type(error).__name__, "error": str(error)}
    after = torch.ones(4, device=device)
    dist.all_reduce(after)
    return {"checked": checked, "mismatches": mismatches, "mismatched_shapes": mismatched,
            "after_mismatch": after.cpu().tolist()}


def miss_a_collective(device: torch.device, rank: int) -> dict:
    """Rank 0 all-reduces; rank 1 never does, and stays alive until rank 0 has its error."""
    import time
    import torch.distributed as dist
    store = dist.distributed_c10d._get_default_store()
    if rank == 1:
        store.wait(["rank0 done"], datetime.timedelta(seconds=60))
        return {}
    started = time.monotonic()
    try:
        dist.all_reduce(torch.ones(4, device=device))
        torch.ones(1, device=device).item()
        outcome = {"error": None}
    except Exception as error:
        outcome = {"error": str(error), "type": type(error).__name__}
    outcome["seconds"] = time.monotonic() - started
    store.set("rank0 done", "1")
    return outcome


def main() -> None:
    import torch.distributed as dist
    import torch_fl

    wrap, out_dir = sys.argv[1], sys.argv[2]  # wrap: the run (ddp, fsdp, collectives, timeout)
    device_type = torch_fl.init()
    local_rank = int(os.environ["LOCAL_RANK"])
    getattr(torch, device_type).set_device(local_rank)
    device = torch.device(device_type, local_rank)
    timeout = datetime.timedelta(seconds=float(os.environ.get("COLLECTIVE_TIMEOUT", "120")))
    dist.init_process_group(timeout=timeout)  # no backend named: the device's
    rank, world = dist.get_rank(), dist.get_world_size()
    model = make_model(device)
    extra = {}
    if wrap == "ddp":
        from torch.nn.parallel import DistributedDataParallel
        # A small bucket cap: the gradients travel in several buckets.
        ddp = DistributedDataParallel(model, device_ids=[local_rank], bucket_cap_mb=0.02)
        losses = train(ddp, device, rank, world, no_sync=ddp.no_sync)
        extra["buckets"] = ddp._get_ddp_logging_data().get("num_buckets_reduced")
        params = {name: p.detach().cpu() for name, p in model.named_parameters()}
    elif wrap == "fsdp":
        from torch.distributed.fsdp import fully_shard
        for block in model.blocks:
            fully_shard(block)
        fully_shard(model)
        losses = train(model, device, rank, world)
        params = {name: p.full_tensor().detach().cpu() for name, p in model.named_parameters()}
        extra["sharded"] = type(next(model.parameters())).__name__
    elif wrap == "collectives":
        losses, params = [], {}
        extra.update(compare_collectives(device, rank, world))
    elif wrap == "timeout":
        losses, params = [], {}
        extra.update(miss_a_collective(device, rank))
    else:
        raise SystemExit(f"unknown run {wrap!r}")
    extra["fallbacks"] = torch_fl.fallback_stats()
    torch.save({"losses": losses, "params": params, **extra}, os.path.join(out_dir, f"rank{rank}.pt"))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
