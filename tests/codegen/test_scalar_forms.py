"""Which kernels pass a Python number by value, through their Scalar overload's
SDK call (plan_model.ScalarForm), and which must keep the tensor path."""
from __future__ import annotations

import os

from conftest import REPO_ROOT
from test_spec_errors import VALID_SPEC

from codegen import render
from codegen.pipeline import load_plan

ADD_SCALAR = '  add.Scalar: {call: "mluOpAddScalar(stream, self, other, alpha, out)"%s}\n'


def kernels_of(tmp_path, spec_text: str) -> dict:
    spec = tmp_path / "scalar.yaml"
    spec.write_text(spec_text)
    return {k.aten.name: k for k in load_plan(str(spec), REPO_ROOT).kernels}


def with_add_scalar(extra: str = "") -> str:
    return VALID_SPEC + ADD_SCALAR % extra


def test_every_form_of_the_tensor_overload_passes_a_number_through_the_scalar_call(tmp_path):
    kernels = kernels_of(tmp_path, with_add_scalar())
    for name, written in (("add.Tensor", "out"), ("add.out", "out"), ("add_.Tensor", "self")):
        form = kernels[name].scalar_form
        assert form is not None, name
        assert (form.argument, form.entry, form.launch.entry.name) == ("other", "add.Scalar", "add.Scalar")
        assert form.launch_arguments == ("self", "other", "alpha", written), name
    assert kernels["add.Scalar"].scalar_form is None, "it takes the number already"
    assert kernels["mm"].scalar_form is None


def test_without_the_scalar_entry_the_number_keeps_the_tensor_path(tmp_path):
    assert kernels_of(tmp_path, VALID_SPEC)["add.Tensor"].scalar_form is None


def test_a_scalar_entry_that_accepts_fewer_dtypes_is_not_used(tmp_path):
    """add.Tensor is native for float16 too: a number next to a float16 tensor
    would reach an SDK call the spec does not declare for it."""
    kernels = kernels_of(tmp_path, with_add_scalar(", dtypes: [float32]"))
    assert kernels["add.Tensor"].scalar_form is None


def test_a_guarded_scalar_entry_is_not_used(tmp_path):
    kernels = kernels_of(tmp_path, with_add_scalar(", when: \"self.dim() <= 4\""))
    assert kernels["add.Tensor"].scalar_form is None


def test_a_scalar_entry_with_a_known_failure_is_not_used(tmp_path):
    """Its vendor limit is reported against add.Scalar; add.Tensor's samples would fail with no note."""
    kernels = kernels_of(tmp_path, with_add_scalar(', known_failure: "rounds alpha"'))
    assert kernels["add.Tensor"].scalar_form is None


def test_pow_keeps_the_tensor_path_because_its_scalar_overload_has_its_own_kernels():
    plan = load_plan(os.path.join(REPO_ROOT, "specs", "mlu.yaml"))
    kernels = {k.aten.name: k for k in plan.kernels}
    assert "pow.Tensor_Scalar" in kernels and "pow.Tensor_Tensor" in kernels
    assert kernels["pow.Tensor_Tensor"].scalar_form is None
    assert kernels["mul.Tensor"].scalar_form.entry == "mul.Scalar"


def test_the_kernel_branches_on_a_python_number_and_the_matrix_says_so(tmp_path):
    spec = tmp_path / "scalar.yaml"
    spec.write_text(with_add_scalar())
    files = render.render(load_plan(str(spec), REPO_ROOT))
    shard = next(text for name, text in files.items() if "wrap_add_Tensor" in text)
    body = shard[shard.index("at::Tensor wrap_add_Tensor("):]
    body = body[:body.index("\n}\n")]
    assert "if (torch_fl::is_python_number(other))" in body
    assert "launch_add_Scalar(op, *self_on_device, torch_fl::python_number(other), alpha, out);" in body
    assert "launch_add_Tensor(op, *self_on_device, *op.on_device(other), alpha, out);" in body
    assert "other_on_device" not in body, "the number is not moved before the branch"
    assert shard.index("static void launch_add_Scalar(") < shard.index("at::Tensor wrap_add_Tensor(")
    matrix = next(text for name, text in files.items() if name.endswith(".json"))
    assert '"by_value_through": "add.Scalar"' in matrix
