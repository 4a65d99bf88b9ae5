"""runtime/aten_kernels.yaml: the kernels every backend registers for ATen ops besides
its spec's. ATen's own, each resolved to the kernel the installed torch registers for
the CPU counterpart key; the runtime's own, declared with the op's native signature;
and the errors a bad line or a clashing spec entry gets."""
from __future__ import annotations

import os

import pytest
from conftest import REPO_ROOT
from test_spec_errors import VALID_SPEC

from codegen import render
from codegen.aten import AtenRegistry
from codegen.errors import ErrorSink, Location
from codegen.pipeline import load_plan
from codegen.plan_aten_kernels import ATEN_KERNELS, plan_aten_kernels


def plan_file(tmp_path, text: str, spec_entries: dict | None = None) -> tuple[tuple, list[str]]:
    (tmp_path / "runtime").mkdir(exist_ok=True)
    (tmp_path / ATEN_KERNELS).write_text(text)
    errors = ErrorSink()
    kernels = plan_aten_kernels(str(tmp_path), AtenRegistry.from_installed_torch(), errors, spec_entries or {})
    return kernels, [str(e) for e in errors.errors]


def test_each_op_takes_the_kernel_torch_registers_for_the_cpu_counterpart_key(tmp_path):
    kernels, errors = plan_file(tmp_path, "PrivateUse1: [view, as_strided]\n"
                                          "SparsePrivateUse1: [_dimI]\nQuantizedPrivateUse1: [squeeze.dim]\n")
    assert errors == []
    found = {(k.dispatch_key, k.aten.name): k for k in kernels}
    assert found["PrivateUse1", "as_strided"].kernel == "as_strided_tensorimpl"
    assert found["SparsePrivateUse1", "_dimI"].kernel == "sparse_dim_sparse"  # shared with sparse_dim
    assert not found["SparsePrivateUse1", "_dimI"].overloaded  # one signature: no cast
    squeeze = found["QuantizedPrivateUse1", "squeeze.dim"]
    assert squeeze.kernel == "squeeze_quantized" and squeeze.overloaded
    assert squeeze.source.line == 3


def test_an_overloaded_kernel_is_registered_through_the_cast_to_its_own_signature():
    plan = load_plan(os.path.join(REPO_ROOT, "specs", "mlu.yaml"), REPO_ROOT)
    text = render.render(plan)["aten_kernels.cpp"]
    assert ('m.impl("squeeze.dim", TORCH_FN(static_cast<at::Tensor (*)(const at::Tensor &, int64_t)>'
            '(&at::native::squeeze_quantized)));') in text
    assert 'm.impl("view", TORCH_FN(at::native::view));' in text
    assert "#include <ATen/ops/squeeze_native.h>" in text
    # Every op of the file is registered, under its key.
    listed = sum(1 for line in open(os.path.join(REPO_ROOT, ATEN_KERNELS)) if line.startswith("  - "))
    assert text.count("m.impl(") == listed == len(plan.aten_kernels)


@pytest.mark.parametrize("text, expected", [
    ("PrivateUse1: [veiw]\n", f"{ATEN_KERNELS}:1:15: 'veiw' is not an ATen op of this torch (did you mean 'view'?)"),
    ("PrivateUse1:\n  - conv2d\n", f"{ATEN_KERNELS}:2:5: this torch registers no CPU kernel for 'conv2d' to take "
     "for PrivateUse1 (ATen's composite kernel serves every device: remove this entry)"),
    ("PrivateUse1:\n  - _cudnn_rnn\n", f"{ATEN_KERNELS}:2:5: this torch registers no CPU kernel for "
     "'_cudnn_rnn' to take for PrivateUse1 (implement it in runtime/src/ and name it: `- _cudnn_rnn: <function>`)"),
    ("PrivateUse1:\n  - mm.out\n", f"{ATEN_KERNELS}:2:5: 'mm.out''s CPU kernel is structured (at::native::mm_out_cpu "
     "is a class, not a function) (register its functional or in-place overload, or implement it in runtime/src/ "
     "and name it: `- mm.out: <function>`)"),
    ("SparsePrivatUse1: [view]\n", f"{ATEN_KERNELS}:1:1: unknown key 'SparsePrivatUse1' in {ATEN_KERNELS} "
     "(a device dispatch key) (did you mean 'SparsePrivateUse1'?)"),
    ("PrivateUse1: view\n", f"{ATEN_KERNELS}:1:14: 'PrivateUse1' must be a list"),
    ("PrivateUse1:\n  - resize_: 'not a name'\n", f"{ATEN_KERNELS}:2:14: 'PrivateUse1.resize_' must be an "
     "identifier that is not a C++ keyword, got 'not a name' (e.g. rms_norm)"),
    ("PrivateUse1:\n  - [view]\n", f"{ATEN_KERNELS}:2:5: each entry of 'PrivateUse1' must be an op, or "
     "`op: function` for the runtime's own kernel (e.g. `- view` or `- resize_: resize_`)"),
])
def test_a_bad_line_is_reported_at_its_place_with_a_suggestion(tmp_path, text, expected):
    kernels, errors = plan_file(tmp_path, text)
    assert errors == [expected]
    assert kernels == ()


def test_an_op_listed_twice_under_a_key_is_an_error_at_the_second(tmp_path):
    kernels, errors = plan_file(tmp_path, "SparsePrivateUse1: [values, _nnz, values]\nNestedTensorPrivateUse1: [values]\n")
    assert errors == [f"{ATEN_KERNELS}:1:35: 'values' is listed twice under SparsePrivateUse1 (first at line 1; "
                      "keep one)"]
    assert [(k.dispatch_key, k.aten.name) for k in kernels] == [
        ("SparsePrivateUse1", "values"), ("SparsePrivateUse1", "_nnz"), ("NestedTensorPrivateUse1", "values")]


def test_a_spec_entry_for_one_of_its_ops_is_an_error_at_the_entry(tmp_path):
    entry = Location("specs/x.yaml", 12, 3)
    _, errors = plan_file(tmp_path, "PrivateUse1: [view]\nSparsePrivateUse1: [values]\n",
                          {"view": entry, "values": entry})
    # Only the dense key clashes: a spec registers PrivateUse1 kernels.
    assert errors == [f"specs/x.yaml:12:3: 'view' is registered by the runtime on every device ({ATEN_KERNELS}:1) "
                      "(remove this entry)"]


def test_a_spec_that_declares_a_view_the_runtime_registers_fails_generation(tmp_path):
    spec = tmp_path / "clash.yaml"
    spec.write_text(VALID_SPEC + '  view: {call: "mluOpAdd(stream, self, self, self, out)"}\n')
    with pytest.raises(Exception) as raised:
        load_plan(str(spec), REPO_ROOT)
    assert "'view' is registered by the runtime on every device" in str(raised.value)


def test_a_kernel_that_keeps_its_device_guard_runs_behind_one_as_cudas_do():
    text = render.render(load_plan(os.path.join(REPO_ROOT, "specs", "mlu.yaml"), REPO_ROOT))["aten_kernels.cpp"]
    # A factory takes its `device` argument's device (torchgen's rule for CUDA's kernels).
    factory = text.split("wrapper_SparsePrivateUse1__sparse_coo_tensor_with_dims_and_tensors(", 1)[1]
    assert factory.split("}", 1)[0].count("const c10::OptionalDeviceGuard device_guard(device);") == 1
    assert "return at::native::new_with_dims_and_tensor_sparse_symint(sparse_dim, dense_dim, size, indices, " \
           "values, dtype, layout, device, pin_memory, is_coalesced);" in factory
    # An op on a tensor takes self's.
    clone = text.split("wrapper_SparsePrivateUse1_clone(", 1)[1].split("}", 1)[0]
    assert "const c10::OptionalDeviceGuard device_guard(at::device_of(self));" in clone
    assert 'm.impl("clone", TORCH_FN(wrapper_SparsePrivateUse1_clone));' in text
    # native_functions.yaml's `device_guard: False` (views, accessors): registered directly.
    assert "wrapper_PrivateUse1_view(" not in text and "wrapper_SparsePrivateUse1__values(" not in text


def test_the_runtimes_own_kernel_is_declared_with_its_ops_native_signature(tmp_path):
    kernels, errors = plan_file(tmp_path, "PrivateUse1:\n  - view\n  - resize_: resize_\n")
    assert errors == []
    resize = kernels[1]
    assert resize.runtime and resize.kernel == "resize_" and resize.source.line == 3
    text = render.render(load_plan(os.path.join(REPO_ROOT, "specs", "mlu.yaml"), REPO_ROOT))["aten_kernels.cpp"]
    declarations = text.split("namespace torch_fl::kernels {", 1)[1].split("}", 1)[0]
    # native_functions.yaml's use_const_ref_for_mutable_tensors shapes resize_'s signature.
    assert ("const at::Tensor & resize_(const at::Tensor & self, at::IntArrayRef size, "
            "::std::optional<at::MemoryFormat> memory_format);") in declarations
    assert 'm.impl("resize_", TORCH_FN(torch_fl::kernels::resize_));' in text
    assert "wrapper_PrivateUse1_resize_" not in text  # the runtime's kernel guards itself
