"""The spec-language capabilities the NPU needed, as any vendor sees them:
two-phase SDK calls with an executor, reused layout conversions, and per-
argument dtype casts. Checked on specs/npu.yaml's generated code and on
malformed variants of it."""
from __future__ import annotations

import os
import re

from conftest import REPO_ROOT
from test_spec_errors import assert_rejected

from codegen.pipeline import generate_files

NPU_SPEC = os.path.join(REPO_ROOT, "specs", "npu.yaml")


def npu_shards() -> str:
    """The kernels the generator emits for specs/npu.yaml now (not the checked-in copy:
    test_generator_output compares the two)."""
    files = generate_files(NPU_SPEC, REPO_ROOT)[1]
    return "".join(text for name, text in files.items() if name.startswith("kernels_shard"))


def launch_of(shards: str, op: str) -> str:
    match = re.search(rf"static void launch_{op}\(.*?\n}}\n", shards, re.S)
    assert match, op
    return match.group(0)


def test_every_call_is_query_then_execute_with_the_executor():
    mm = launch_of(npu_shards(), "mm")
    query = mm.index("npunnMmGetWorkspaceSize(self_arg, mat2_arg, out_arg, &workspace_bytes, &executor)")
    workspace = mm.index("op.workspace(workspace_bytes)")
    execute = mm.index("npunnMm(op.data(workspace), workspace_bytes, executor, npu_glue::stream_of(op.stream()))")
    assert query < workspace < execute


def test_reused_conversion_goes_through_the_runtime_cache_and_the_other_does_not():
    shards = npu_shards()
    conv = shards[shards.index("wrap_convolution_overrideable("):]
    conv = conv[:conv.index("\n}\n")]
    assert re.search(r'weight_laid = op\.converted\(\*?weight\w*, "npu_glue::to_nc1hwc0", &npu_glue::to_nc1hwc0\)', conv)
    # The input is in the NC1HWC0 format's `takes`: converted unless already in it (test_private_formats).
    assert re.search(r"input_laid = torch_fl::laid_out_in\(\*?input\w*, private_formats::format_NC1HWC0\)", conv)
    assert "launch_convolution_overrideable(op, input_laid, weight_laid," in conv


def test_cast_rule_converts_the_argument_before_the_launch():
    shards = npu_shards()
    wrapper = shards[shards.index("at::Tensor wrap_index_select("):]
    wrapper = wrapper[:wrapper.index("\n}\n")]
    assert re.search(r"index_as_int32 = op\.cast\(\*?index\w*, c10::ScalarType::Int\);", wrapper)
    assert re.search(r"launch_index_select\(op, \*?self\w*, dim, index_as_int32, out\)", wrapper)


def npu_spec_with(old: str, new: str) -> str:
    text = open(NPU_SPEC).read().replace("include: [common/autocast.yaml]\n", "")
    assert old in text
    return text.replace(old, new)


def line_of(text: str, fragment: str) -> int:
    return text[:text.index(fragment)].count("\n") + 1


def test_a_two_phase_call_must_not_name_the_stream(tmp_path):
    spec = npu_spec_with('npunnMm(self, mat2, out)', 'npunnMm(stream, self, mat2, out)')
    assert_rejected(tmp_path, spec, line_of(spec, "npunnMm(stream"),
                    "'mm' names 'stream'", "remove 'stream' from the call")


def test_a_cast_must_name_a_tensor_argument(tmp_path):
    spec = npu_spec_with("cast: {index: int32}", "cast: {indexes: int32}")
    assert_rejected(tmp_path, spec, line_of(spec, "indexes: int32"),
                    "cast rule names 'indexes'", "did you mean 'index'?")


def test_a_cast_dtype_must_exist(tmp_path):
    spec = npu_spec_with("cast: {index: int32}", "cast: {index: int23}")
    assert_rejected(tmp_path, spec, line_of(spec, "int23"), "unknown dtype 'int23'", "did you mean 'int32'?")


def test_reuse_must_be_a_boolean(tmp_path):
    spec = npu_spec_with("weight: {convert: npu_glue::to_nc1hwc0, reuse: true}}",
                         "weight: {convert: npu_glue::to_nc1hwc0, reuse: always}}")
    assert_rejected(tmp_path, spec, line_of(spec, "reuse: always"), "reuse' must be true or false")
