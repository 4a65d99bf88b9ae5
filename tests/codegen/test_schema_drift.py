"""Generating for another torch than the specs were validated against: a schema
change the entry's kernel cannot carry is a spec error naming both schemas
(codegen/schema_drift.py); one it carries is only a note."""
from __future__ import annotations

import json
import os

import pytest

from cli import run_cli
from codegen import schema_drift
from codegen.pipeline import REPO_ROOT, generate_files
from codegen.errors import SpecErrors

MLU_SPEC = os.path.join(REPO_ROOT, "specs", "mlu.yaml")
ADD = "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"


def uncarried(before, after, read=("self", "other", "alpha"), has_call=True):
    return schema_drift.uncarried_changes(before, after, set(read), has_call)


def test_a_changed_default_and_int_becoming_symint_are_carried():
    assert uncarried(ADD, ADD.replace("alpha=1", "alpha=2")) == []
    assert uncarried("f(Tensor self, int[2] size) -> Tensor", "f(Tensor self, SymInt[2] size) -> Tensor",
                     read=("self", "size")) == []


def test_an_added_argument_is_not_carried_even_with_a_default():
    problems = uncarried(ADD, ADD.replace("alpha=1", "alpha=1, bool fast=False"))
    assert problems == ["argument `fast` was added and the call would ignore it"]


def test_an_argument_the_entry_reads_may_not_be_removed_or_retyped():
    without_alpha = "add.Tensor(Tensor self, Tensor other) -> Tensor"
    assert uncarried(ADD, without_alpha) == ["argument `alpha`, which the entry reads, was removed"]
    assert uncarried(ADD, without_alpha, read=("self", "other")) == []  # never read: carried
    retyped = uncarried(ADD, ADD.replace("Scalar alpha", "float alpha"))
    assert retyped == ["argument `alpha`, which the entry reads, changed type from `Scalar` to `float`"]


def test_changed_results_are_not_carried():
    problems = uncarried(ADD, ADD.replace("-> Tensor", "-> (Tensor, Tensor)"))
    assert problems == ["the results changed from (Tensor) to (Tensor, Tensor)"]


def test_a_reference_schema_that_does_not_parse_is_not_carried():
    [problem] = uncarried("add.Tensor(Tensor self, ", ADD)
    assert problem.startswith("the schemas cannot be compared: one does not parse")


def test_an_entry_without_a_call_carries_anything():
    assert uncarried(ADD, ADD.replace("alpha=1", "alpha=1, bool fast=False"), has_call=False) == []


def test_the_arguments_an_entry_reads_include_its_guard_layout_and_dtype_argument():
    plan, _ = generate_files(MLU_SPEC)  # the spec as it is: nothing changed
    from codegen import layering, spec_parser
    root, _ = layering.load(MLU_SPEC, "specs/mlu.yaml")
    spec = spec_parser.parse("specs/mlu.yaml", root)
    conv = next(op for op in spec.ops if op.name == "convolution_overrideable")
    read = schema_drift.arguments_read(conv)
    assert {"input", "weight", "transposed", "groups"} <= read, read
    assert plan.kernels


def reference_with(changes: dict[str, str], version: str = "2.12.0") -> schema_drift.ReferenceSchemas:
    reference = schema_drift.ReferenceSchemas.load(REPO_ROOT, "mlu")
    return schema_drift.ReferenceSchemas(version, {**reference.schemas, **changes})


def spec_line(op: str) -> int:
    with open(MLU_SPEC) as f:
        return next(n for n, line in enumerate(f, 1) if line.strip().startswith(f"{op}:"))


def test_an_uncarried_change_is_a_spec_error_at_the_entry_naming_both_schemas():
    old = ADD.replace("Scalar alpha", "float alpha")
    with pytest.raises(SpecErrors) as caught:
        generate_files(MLU_SPEC, reference=reference_with({"add.Tensor": old}))
    [error] = caught.value.errors
    line = f"specs/mlu.yaml:{spec_line('add.Tensor')}"
    text = str(error)
    assert text.startswith(line), text
    assert "'add.Tensor': its schema changed from torch 2.12.0 to" in text
    assert f"torch 2.12.0: `{old}`" in text and f"`{ADD}`" in text
    assert "argument `alpha`, which the entry reads, changed type from `float` to `Scalar`" in text
    assert 'torch: {max: "2.12"}' in str(error.suggestion)


def test_a_derived_variant_is_checked_too():
    out = "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)"
    with pytest.raises(SpecErrors) as caught:
        generate_files(MLU_SPEC, reference=reference_with({"add.out": out.replace("Scalar alpha", "float alpha")}))
    assert "'add.out': its schema changed" in str(caught.value)


def test_a_carried_change_or_the_same_torch_is_no_error():
    generate_files(MLU_SPEC, reference=reference_with({"add.Tensor": ADD.replace("alpha=1", "alpha=3")}))
    old = ADD.replace("Scalar alpha", "float alpha")
    import importlib.metadata
    same_torch = importlib.metadata.version("torch").split("+")[0]
    generate_files(MLU_SPEC, reference=reference_with({"add.Tensor": old}, version=same_torch))


def test_the_command_line_refuses_and_writes_nothing(tmp_path):
    with open(os.path.join(REPO_ROOT, "generated", "mlu", "support_matrix.json")) as f:
        matrix = json.load(f)
    matrix["torch_version"] = "2.12.0"
    for op in matrix["ops"]:
        if op["name"] == "add.Tensor":
            op["schema"] = ADD.replace("Scalar alpha", "float alpha")
    reference = tmp_path / "matrix.json"
    reference.write_text(json.dumps(matrix))
    out = tmp_path / "out"
    run = run_cli("generate", "--vendor", "mlu", "--out", str(out), "--reference", str(reference))
    assert run.status == 2, run.stderr
    assert f"specs/mlu.yaml:{spec_line('add.Tensor')}:" in run.stderr
    assert "`alpha`, which the entry reads, changed type" in run.stderr
    assert "nothing was written" in run.stderr and not out.exists()
    unnamed = run_cli("generate", "--reference", str(reference))
    assert unnamed.status == 2 and "--vendor" in unnamed.stderr
