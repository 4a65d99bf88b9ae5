"""A spec's `fallback: error`, for a whole op and per dtype: what the generator
decides (the typed plan), what it emits for the runtime (the KernelInfo's policy
and error dtypes) and what the support matrix says. Checked on a spec generated
here, not on generated/ (the runtime's side is tests/cpp/op_context_test.cpp)."""
from __future__ import annotations

import json
import pathlib
import re

from cli import run_cli
from test_spec_errors import VALID_SPEC

ERROR_POLICIES = VALID_SPEC.replace(
    '  mm: {call: "mluOpMatMul(stream, self, mat2, out)"}\n',
    '  mm: {call: "mluOpMatMul(stream, self, mat2, out)", fallback: {default: cpu, float64: error, int32: error}}\n'
    '  bmm: {call: "mluOpBatchMatMul(stream, self, mat2, out)", fallback: error}\n')
assert ERROR_POLICIES != VALID_SPEC, "test_spec_errors.VALID_SPEC changed: update the entry replaced here"


def generate(tmp_path) -> dict[str, str]:
    spec = tmp_path / "policies.yaml"
    spec.write_text(ERROR_POLICIES)
    out = tmp_path / "out"
    run = run_cli("generate", "--vendor", "mlu", "--spec", str(spec), "--out", str(out))
    assert run.status == 0, run.stdout + run.stderr
    return {path.name: path.read_text() for path in out.iterdir()}


def kernel_info(files: dict[str, str], overload: str) -> str:
    """The KernelInfo block emitted for an overload (its five lines)."""
    code = "".join(text for name, text in files.items() if name.endswith(".cpp"))
    match = re.search(r"static const torch_fl::KernelInfo kOp_\w+\{\n    \"" + re.escape(overload) + r"\".*?\};",
                      code, re.S)
    assert match, f"no KernelInfo for {overload}"
    return match.group(0)


def test_per_dtype_error_is_emitted_for_the_runtime_and_reported_in_the_matrix(tmp_path):
    files = generate(tmp_path)
    info = kernel_info(files, "mm")
    assert "torch_fl::FallbackPolicy::kCpu" in info
    # the last dtype_set of the block lists the dtypes that raise instead of falling back
    assert info.rsplit("torch_fl::dtype_set(", 1)[1].startswith(
        "{c10::ScalarType::Double, c10::ScalarType::Int})"), info
    rows = {row["name"]: row for row in json.loads(files["support_matrix.json"])["ops"]}
    assert rows["mm"]["dtypes"]["float64"] == "error"
    assert rows["mm"]["dtypes"]["int32"] == "error"
    assert rows["mm"]["dtypes"]["int64"] == "fallback"
    assert rows["mm"]["dtypes"]["float32"] == "native"


def test_a_whole_op_error_policy_is_emitted_and_reported_for_every_non_native_dtype(tmp_path):
    files = generate(tmp_path)
    assert "torch_fl::FallbackPolicy::kError" in kernel_info(files, "bmm")
    rows = {row["name"]: row for row in json.loads(files["support_matrix.json"])["ops"]}
    assert rows["bmm"]["dtypes"]["float64"] == "error"
    assert rows["bmm"]["dtypes"]["float32"] == "native"
    assert rows["mm"]["dtypes"]["float64"] == "error" and rows["add.Tensor"]["dtypes"]["float64"] == "fallback"


HOOK_FALLBACK = 'm.impl("{op}", torch::CppFunction::makeFromBoxedFunction<&torch_fl::cpu_fallback>());'


def test_a_hook_op_missing_from_the_spec_is_registered_to_the_cpu_fallback(tmp_path):
    # ATen's own kernel for convolution_overrideable throws and outranks the boxed
    # fallback: without this registration conv2d could not run on such a device.
    code = "".join(text for name, text in generate(tmp_path).items() if name.startswith("kernels_shard"))
    for op in ("convolution_overrideable", "convolution_backward_overrideable"):
        assert code.count(HOOK_FALLBACK.format(op=op)) == 1, op


def test_a_hook_op_the_spec_has_keeps_its_own_kernel():
    from generated_output import GENERATED_DIR
    code = "".join(path.read_text() for path in pathlib.Path(GENERATED_DIR, "mlu").glob("kernels_shard*.cpp"))
    assert 'm.impl("convolution_overrideable", TORCH_FN(' in code
    assert HOOK_FALLBACK.format(op="convolution_overrideable") not in code
