"""Private formats in the spec (`formats:` and an op's `format:`): what the
generator emits for specs/npu.yaml's NC1HWC0, and how a malformed rule is
reported (file:line, the key at fault, a suggestion, nothing written)."""
from __future__ import annotations

import json
import re

from conftest import REPO_ROOT
from test_npu_conventions import NPU_SPEC, line_of, npu_shards, npu_spec_with
from codegen.pipeline import generate_files
from test_spec_errors import assert_rejected


def wrapper(shards: str, signature: str) -> str:
    body = shards[shards.index(signature):]
    return body[:body.index("\n}\n")]


def test_the_format_is_one_inline_object_per_program():
    shards = npu_shards()
    definitions = re.findall(r"inline const torch_fl::PrivateFormat format_NC1HWC0\{\n.*?\};", shards, re.S)
    assert definitions, "no shard defines the format its kernels use"
    assert len(set(definitions)) == 1, "every shard must define it identically (one inline variable)"
    assert "&npu_glue::to_nc1hwc0, &npu_glue::from_nc1hwc0, &npu_glue::nc1hwc0_sizes" in definitions[0]
    # ... and registers it by name where it defines it (torch.load finds a saved tensor's format by name).
    registration = "static const torch_fl::PrivateFormatRegistration register_NC1HWC0{format_NC1HWC0};"
    assert shards.count(registration) == len(definitions)


def test_a_maker_reads_its_argument_in_the_format_and_writes_its_result_in_it():
    conv = wrapper(npu_shards(), "at::Tensor wrap_convolution_overrideable(")
    assert 'op.check_input(input, "input", /*cpu_scalar_ok=*/true, &private_formats::format_NC1HWC0);' in conv
    # the weight is not in `takes`: made public if it ever were private
    assert 'op.check_input(weight, "weight", /*cpu_scalar_ok=*/true);' in conv
    assert re.search(r"const at::Tensor out = op\.allocate_in\(expected, private_formats::format_NC1HWC0\);", conv)


def test_a_keeper_writes_its_result_in_the_format_of_its_argument():
    shards = npu_shards()
    relu = wrapper(shards, "at::Tensor wrap_relu(")
    assert "op.allocate_like_keeping(self, private_formats::format_NC1HWC0)" in relu
    pool = wrapper(shards, "wrap_max_pool2d_with_indices(")
    assert pool.count("op.allocate_keeping(std::get<") == 2
    batch_norm = wrapper(shards, "wrap_native_batch_norm(")
    assert "op.allocate_keeping(std::get<0>(expected), input, private_formats::format_NC1HWC0)" in batch_norm
    assert "op.allocate(std::get<1>(expected))" in batch_norm, "statistics stay public"


def test_in_place_keeps_self_and_out_variants_are_public():
    shards = npu_shards()
    assert 'op.check_output(self, "self", /*is_operand=*/true, &private_formats::format_NC1HWC0);' in \
        wrapper(shards, "at::Tensor & wrap_relu_(")
    out_variant = wrapper(shards, "wrap_max_pool2d_with_indices_out(")
    assert "private_formats" not in out_variant, "a caller's out= tensor is public"


def test_ops_without_a_rule_make_every_argument_public():
    add = wrapper(npu_shards(), "at::Tensor wrap_add_Tensor(")
    assert "private_formats" not in add and 'op.check_input(self, "self", /*cpu_scalar_ok=*/true);' in add


def test_an_undeclared_format_is_named_with_the_declared_ones(tmp_path):
    spec = npu_spec_with("format: {name: NC1HWC0, takes: [self], keeps: [out]}",
                         "format: {name: NC1HWCO, takes: [self], keeps: [out]}")
    assert_rejected(tmp_path, spec, line_of(spec, "NC1HWCO"), "names format 'NC1HWCO'", "did you mean 'NC1HWC0'?")


def test_takes_must_name_a_tensor_argument(tmp_path):
    spec = npu_spec_with("format: {name: NC1HWC0, takes: [input], keeps: [out0]}",
                         "format: {name: NC1HWC0, takes: [inputs], keeps: [out0]}")
    assert_rejected(tmp_path, spec, line_of(spec, "takes: [inputs]"), "'native_batch_norm.format.takes' names "
                    "'inputs'", "did you mean 'input'?")


def test_makes_must_name_a_result(tmp_path):
    spec = npu_spec_with("format: {name: NC1HWC0, takes: [input], makes: [out]}",
                         "format: {name: NC1HWC0, takes: [input], makes: [output]}")
    assert_rejected(tmp_path, spec, line_of(spec, "makes: [output]"), "'convolution_overrideable.format.makes' names "
                    "'output', which is not a result", "did you mean 'out'?")


def test_keeps_needs_an_argument_to_keep_the_format_of(tmp_path):
    spec = npu_spec_with("format: {name: NC1HWC0, takes: [self], keeps: [out]}",
                         "format: {name: NC1HWC0, keeps: [out]}")
    assert_rejected(tmp_path, spec, line_of(spec, "format: {name: NC1HWC0, keeps"), "needs an argument in 'takes'",
                    "takes: [self], keeps: [out]")


def test_a_taken_argument_converts_with_the_formats_own_converter(tmp_path):
    spec = npu_spec_with("layout: {input: {convert: npu_glue::to_nc1hwc0}, weight: {convert: npu_glue::to_nc1hwc0, "
                         "reuse: true}}\n    format",
                         "layout: {input: {convert: npu_glue::to_blocked}, weight: {convert: npu_glue::to_nc1hwc0, "
                         "reuse: true}}\n    format")
    assert_rejected(tmp_path, spec, line_of(spec, "input: {convert: npu_glue::to_blocked}"),
                    "must convert with the NC1HWC0 format's to_private (npu_glue::to_nc1hwc0)",
                    "write `input: {convert: npu_glue::to_nc1hwc0}`")


def test_keeps_follows_exactly_one_argument(tmp_path):
    spec = npu_spec_with("format: {name: NC1HWC0, takes: [input], keeps: [out0]}",
                         "format: {name: NC1HWC0, takes: [input, weight], keeps: [out0]}")
    assert_rejected(tmp_path, spec, line_of(spec, "takes: [input, weight]"),
                    "'native_batch_norm.format.keeps' follows one argument, but 'takes' names 2",
                    "take only the argument whose format the results keep")


def test_a_rule_belongs_on_the_functional_entry(tmp_path):
    spec = npu_spec_with("  relu:\n    call: npunnRelu(self, out)\n    variants: [inplace]\n",
                         "  relu_:\n    call: npunnRelu(self, self)\n")
    assert_rejected(tmp_path, spec, line_of(spec, "format: {name: NC1HWC0, takes: [self], keeps: [out]}"),
                    "'relu_.format' is on an inplace overload", "put `format:` on the functional entry")


def test_a_format_declares_its_rank(tmp_path):
    spec = npu_spec_with("    rank: 4\n", "    rank: four\n")
    assert_rejected(tmp_path, spec, line_of(spec, "rank: four"), "'formats.NC1HWC0.rank' must be the public rank",
                    "e.g. `rank: 4`")


def test_format_functions_are_checked_as_cpp_names(tmp_path):
    spec = npu_spec_with("to_public: npu_glue::from_nc1hwc0", "to_public: 'npu_glue::from_nc1hwc0(); system(\"x\")'")
    assert_rejected(tmp_path, spec, line_of(spec, "to_public: 'npu_glue"), "'formats.NC1HWC0.to_public' must be a "
                    "C++ function name")


def test_unknown_keys_of_a_format_are_reported(tmp_path):
    spec = npu_spec_with("    physical_sizes: npu_glue::nc1hwc0_sizes\n",
                         "    physical_sizes: npu_glue::nc1hwc0_sizes\n    padding: 16\n")
    assert_rejected(tmp_path, spec, line_of(spec, "padding: 16"), "unknown key 'padding' in formats.NC1HWC0")


def test_the_support_matrix_says_which_ops_keep_the_format():
    files = generate_files(NPU_SPEC, REPO_ROOT)[1]
    rows = {row["name"]: row for row in json.loads(files["support_matrix.json"])["ops"]}
    assert rows["convolution_overrideable"]["format"] == {"name": "NC1HWC0", "takes": ["input"], "makes": ["out"],
                                                           "keeps": []}
    assert rows["relu_"]["format"]["takes"] == ["self"]
    assert "format" not in rows["max_pool2d_with_indices.out"], "out= overloads are public"
    assert "(format NC1HWC0: takes input; makes out)" in files["support_matrix.md"]
