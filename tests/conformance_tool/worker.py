"""Conformance worker: runs the OpInfo samples of some OpInfos on the device
and on CPU, and prints one JSON line per sample phase.

Run by run.py in subprocesses, a few OpInfos each (importing torch and op_db
costs seconds, more than most OpInfos' samples); a crash or a hang costs the
OpInfo it hit, and run.py runs the rest of that batch again in a new process.
Each line records which aten overloads the device run invoked (with the dtype
of their first tensor argument, as the generated kernels decide on it), which
ones fell back to CPU, and whether the results matched CPU.
"""
from __future__ import annotations

import argparse
import json
import sys
import traceback

import torch
from torch.testing._internal.common_methods_invocations import op_db
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten, tree_map

import torch_fl
from fallback_records import dtype_name, fallbacks
from selection import chosen_samples
import reference_accuracy

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16, "float64": torch.float64,
          "int32": torch.int32, "int64": torch.int64, "bool": torch.bool, "int8": torch.int8, "uint8": torch.uint8,
          "int16": torch.int16, "complex64": torch.complex64}


# overload -> the argument whose dtype names the matrix cell (the matrix's `dtype_from`):
# where.self is filed under `self`'s dtype, not its first tensor's (the boolean condition).
DTYPE_ARGUMENTS: dict[str, str] = {}


def _argument(func, args, kwargs, name: str):
    for position, argument in enumerate(func._schema.arguments):
        if argument.name == name:
            return args[position] if position < len(args) else kwargs.get(name)
    return None


class OverloadRecorder(TorchDispatchMode):
    """Records every aten overload called on device tensors, with the dtype its
    kernel decides on (the matrix's `dtype_from`, else the first tensor's), and
    what the backend says ran natively meanwhile (`native`): that includes the
    overloads reached inside another op, which no mode above the backend sees
    (convolution_overrideable inside convolution), and is what the verdicts use."""

    def __init__(self):
        super().__init__()
        self.invoked: set[tuple[str, str]] = set()
        self.native: set[tuple[str, str]] = set()

    def __enter__(self):
        torch_fl.device_module._record_native_runs(True)
        return super().__enter__()

    def __exit__(self, *exc_info):
        try:
            return super().__exit__(*exc_info)
        finally:
            self.native |= {(run["op"], dtype_name(run["dtype"])) for run in torch_fl.device_module._native_runs()}
            torch_fl.device_module._record_native_runs(False)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        tensors = [a for a in tree_flatten((args, kwargs))[0] if isinstance(a, torch.Tensor)]
        if tensors and any(t.device.type == torch_fl.device().type for t in tensors):
            qualified = _qualified(func)
            deciding = _argument(func, args, kwargs, DTYPE_ARGUMENTS.get(qualified, ""))
            deciding = deciding if isinstance(deciding, torch.Tensor) else tensors[0]
            self.invoked.add((qualified, str(deciding.dtype).replace("torch.", "")))
        return func(*args, **kwargs)


def _qualified(func) -> str:
    return f"{func._opname}.{func._overloadname}" if func._overloadname != "default" else func._opname


class CallCapture(TorchDispatchMode):
    """The first device call of each wanted overload during a run, with copies of its
    arguments: a replay phase calls the overload's out= form again with them."""

    def __init__(self, wanted: set[str]):
        super().__init__()
        self.wanted = wanted
        self.calls: dict[str, tuple] = {}

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = _qualified(func)
        if name in self.wanted and name not in self.calls:
            self.calls[name] = tree_map(lambda v: v.detach().clone() if isinstance(v, torch.Tensor) else v,
                                        (args, kwargs))
        return func(*args, **kwargs)


def capture_calls(op, sample, device, wanted: set[str], autograd: bool) -> dict[str, tuple]:
    """Runs the sample forward (and backward) on the device, keeping the calls of `wanted`.
    A failure here is the forward and backward phases' to report: what was captured stays."""
    capture = CallCapture(wanted)
    try:
        with capture:
            dev_args = with_device_kwarg(tree_map(lambda v: to_device(v, device),
                                                  (sample.input, sample.args, sample.kwargs)), device)
            out = op(dev_args[0], *dev_args[1], **dev_args[2])
            outs = [t for t in tree_flatten(out)[0] if isinstance(t, torch.Tensor) and t.requires_grad]
            inputs = [t for t in tree_flatten(dev_args)[0] if isinstance(t, torch.Tensor) and t.requires_grad]
            if autograd and outs and inputs:
                torch.autograd.grad(outs, inputs, [torch.ones_like(t) for t in outs], allow_unused=True)
    except Exception:  # noqa: BLE001 - reported by the phases that compare
        pass
    return capture.calls


def with_device_kwarg(args, device):
    """Factory functions (arange, ...) create on the device under test."""
    inp, rest, kwargs = args
    if "device" in kwargs:
        kwargs = dict(kwargs, device=device)
    return inp, rest, kwargs


def to_device(value, device):
    if isinstance(value, torch.Tensor):
        moved = value.detach().to(device)
        return moved.requires_grad_(value.requires_grad) if moved.is_floating_point() else moved
    return value




def _layout(t: torch.Tensor) -> tuple:
    """The strides that matter: those of dimensions longer than 1 (a size-1 or empty
    dimension's stride is never used to address an element)."""
    if t.numel() == 0:
        return ()
    return tuple((dim, stride) for dim, (size, stride) in enumerate(zip(t.shape, t.stride())) if size > 1)


class StructureMismatch(AssertionError):
    """Another number of outputs, placement, dtype or shape than CPU's: never judged again."""


def check_structure(device_value, cpu_value) -> None:
    flat_dev, _ = tree_flatten(device_value)
    flat_cpu, _ = tree_flatten(cpu_value)
    if len(flat_dev) != len(flat_cpu):
        raise StructureMismatch("different number of outputs")
    for d, c in zip(flat_dev, flat_cpu):
        if not isinstance(c, torch.Tensor):
            continue
        if not (isinstance(d, torch.Tensor) and d.device.type == torch_fl.device().type):
            raise StructureMismatch(f"output on {getattr(d, 'device', type(d))}, expected the device")
        if d.dtype != c.dtype:
            raise StructureMismatch(f"dtype {d.dtype} != {c.dtype}")
        if d.shape != c.shape:
            raise StructureMismatch(f"shape {tuple(d.shape)} != {tuple(c.shape)}")


def compare(device_value, cpu_value, dtype) -> str:
    """Asserts values, dtypes, shapes and placement; returns how the strides differ
    from CPU's ("" when they do not), which costs STRICT but is not a wrong result."""
    check_structure(device_value, cpu_value)
    for d, c in zip(tree_flatten(device_value)[0], tree_flatten(cpu_value)[0]):
        if isinstance(c, torch.Tensor):
            torch.testing.assert_close(d.detach().cpu(), c.detach(), equal_nan=True, check_stride=False)
        else:
            assert d == c or (d != d and c != c), f"{d} != {c}"
    return stride_differences(device_value, cpu_value)


def compare_or_judge(device_value, cpu_value, dtype, float64_value) -> tuple[str, str]:
    """compare(); on a value mismatch, the second judge against float64
    (reference_accuracy; `float64_value()`: the sample's results in float64, or None
    where it has no floating input). Returns the stride differences and who judged."""
    try:
        return compare(device_value, cpu_value, dtype), ""
    except StructureMismatch:
        raise
    except AssertionError:
        reference = float64_value()
        if reference is None:
            raise
        reference_accuracy.assert_within_reference(device_value, cpu_value, reference, dtype)
        return stride_differences(device_value, cpu_value), "float64 reference"


def stride_differences(device_value, cpu_value) -> str:
    """How the outputs' strides differ from CPU's ("" when they do not)."""
    strides = []
    for index, (d, c) in enumerate(zip(tree_flatten(device_value)[0], tree_flatten(cpu_value)[0])):
        if isinstance(c, torch.Tensor) and _layout(d) != _layout(c):
            strides.append(f"output {index}: strides {tuple(d.stride())} on the device, {tuple(c.stride())} "
                           f"on CPU (shape {tuple(c.shape)})")
    return "; ".join(strides)


def _clone_tree(value):
    return tree_map(lambda v: v.clone() if isinstance(v, torch.Tensor) else v, value)


def _first_input_clone(args):
    inp, rest, kwargs = args
    return (inp.clone() if isinstance(inp, torch.Tensor) else inp, rest, kwargs)


def run_phase(op, sample, sample_id: int, phase: str, dtype, device, emit, overload=None, captured=None) -> None:
    """One comparison of the device against CPU.

    forward:  op(sample) values, dtype, shape, device
    backward: gradients of the inputs (only the gradient computation is recorded)
    out:      op(sample, out=...) writes into and returns the given out tensor(s)
    inplace:  op's in-place variant writes into self
    overload: a native aten overload of the same op called directly with the sample
    replay:   an out= overload called with the arguments its functional form had inside
              the op (`captured`: copies of them, on the device)
    """
    recorder = OverloadRecorder()
    torch_fl.reset_fallback_stats()
    record = {"opinfo": op.name, "variant": op.variant_test_name, "dtype": str(dtype).replace("torch.", ""),
              "sample": sample_id, "phase": phase if overload is None else f"overload {overload}",
              "ok": True, "error": "", "invoked": [], "native": [], "fallbacks": [], "strides": "", "skipped": ""}
    cpu_args = (sample.input, sample.args, sample.kwargs)

    def skip(reason: str) -> None:
        """A sample that does not fit this form on CPU either is not a test, but is
        reported (run.py counts them), never dropped silently."""
        record["skipped"] = reason[:300]
        emit(record)
    if phase == "replay":
        record["phase"] = f"replay {overload}"
    try:
        if phase == "replay":
            packet = _packet(overload)
            cpu_call = tree_map(lambda v: v.cpu() if isinstance(v, torch.Tensor) else v, captured)
            expected = _packet(overload.split(".")[0] + ".default")(*cpu_call[0], **cpu_call[1])
            expected = expected if isinstance(expected, tuple) else (expected,)
            cpu_outs = {n: torch.empty(0, dtype=e.dtype) for n, e in zip(_out_arguments(packet), expected)}
            packet(*cpu_call[0], **cpu_call[1], **cpu_outs)
            dev_call = tree_map(lambda v: v.to(device) if isinstance(v, torch.Tensor) else v, cpu_call)
            dev_outs = {n: torch.empty(0, dtype=t.dtype, device=device) for n, t in cpu_outs.items()}
            with recorder:
                returned = packet(*dev_call[0], **dev_call[1], **dev_outs)
            returned = returned if isinstance(returned, tuple) else (returned,)
            assert all(r is dev_outs[n] for r, n in zip(returned, dev_outs)), "an out= op must return its outs"
            record["strides"] = compare(list(dev_outs.values()), list(cpu_outs.values()), dtype)
        elif phase == "overload" and _out_arguments(_packet(overload)):
            packet = _packet(overload)
            # Detached: out= forms refuse inputs that require grad, and gradients are the backward phase's.
            fitted = tree_map(lambda v: v.detach() if isinstance(v, torch.Tensor) else v,
                              _fit_to_schema(packet, cpu_args))
            cpu_outs = {name: torch.empty(0, dtype=dtype) for name in _out_arguments(packet)}
            try:
                packet(fitted[0], *fitted[1], **fitted[2], **cpu_outs)
            except (RuntimeError, TypeError, ValueError) as error:
                return skip(f"does not fit {overload} on CPU: {type(error).__name__}: {str(error)[:200]}")
            dev_args = tree_map(lambda v: to_device(v, device), tree_map(
                lambda v: v.detach() if isinstance(v, torch.Tensor) else v, fitted))
            dev_outs = {name: torch.empty(0, dtype=t.dtype, device=device) for name, t in cpu_outs.items()}
            with recorder:
                returned = packet(dev_args[0], *dev_args[1], **dev_args[2], **dev_outs)
            returned = returned if isinstance(returned, tuple) else (returned,)
            assert all(r is dev_outs[n] for r, n in zip(returned, dev_outs)), "an out= op must return its outs"
            record["strides"] = compare(list(dev_outs.values()), list(cpu_outs.values()), dtype)
        elif phase in ("inplace", "overload"):
            function = op.inplace_variant if phase == "inplace" else _packet(overload)
            if phase == "overload":
                cpu_args = _fit_to_schema(function, cpu_args)
            expected_args = _clone_tree(cpu_args) if phase == "inplace" or overload.split(".")[0].endswith("_") \
                else cpu_args
            try:
                expected = function(expected_args[0], *expected_args[1], **expected_args[2])
            except (RuntimeError, TypeError, ValueError) as error:  # e.g. a broadcast into self
                return skip(f"does not fit the {phase} form on CPU: {type(error).__name__}: {str(error)[:200]}")
            dev_args = tree_map(lambda v: to_device(v, device), expected_args if phase == "inplace" else cpu_args)
            dev_args = _clone_tree(tree_map(lambda v: v.detach() if isinstance(v, torch.Tensor) else v, dev_args))
            if phase == "inplace" or overload.split(".")[0].endswith("_"):
                dev_args = tree_map(lambda v: to_device(v, device), _clone_tree(
                    tree_map(lambda v: v.detach() if isinstance(v, torch.Tensor) else v, cpu_args)))
                with recorder:
                    returned = function(dev_args[0], *dev_args[1], **dev_args[2])
                assert returned is dev_args[0], "an in-place op must return self"
                record["strides"] = compare(dev_args[0], expected, dtype)
            else:
                with recorder:
                    result = function(dev_args[0], *dev_args[1], **dev_args[2])
                record["strides"] = compare(result, expected, dtype)
        elif phase == "out":
            expected = op(cpu_args[0], *cpu_args[1], **cpu_args[2])
            several = isinstance(expected, (tuple, list)) and all(isinstance(e, torch.Tensor) for e in expected)
            if not (isinstance(expected, torch.Tensor) or several):
                return skip(f"returns {type(expected).__name__}, not tensors: no out= form to test")
            dev_args = with_device_kwarg(tree_map(lambda v: to_device(v, device), tree_map(
                lambda v: v.detach() if isinstance(v, torch.Tensor) else v, cpu_args)), device)
            if several:  # out= takes one tensor per return, as a tuple (max.dim, sort, ...)
                out = tuple(torch.empty(0, dtype=e.dtype, device=device) for e in expected)
            else:
                out = torch.empty(0, dtype=expected.dtype, device=device)
            with recorder:
                returned = op(dev_args[0], *dev_args[1], **dev_args[2], out=out)
            if several:
                assert len(returned) == len(out) and all(r is o for r, o in zip(returned, out)), \
                    "an out= op must return its out tensors"
                record["strides"] = compare(list(out), list(expected), dtype)
            else:
                assert returned is out, "an out= op must return its out tensor"
                record["strides"] = compare(out, expected, dtype)
        elif phase == "forward":
            dev_args = with_device_kwarg(tree_map(lambda v: to_device(v, device), cpu_args), device)
            with recorder:
                device_out = op(dev_args[0], *dev_args[1], **dev_args[2])
            cpu_out = op(cpu_args[0], *cpu_args[1], **cpu_args[2])
            def float64_out():
                wide = reference_accuracy.in_float64(cpu_args)
                return None if wide is None else op(wide[0], *wide[1], **wide[2])
            record["strides"], judged_by = compare_or_judge(device_out, cpu_out, dtype, float64_out)
            if judged_by:
                record["judged_by"] = judged_by
        else:
            dev_args = with_device_kwarg(tree_map(lambda v: to_device(v, device), cpu_args), device)
            device_out = op(dev_args[0], *dev_args[1], **dev_args[2])
            cpu_out = op(cpu_args[0], *cpu_args[1], **cpu_args[2])
            torch_fl.reset_fallback_stats()
            dev_outs = [t for t in tree_flatten(device_out)[0] if isinstance(t, torch.Tensor) and t.requires_grad]
            cpu_outs = [t for t in tree_flatten(cpu_out)[0] if isinstance(t, torch.Tensor) and t.requires_grad]
            if not cpu_outs:
                return skip("no output requires a gradient")
            grads = [torch.randn(t.shape, generator=torch.Generator().manual_seed(7)).to(t.dtype) for t in cpu_outs]
            cpu_inputs = [t for t in tree_flatten(cpu_args)[0] if isinstance(t, torch.Tensor) and t.requires_grad]
            dev_inputs = [t for t in tree_flatten(dev_args)[0] if isinstance(t, torch.Tensor) and t.requires_grad]
            cpu_grads = torch.autograd.grad(cpu_outs, cpu_inputs, grads, allow_unused=True)
            with recorder:
                dev_grads = torch.autograd.grad(dev_outs, dev_inputs, [g.to(device) for g in grads],
                                                allow_unused=True)
            given = [i for i, g in enumerate(cpu_grads) if g is not None]

            def float64_grads():
                wide = reference_accuracy.in_float64(cpu_args)
                if wide is None:
                    return None
                wide_out = op(wide[0], *wide[1], **wide[2])
                wide_outs = [t for t in tree_flatten(wide_out)[0] if isinstance(t, torch.Tensor) and t.requires_grad]
                wide_inputs = [t for t in tree_flatten(wide)[0] if isinstance(t, torch.Tensor) and t.requires_grad]
                wide_grads = torch.autograd.grad(wide_outs, wide_inputs, [g.double() for g in grads],
                                                 allow_unused=True)
                return [wide_grads[i] for i in given]
            _, judged_by = compare_or_judge([dev_grads[i] for i in given], [cpu_grads[i] for i in given], dtype,
                                            float64_grads)
            if judged_by:
                record["judged_by"] = judged_by
    except Exception as error:  # a wrong result or a crash of the op: the verdict's business
        record["ok"] = False
        record["error"] = f"{type(error).__name__}: {_summary(str(error))}"
        if "--trace" in sys.argv:
            traceback.print_exc()
    record["invoked"] = sorted(recorder.invoked)
    record["native"] = sorted(recorder.native)
    record["fallbacks"] = fallbacks(declared=False)
    record["declared_fallbacks"] = fallbacks(declared=True)
    emit(record)


def _summary(message: str) -> str:
    """The first line of an error, and for a value mismatch assert_close's counts
    (mismatched elements, greatest differences and where): a rare failure in CI
    must say what was wrong, since it may not come back when rerun."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    if not lines:
        return ""
    detail = [line for line in lines[1:] if line.startswith(("Mismatched elements", "Greatest absolute",
                                                            "Greatest relative"))]
    return " ".join([lines[0]] + detail)[:500]


def _fit_to_schema(packet, args):
    """The sample adapted to an overload's schema: a tensor passed where the
    schema takes a Scalar becomes its first element (e.g. add.Tensor's sample
    for add.Scalar)."""
    inp, rest, kwargs = args
    schema_args = [a for a in packet._schema.arguments if not a.kwarg_only][1:]
    fitted = []
    for value, schema_arg in zip(rest, schema_args + [None] * len(rest)):
        if schema_arg is not None and str(schema_arg.type) in ("Scalar", "number", "Optional[number]"):
            if isinstance(value, torch.Tensor) and value.numel() >= 1:
                value = value.flatten()[0].item()
        fitted.append(value)
    return inp, tuple(fitted), kwargs


def _out_arguments(packet) -> list[str]:
    return [a.name for a in packet._schema.arguments if a.is_out]


def _packet(overload: str):
    base, _, name = overload.partition(".")
    return getattr(getattr(torch.ops.aten, base), name or "default")


def run_opinfo(opinfo: str, dtype_names: list[str], overloads: list[str], max_samples: int, device, emit,
               replays: tuple[str, ...] = ()) -> None:
    name, _, variant = opinfo.partition(":")
    functional_of = {replay: replay.split(".")[0] for replay in replays}
    ops = [op for op in op_db if op.name == name and op.variant_test_name == variant]
    for op in ops:
        for dtype_text in dtype_names:
            dtype = DTYPES[dtype_text]
            if dtype not in op.supported_dtypes("cpu"):
                continue
            autograd = op.supports_autograd and (dtype.is_floating_point or dtype.is_complex)
            samples = op.sample_inputs("cpu", dtype, requires_grad=autograd)
            for index, sample in chosen_samples(samples, max_samples):
                phases = [("forward", None)] + [("backward", None)] * autograd + [("out", None)] * op.supports_out \
                    + [("inplace", None)] * (op.inplace_variant is not None) \
                    + [("overload", overload) for overload in overloads]
                for phase, overload in phases:
                    run_phase_twice_on_mismatch(op, sample, index, phase, dtype, device, emit, overload)
                if replays:
                    calls = capture_calls(op, sample, device, set(functional_of.values()), autograd)
                    for replay in replays:
                        if functional_of[replay] in calls:
                            run_phase_twice_on_mismatch(op, sample, index, "replay", dtype, device, emit, replay,
                                                        calls[functional_of[replay]])


def run_phase_twice_on_mismatch(op, sample, index, phase, dtype, device, emit, overload, captured=None) -> None:
    """A value mismatch is run once more on the same sample, and its record says
    whether the mismatch came back: a wrong result that does not repeat points at
    a race (in the runtime, the simulator or the test), not at the kernel's
    arithmetic. The phase stays failed either way."""
    records = []
    run_phase(op, sample, index, phase, dtype, device, records.append, overload=overload, captured=captured)
    record = records[0]
    if not record["ok"] and record["error"].startswith("AssertionError"):
        again = []
        run_phase(op, sample, index, phase, dtype, device, again.append, overload=overload, captured=captured)
        record["error"] += (" [run again on the same sample: it matched, so the mismatch is nondeterministic]"
                            if again[0]["ok"] else " [run again on the same sample: the same mismatch]")
    emit(record)


def main() -> int:
    """One OpInfo from the command line, or (--batch) one job per line of stdin:
    {"opinfo": ..., "dtypes": [...], "overloads": [...]}. Each job ends with a
    {"done": <opinfo>} line, so run.py knows which one a crash or a hang hit."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--opinfo", help="OpInfo name, optionally name:variant")
    parser.add_argument("--dtypes", default="", help="comma-separated dtype names to test")
    parser.add_argument("--max-samples", type=int, default=12)
    parser.add_argument("--overloads", default="", help="native functional/in-place overloads of this op to "
                                                        "call directly with the samples")
    parser.add_argument("--batch", action="store_true", help="read the jobs from stdin, one JSON object a line")
    parser.add_argument("--matrix", help="the declared support matrix (JSON): which argument's dtype each "
                                         "overload is filed under")
    args, _ = parser.parse_known_args()
    if args.matrix:
        with open(args.matrix) as f:
            DTYPE_ARGUMENTS.update({row["name"]: row["dtype_from"] for row in json.load(f)["ops"]
                                    if row.get("dtype_from")})
    device = torch_fl.device(0)

    def emit(record):
        print(json.dumps(record), flush=True)

    if args.batch:
        jobs = [json.loads(line) for line in sys.stdin if line.strip()]
    else:
        jobs = [{"opinfo": args.opinfo, "dtypes": args.dtypes.split(","),
                 "overloads": list(filter(None, args.overloads.split(",")))}]
    for job in jobs:
        run_opinfo(job["opinfo"], job["dtypes"], job["overloads"], args.max_samples, device, emit,
                   tuple(job.get("replays", ())))
        try:  # an asynchronous device error surfaces here, not in the next OpInfo
            getattr(torch, device.type).synchronize()
        except RuntimeError as error:
            name, _, variant = job["opinfo"].partition(":")
            emit({"opinfo": name, "variant": variant, "dtype": "", "sample": -1, "phase": "synchronize",
                  "ok": False, "error": f"RuntimeError: {str(error).splitlines()[0][:300]}", "invoked": [],
                  "fallbacks": [], "strides": "", "skipped": ""})
        print(json.dumps({"done": job["opinfo"]}), flush=True)  # everything ran: a later crash is at exit
    return 0


if __name__ == "__main__":
    sys.exit(main())
