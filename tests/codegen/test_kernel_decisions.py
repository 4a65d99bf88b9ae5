"""The plan's typed decisions, checked without reading C++: which dtypes decide
native vs fallback, and which memory-overlap rules a kernel applies."""
from __future__ import annotations

import functools
import os

from codegen.__main__ import REPO_ROOT, load_plan
from codegen.plan import KernelKind


@functools.cache
def mlu_kernels():
    plan = load_plan(os.path.join(REPO_ROOT, "specs", "mlu.yaml"))
    return {k.aten.name: k for k in plan.kernels}


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
