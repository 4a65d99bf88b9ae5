"""Spec features as the generator emits them, read from freshly generated C++
(never from the checked-in generated/: comparing with it is test_generator_output's
job, and passes again after `make generate`). Each test names the lines a
careful engineer would write by hand for the feature."""
from __future__ import annotations

import functools
import os
import re

from conftest import REPO_ROOT
from test_spec_errors import VALID_SPEC, assert_rejected, run_codegen

from codegen.pipeline import generate_files

OPTIONAL_TENSOR_CONVERTER = "    Tensor?: {fn: mlu_glue::describe_optional, pass: pointer}\n"


def with_converters(spec_text: str, *lines: str) -> str:
    anchor = "    int[]?: mlu_glue::int_list\n"
    assert anchor in spec_text
    return spec_text.replace(anchor, anchor + "".join(lines))


def generated(tmp_path, spec_text: str) -> dict[str, str]:
    result, out_dir = run_codegen(tmp_path, spec_text)
    assert result.returncode == 0, result.stderr
    return {name: open(os.path.join(out_dir, name), encoding="utf-8").read() for name in os.listdir(out_dir)}


def kernels(files: dict[str, str]) -> str:
    return "".join(text for name, text in sorted(files.items()) if name.startswith("kernels_shard"))


def function(text: str, name: str) -> list[str]:
    """The lines of the C++ function `name` (from its signature to its closing brace)."""
    match = re.search(rf"\n([^\n]*\b{name}\(.*?\n}}\n)", text, re.S)
    assert match, f"no function {name} in the emitted code"
    return match.group(1).splitlines()


@functools.cache
def mlu_files() -> dict[str, str]:
    return generate_files(os.path.join(REPO_ROOT, "specs", "mlu.yaml"), REPO_ROOT)[1]


def test_layout_then_cast_rules_prepare_each_operand_the_sdk_reads(tmp_path):
    spec = VALID_SPEC + ('  addcmul:\n'
                         '    call: mluOpAddcmul(stream, self, tensor1, tensor2, value, out)\n'
                         '    layout: {tensor2: {aligned: 64}, self: channels_last}\n'
                         '    cast: {tensor2: float16}\n')
    body = function(kernels(generated(tmp_path, spec)), "wrap_addcmul")
    dtype_check = next(i for i, line in enumerate(body) if "op.dtype_is_native(self" in line)
    layout_check = body.index("  if (!op.layout_possible(self, torch_fl::MemoryLayout::kChannelsLast)) {")
    assert dtype_check < layout_check  # each precondition kept, dtypes first
    assert "FallbackReason::kLayout" in body[layout_check + 1]
    aligned = body.index("  const at::Tensor tensor2_laid = op.aligned(*tensor2_on_device, 64);")
    cast = body.index("  const at::Tensor tensor2_as_float16 = op.cast(tensor2_laid, c10::ScalarType::Half);")
    assert aligned < cast
    assert "  const at::Tensor self_laid = op.with_layout(*self_on_device, torch_fl::MemoryLayout::kChannelsLast);" in body
    assert "  launch_addcmul(op, self_laid, *tensor1_on_device, tensor2_as_float16, value, out);" in body


def test_a_layout_rule_on_an_optional_tensor_is_refused(tmp_path):
    spec = with_converters(VALID_SPEC, OPTIONAL_TENSOR_CONVERTER) + (
        '  linear: {call: "mluOpLinear(stream, input, weight, bias, out)", autograd: decomposition, '
        'layout: {bias: {aligned: 128}}}\n')
    assert_rejected(tmp_path, spec, 21, "layout rule names 'bias', which is not a (non-optional) Tensor argument of "
                    "'linear' (a layout rule may name input, weight)")


def test_dtype_from_decides_by_the_argument_it_names(tmp_path):
    spec = VALID_SPEC.replace("    variants: [out, inplace]\n", "    variants: [out, inplace]\n    dtype_from: other\n")
    (tmp_path / "valid").mkdir()
    body = function(kernels(generated(tmp_path / "valid", spec)), "wrap_add_Tensor")
    assert '  if (!(op.dtype_is_native(other, "other"))) {' in body
    assert not any('op.dtype_is_native(self, "self")' in line for line in body)
    wrong = VALID_SPEC.replace("    variants: [out, inplace]\n", "    variants: [out, inplace]\n    dtype_from: othr\n")
    assert_rejected(tmp_path, wrong, 16, "dtype_from names 'othr', which is not a tensor argument of 'add.Tensor'",
                    "did you mean 'other'?")


def test_a_two_phase_call_queries_the_workspace_then_passes_it():
    body = function(kernels(mlu_files()), "launch_cumsum")
    query = body.index("  const mluRet_t query_status = mluOpCumsumGetWorkspaceSize(&self_arg, dim, &out_arg, "
                       "&workspace_bytes);")
    workspace = body.index("  const at::Tensor workspace = op.workspace(workspace_bytes);")
    call = body.index("  const mluRet_t status = mluOpCumsum(stream_arg, &self_arg, dim, op.data(workspace), "
                      "workspace_bytes, &out_arg);")
    assert query < workspace < call
    assert body[query + 2] == "  if (query_status != MLU_RET_SUCCESS) {"


def test_each_sdk_call_is_a_profiler_range_that_ends_before_its_status_check():
    """The workspace query is a host-only range; the call on the stream names the op, so
    that a device profiler shows its work on the stream's row."""
    body = function(kernels(mlu_files()), "launch_cumsum")
    for range_name, arguments, function_name, status in (
            ("query_call", '"mluOpCumsumGetWorkspaceSize"', "mluOpCumsumGetWorkspaceSize", "query_status"),
            ("sdk_call", 'op, "mluOpCumsum"', "mluOpCumsum", "status")):
        opened = body.index(f'  torch_fl::ProfilerRange {range_name}({arguments});')
        assert body[opened + 1].startswith(f"  const mluRet_t {status} = {function_name}(")
        assert body[opened + 2] == f"  {range_name}.end();"
        assert body[opened + 3].startswith(f"  if ({status} != MLU_RET_SUCCESS)")


def test_a_fill_is_a_memset_on_the_device_timeline():
    body = function(kernels(mlu_files()), "launch_zero_")
    assert '  torch_fl::ProfilerRange sdk_call(op, "mluOpZero", torch_fl::DeviceActivityKind::kMemset);' in body


def test_a_decomposition_keeps_its_autograd_and_runs_native_without_gradients():
    text = kernels(mlu_files())
    comment = "// linear: the decomposition (and its autograd) when a gradient is needed, the native kernel otherwise"
    assert comment in text
    body = function(text, "autograd_linear")
    assert body[1:3] == ["  if (torch_fl::grad_required(input, weight, bias)) {",
                         "    return at::native::linear(input, weight, bias);"]
    assert body[-2] == "  return wrap_linear(input, weight, bias);"


def test_a_vendor_ops_autograd_calls_its_backward_with_saved_tensors_and_values():
    text = mlu_files()["custom_ops.cpp"]
    assert "// autograd of mlu::rms_norm: gradients by mlu::rms_norm_backward" in text
    assert "    ctx->save_for_backward({input, weight});" in text
    assert '    ctx->saved_data["eps"] = eps;' in text
    assert ('    const auto grads = backward_op.call(grad_outputs[0], saved[0], saved[1], '
            'ctx->saved_data["eps"].toDouble());') in text
    assert "    return {std::get<0>(grads), std::get<1>(grads), at::Tensor()};" in text


def test_a_backward_with_one_gradient_returns_it_whole(tmp_path):
    spec = VALID_SPEC + ('custom:\n'
                         '  scale:\n'
                         '    schema: scale(Tensor input, Scalar factor) -> Tensor\n'
                         '    call: mluOpDivScalar(stream, input, factor, out)\n'
                         '    output: {like: input}\n'
                         '    backward:\n'
                         '      grads: [input]\n'
                         '      schema: scale_backward(Tensor grad) -> Tensor\n'
                         '      call: mluOpAbs(stream, grad, out)\n'
                         '      output: {like: grad}\n'
                         '    dtypes: [float32]\n')
    (tmp_path / "valid").mkdir()
    text = generated(tmp_path / "valid", spec)["custom_ops.cpp"]
    assert "// autograd of mlu::scale: gradients by mlu::scale_backward" in text
    assert "    return {grads, at::Tensor()};" in text
    saving_a_scalar = spec.replace("scale_backward(Tensor grad) -> Tensor", "scale_backward(Tensor grad, Scalar factor) "
                                   "-> Tensor").replace("mluOpAbs(stream, grad, out)", "mluOpDivScalar(stream, grad, factor, out)")
    assert_rejected(tmp_path, saving_a_scalar, 26, "backward argument 'factor' of type Scalar cannot be saved for the "
                    "backward (use Tensor, float, int or bool arguments)")


def test_a_call_naming_one_tensor_as_input_and_output_declares_it_once(tmp_path):
    spec = VALID_SPEC + '  zero_: {call: "mluOpMul(stream, self, self, self)"}\n'
    body = function(kernels(generated(tmp_path, spec)), "launch_zero_")
    assert body.count("  const auto self_arg = mlu_glue::describe(self);") == 1
    assert "  const mluRet_t status = mluOpMul(stream_arg, &self_arg, &self_arg, &self_arg);" in body


def test_a_variant_may_be_native_for_fewer_dtypes_than_its_overload(tmp_path):
    spec = VALID_SPEC.replace("    variants: [out, inplace]\n", "    variants: [out, {inplace: [float32]}]\n")
    files = generated(tmp_path, spec)
    rows = {row["name"]: row["dtypes"] for row in __import__("json").loads(files["support_matrix.json"])["ops"]}
    assert (rows["add.Tensor"]["float16"], rows["add.out"]["float16"], rows["add_.Tensor"]["float16"]) == (
        "native", "native", "fallback")
    assert rows["add_.Tensor"]["float32"] == "native"
    text = kernels(files)
    info = text[text.index("static const torch_fl::KernelInfo kOp_add__Tensor{"):]
    assert info.splitlines()[2] == "    torch_fl::dtype_set({c10::ScalarType::Float}),"


def test_a_declared_status_detail_is_what_a_failure_reports(tmp_path):
    # The op library's own detail, not the driver's last message (which may be stale).
    spec = VALID_SPEC.replace("message: mluGetErrorStr}", "message: mluGetErrorStr, detail: mlu_glue::last_detail}")
    emitted = kernels(generated(tmp_path, spec))
    assert "op.raise_vendor_error(static_cast<int64_t>(status), mluGetErrorStr(status), mlu_glue::last_detail());" \
        in emitted
    (tmp_path / "plain").mkdir()
    plain = kernels(generated(tmp_path / "plain", VALID_SPEC))
    assert "op.raise_vendor_error(static_cast<int64_t>(status), mluGetErrorStr(status));" in plain


def test_a_status_detail_that_is_not_a_function_name_is_refused(tmp_path):
    spec = VALID_SPEC.replace("message: mluGetErrorStr}", "message: mluGetErrorStr, detail: \"abort(); x\"}")
    assert_rejected(tmp_path, spec, 6, "sdk.status.detail")
