"""The plan's typed decisions, checked without reading C++: which dtypes decide
native vs fallback, which memory-overlap rules a kernel applies, how it
allocates, where it came from, and how a custom op's backward is called."""
from __future__ import annotations

import functools
import os

from torchgen.model import BaseTy

from codegen.pipeline import REPO_ROOT, load_plan
from codegen import guards
from codegen.plan_model import AllocationKind, GradOutput, KernelKind, SavedTensor, SavedValue
from codegen.spec_model import FallbackPolicy


@functools.cache
def mlu_plan():
    return load_plan(os.path.join(REPO_ROOT, "specs", "mlu.yaml"))


def mlu_kernels():
    return {k.aten.name: k for k in mlu_plan().kernels}


def operands(name: str) -> tuple[str, ...]:
    return tuple(t.name for t in mlu_kernels()[name].dtype_decision.operands)


def test_every_computation_operand_decides_not_only_the_first():
    assert operands("add.Tensor") == ("self", "other")
    assert operands("add_.Tensor") == ("self", "other")
    assert operands("cat") == ("tensors",)


def test_indices_masks_and_conditions_take_no_part_in_the_dtype_decision():
    assert operands("where.self") == ("self", "other")
    assert operands("index_select") == ("self",)
    assert "mask" not in operands("masked_fill_.Scalar")


def test_the_matrix_files_each_row_under_the_argument_its_dtype_decision_reads_first():
    from codegen import matrix
    rows = {row["name"]: row for row in matrix.to_document(matrix.build(mlu_plan()))["ops"]}
    assert rows["where.self"]["dtype_from"] == "self"  # not the boolean condition, the first tensor
    assert rows["index_select"]["dtype_from"] == "self"
    assert rows["add.out"]["dtype_from"] == "self"
    assert rows["cat"]["dtype_from"] == "tensors"


def test_out_tensors_and_functional_results_are_checked():
    add_out = mlu_kernels()["add.out"].dtype_decision
    assert add_out.outputs == ("out",) and not add_out.check_result
    functional = mlu_kernels()["add.Tensor"].dtype_decision
    assert functional.outputs == () and functional.check_result


def test_written_tensors_get_overlap_checks_against_every_input():
    add_out = mlu_kernels()["add.out"].overlap
    assert add_out.written == ("out",) and [t.name for t in add_out.inputs] == ["self", "other"]
    assert not add_out.internal_allowed
    in_place = mlu_kernels()["add_.Tensor"].overlap
    assert in_place.written == ("self",) and [t.name for t in in_place.inputs] == ["other"]
    assert mlu_kernels()["add.Tensor"].overlap is None  # writes only what it allocates


def test_fills_may_write_aliased_elements_as_in_aten():
    for name in ("fill_.Scalar", "zero_"):
        kernel = mlu_kernels()[name]
        assert kernel.kind == KernelKind.INPLACE and kernel.overlap.internal_allowed


def test_allocation_is_a_decision_not_code():
    kernels = mlu_kernels()
    assert kernels["add.Tensor"].allocation.kind == AllocationKind.META
    assert kernels["add.out"].allocation.kind == AllocationKind.META, "a derived out= variant checks on meta"
    assert kernels["add_.Tensor"].allocation.kind == AllocationKind.META, "so does a derived in-place one"
    dropout = kernels["native_dropout"].allocation
    assert dropout.kind == AllocationKind.RULE and dropout.rule == "torch_fl::output_rules::dropout"
    assert dropout.inputs == ("input", "p", "train")
    rms_norm = next(c for c in mlu_plan().custom_ops if c.forward.aten.name == "rms_norm")
    assert rms_norm.forward.allocation.kind == AllocationKind.LIKE and rms_norm.forward.allocation.like == ("input",)


def test_only_tensor_iterator_overloads_of_tensors_and_scalars_remember_their_meta_result():
    """The memo's key (elementwise_memo.h) holds dtypes and Scalars: an int, a
    string, an optional or an out= tensor changes what meta computes outside it."""
    kernels = mlu_kernels()
    remembered = {name for name, kernel in kernels.items() if kernel.allocation.remembered}
    assert {"add.Tensor", "add_.Tensor", "mul.Tensor", "neg", "pow.Tensor_Scalar", "addcmul"} <= remembered
    assert "add.out" not in remembered, "an out= tensor's own dtype and shape take part"
    assert "mm" not in remembered and "sum.dim_IntList" not in remembered, "not TensorIterator ops"
    not_scalars = {name for name, kernel in kernels.items() if kernel.aten.tensor_iterator
                   and any(str(a.type) not in ("Tensor", "Scalar") for a in kernel.aten.schema.arguments.flat_non_out)}
    assert not_scalars, "the spec has TensorIterator overloads with other arguments (div.Tensor_mode, gelu)"
    assert not (not_scalars & remembered)


def test_every_kernel_names_its_spec_line_and_entry():
    add_out = mlu_kernels()["add.out"]
    assert add_out.provenance.path == "specs/mlu.yaml" and add_out.provenance.line > 0
    assert add_out.entry == "add.Tensor" and add_out.derived_from == "add.Tensor"
    assert str(add_out.provenance) == f"specs/mlu.yaml:{add_out.provenance.line}"


def test_the_dtype_policy_and_guard_are_typed():
    mm = mlu_kernels()["mm"]
    assert "float32" in mm.dtypes.native and mm.dtypes.fallback == FallbackPolicy.CPU
    # npu: `when: not transposed and groups == 1 and input.dim() == 4`
    convolution = {k.aten.name: k for k in load_plan(os.path.join(REPO_ROOT, "specs", "npu.yaml")).kernels}[
        "convolution_overrideable"]
    guard = convolution.guard
    assert isinstance(guard, guards.Logical) and guard.operator == "and" and len(guard.operands) == 3
    assert guard.operands[0] == guards.Not(guards.Argument("transposed", guards.GuardType.BOOL))
    assert isinstance(guard.operands[2], guards.Compare) and guard.operands[2].operators == ("==",)


def test_launch_parameters_say_what_they_bind_not_their_cpp_types():
    launch = mlu_kernels()["add.Tensor"].launch
    assert [(p.name, p.is_output) for p in launch.parameters] == [
        ("self", False), ("other", False), ("alpha", False), ("out", True)]
    assert launch.entry.name == "add.Tensor"
    assert mlu_kernels()["add_.Tensor"].launch_arguments == ("self", "other", "alpha", "self")


def test_a_custom_backward_reads_gradients_saved_tensors_and_saved_values():
    autograd = next(c for c in mlu_plan().custom_ops if c.forward.aten.name == "rms_norm").autograd
    assert autograd.saved_tensors == ("input", "weight")
    assert autograd.saved_values == (SavedValue("eps", BaseTy.float),)
    assert autograd.backward_arguments == (GradOutput(0), SavedTensor(0), SavedTensor(1),
                                           SavedValue("eps", BaseTy.float))
    assert autograd.gradient_of == (0, 1, None)
