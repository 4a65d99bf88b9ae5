"""A real vendor's spec checked against whole training steps on a machine without
its device (#17: the transformer step on nvidia must run with zero fallbacks).

A simulated chip runs each step of training_steps.STEPS and records every kernel
the step reached: the backend's native-run record (which sees overloads reached
inside other ops, such as the optimizer's foreach decompositions) and its
fallbacks. For each step nvidia is said to train natively (vendor_facts), every
(overload, dtype) must be native in generated/nvidia/support_matrix.json, under a
guard the step cannot fail. For each step said to fall back, at least one kernel
must be missing, so the list cannot go stale either way. On a GPU, test_training
runs the same steps on nvidia itself in strict mode."""
from __future__ import annotations

import contextlib
import json
import pathlib

import pytest
import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

import torch_fl
import training_steps
import vendor_facts
from native_runs import recorded_native_runs

REAL_VENDOR = "nvidia"
MATRIX = pathlib.Path(__file__).resolve().parents[2] / "generated" / REAL_VENDOR / "support_matrix.json"

# The record names dtypes as c10 does; the matrix as the spec does.
SPEC_DTYPES = {"Float": "float32", "Half": "float16", "BFloat16": "bfloat16", "Double": "float64", "Long": "int64",
               "Int": "int32", "Short": "int16", "Char": "int8", "Byte": "uint8", "Bool": "bool",
               "ComplexFloat": "complex64", "ComplexDouble": "complex128"}

# Guards of nvidia's entries that hold in every step here, and why. A new guard on an
# entry these steps reach fails the test until it is listed with its reason.
GUARDS_THAT_HOLD = {
    "not half_to_float": "no step asks softmax for a wider result: autocast casts its input to float32 instead",
    "grad_output.scalar_type() == input_dtype": "softmax's gradient comes back in the dtype softmax ran in",
    "not scale_grad_by_freq": "nn.Embedding's default",
    "dtype is None": "the steps' sums and means are autograd's reductions of broadcast gradients, given no dtype",
}


def matrix() -> dict[str, dict]:
    with open(MATRIX) as f:
        return {entry["name"]: entry for entry in json.load(f)["ops"]}


FUSED_ATTENTION = "_scaled_dot_product_fused_attention_overrideable"


def kernels_of(step: training_steps.TrainingStep, device: torch.device) -> set[tuple[str, str]]:
    """(overload, c10 dtype) of every kernel the step reached: run natively or fallen back.
    SDPA takes the path the real vendor's spec gives it: without a fused attention
    entry there, the math path, whatever the simulated chip declares."""
    torch_fl.reset_fallback_stats()
    route = contextlib.nullcontext() if FUSED_ATTENTION in matrix() else sdpa_kernel([SDPBackend.MATH])
    with recorded_native_runs() as runs, route:
        step.run(device)
    fallbacks = {(op.removeprefix("aten::"), dtype) for op, per_dtype in torch_fl.fallback_stats().items()
                 for dtype in per_dtype}
    return runs | fallbacks


def missing_from(entries: dict[str, dict], kernels: set[tuple[str, str]]) -> list[str]:
    """Why each kernel would not run natively on the real vendor (empty: all would)."""
    missing = []
    for op, dtype in sorted(kernels):
        entry = entries.get(op)
        spec_dtype = SPEC_DTYPES.get(dtype, dtype)
        if entry is None:
            missing.append(f"{op}: not in specs/{REAL_VENDOR}.yaml")
        elif entry["dtypes"].get(spec_dtype) != "native":
            missing.append(f"{op} ({spec_dtype}): {entry['dtypes'].get(spec_dtype, 'not listed')} ({entry['source']})")
        elif entry.get("guard") and entry["guard"] not in GUARDS_THAT_HOLD:
            missing.append(f"{op}: guarded by `{entry['guard']}` ({entry['source']}), not known to hold here")
    return missing


# The chips whose record stands for nvidia's: their specs cover every step, so each
# kernel a step reaches is the one nvidia would be asked for. A chip that falls
# back records other overloads (the CPU fallback of _log_softmax calls its .out).
SIMULATED_CHIPS = ("mlu", "npu")


@pytest.fixture(scope="module")
def simulated_chip():
    if torch_fl.vendor() == REAL_VENDOR:
        pytest.skip(f"on {REAL_VENDOR} itself, test_training runs these steps in strict mode")
    if torch_fl.vendor() not in SIMULATED_CHIPS:
        pytest.skip(f"{torch_fl.vendor()} is not a simulated chip whose record stands for {REAL_VENDOR}'s "
                    f"(those are {', '.join(SIMULATED_CHIPS)})")
    return torch_fl.device(0)


@pytest.mark.parametrize("name", sorted(training_steps.STEPS))
def test_the_real_vendors_spec_covers_the_steps_it_claims(simulated_chip, fallback_mode, name):
    fallback_mode("silent")  # a fallback of the simulated chip is recorded, not an error
    kernels = kernels_of(training_steps.STEPS[name], simulated_chip)
    assert len(kernels) > 10, f"the record of {name} is too small to be a training step: {sorted(kernels)}"
    missing = missing_from(matrix(), kernels)
    claims_native = name not in vendor_facts.STEPS_WITH_FALLBACKS[REAL_VENDOR]
    if claims_native:
        assert not missing, f"{name} on {REAL_VENDOR} would fall back:\n  " + "\n  ".join(missing)
    else:
        assert missing, (f"every kernel of {name} is native on {REAL_VENDOR}: take it out of "
                         f"vendor_facts.STEPS_WITH_FALLBACKS so that test_training runs it strictly")


@pytest.mark.without_device
def test_a_kernel_the_spec_lacks_is_reported_with_its_reason():
    entries = matrix()
    assert missing_from(entries, {("mm", "Float")}) == []
    assert missing_from(entries, {("convolution_overrideable", "Float")}) == [
        f"convolution_overrideable: not in specs/{REAL_VENDOR}.yaml"]
    assert "fallback" in missing_from(entries, {("mm", "Double")})[0]
    guarded = next(name for name, entry in entries.items() if entry.get("guard") == "not half_to_float")
    assert missing_from(entries, {(guarded, "Float")}) == []
    assert "guarded" in missing_from({guarded: {**entries[guarded], "guard": "self.dim() == 2"}}, {(guarded, "Float")})[0]
