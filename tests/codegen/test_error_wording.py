"""The exact words of the spec errors a vendor engineer reads: where (file:line:column),
the key or op at fault, what was expected, and a suggestion. A message that loses its
location, names the wrong thing or drops its suggestion fails here; a new message is
added with the words a reviewer agreed to."""
from __future__ import annotations

import pytest

from test_spec_errors import VALID_SPEC, run_codegen

V = VALID_SPEC
ADD = "    variants: [out, inplace]\n"

# name: (spec text, the errors after "broken.yaml:")
CASES = {
    "spec_not_mapping": ("- vendor\n- mlu\n",
        ["1:1: 'spec' must be a mapping"]),
    "sdk_not_mapping": (V.replace("sdk:\n  headers", "sdk: 3\nxsdk:\n  headers"),
        ["3:6: 'sdk' must be a mapping", "4:1: unknown key 'xsdk' in the spec (did you mean 'sdk'?)"]),
    "autocast_not_mapping": (V + "autocast: 3\n",
        ["20:11: 'autocast' must be a mapping"]),
    "missing_vendor": (V.replace("vendor: mlu\n", ""),
        ["1:1: missing 'vendor' (add `vendor: ...`)"]),
    "cast_not_mapping": (V.replace(ADD, ADD + "    cast: 3\n"),
        ["19:11: 'add.Tensor.cast' must map tensor arguments to dtypes (e.g. `cast: {indices: int32}`)"]),
    "output_invalid": (V.replace(ADD, ADD + "    output: 3\n"),
        ["19:13: invalid output rule for 'add.Tensor' (expected `meta`, `{like: <tensor argument>}`, `{rule: <C++ function>}` or `{rule: <C++ function>, count: <call argument>}`)"]),
    "variant_typo": (V.replace("variants: [out, inplace]", "variants: [out, inplac]"),
        ["18:21: unknown variant 'inplac' for op 'add.Tensor' (did you mean 'inplace'?)"]),
    "fallback_default_typo": (V.replace(ADD, ADD + "    fallback: {default: erorr}\n"),
        ["19:25: invalid fallback policy 'erorr' (did you mean 'error'?)"]),
    "converter_malformed": (V.replace("    Scalar: mlu_glue::scalar\n", "    Scalar: [1, 2]\n"),
        ["10:5: converter for 'Scalar' must be a function name or {fn, pass}"]),
    "headers_empty": (V.replace("headers: [vendors/mlu/sdk/mlu_ops.h]", "headers: []"),
        ['4:3: sdk.headers must list at least one header']),
    "version_max_bad": (V.replace(ADD, ADD + "    torch: {max: abc}\n"),
        ['19:18: invalid torch version \'abc\' for add.Tensor.torch.max (expected e.g. "2.13")']),
    "version_swapped": (V.replace(ADD, ADD + "    torch: {min: '2.14', max: '2.13'}\n"),
        ["19:12: version gate of 'add.Tensor' has max 2.13 < min 2.14 (swap them)"]),
    "version_not_scalar": (V.replace(ADD, ADD + "    torch: {min: [2, 13]}\n"),
        ['19:18: invalid torch version \'\' for add.Tensor.torch.min (expected e.g. "2.13")']),
    "autocast_twice": (V + "autocast:\n  fp32: [mm]\n  lower_precision_fp: [mm]\n",
        ["21:10: 'mm' has two autocast policies (lower_precision_fp and fp32) (keep one)"]),
    "stream_converter_bad": (V.replace("stream: mlu_glue::queue_of", "stream: 'not a function'"),
        ["7:11: 'sdk.stream' must be a C++ function name, got 'not a function' (e.g. mlu_glue::describe)"]),
    "guard_long": (V.replace(ADD, ADD + "    when: \"" + " and ".join(["self.dim() == 2"] * 40) + "\"\n"),
        ['19:11: guard is longer than 500 characters (a guard is a short condition; split the entry instead)']),
    "guard_minus": (V.replace(ADD, ADD + "    when: \"-self > 0\"\n"),
        ["19:11: '-' applies to numbers, not to 'self' (write a condition over the op's arguments, e.g. `input.dim() == 4`)"]),
    "guard_compare": (V.replace(ADD, ADD + "    when: \"self.dim() in other\"\n"),
        ["19:11: unsupported comparison 'self.dim() in other' in guard (compare with == != < <= > >=, or test `x is None`)"]),
    "guard_comparable": (V.replace(ADD, ADD + "    when: \"self < 2\"\n"),
        ["19:11: 'self < 2' compares 'self' (Tensor) with '2' (int) ('self' cannot be compared with <: guards compare int and float values (dim(), size(i), int arguments, ...), and bool or dtype values with == and !=)"]),
    "guard_optional_call": (V.replace(ADD, ADD + "    when: \"alpha.dim() == 2\"\n"),
        ["19:11: 'alpha.dim()': 'alpha' (Scalar) is not a Tensor (methods apply to Tensor arguments)"]),
    "custom_backward_not_mapping": (V + "custom:\n  scale:\n    schema: scale(Tensor input) -> Tensor\n    call: mluOpAbs(stream, input, out)\n    output: {like: input}\n    backward: 3\n",
        ["25:15: 'scale.backward' must be a mapping"]),
    "launch_names_workspace_no_query": (V.replace("mluOpAdd(stream, self, other, alpha, out)", "mluOpAdd(stream, self, other, alpha, workspace, out)"),
        ['17:11: \'add.Tensor\' passes a workspace, but the SDK declares no workspace convention (add `workspace_query: "{function}GetWorkspaceSize"` under sdk)']),
    "no_output_rule": (V + "  nonzero: {call: \"mluOpAbs(stream, self, out)\"}\n",
        ["20:3: 'nonzero' has no C++ meta function to size its output (declare `output: {like: <tensor argument>}` or `output: {rule: <C++ function>}`)"]),
    "autograd_on_backward_op": (V + "  tanh_backward: {call: \"mluOpAbs(stream, grad_output, out)\", autograd: decomposition}\n",
        ["20:3: 'tanh_backward' is not CompositeImplicitAutograd: its autograd comes from PyTorch's own formula (remove `autograd`)"]),
    "variants_not_apply": (V.replace("mm: {call: \"mluOpMatMul(stream, self, mat2, out)\"}", "mm: {call: \"mluOpMatMul(stream, self, mat2, out)\", variants: [inplace]}"),
        ["19:3: 'mm' has no inplace variant in ATen (remove 'inplace' from its variants)"]),
    'variant_widens': (V.replace(ADD, "    variants: [out, {inplace: [float32, int64]}]\n"),
        ["18:21: 'add.Tensor.variants.inplace' lists int64, which 'add.Tensor' does not declare (a variant may narrow "
         "its overload's dtypes, not widen them)"]),
    'variant_twice': (V.replace(ADD, "    variants: [out, {out: [float32]}]\n"),
        ["18:21: variant 'out' of 'add.Tensor' is listed twice (keep one)"]),
    'variant_malformed': (V.replace(ADD, "    variants: [out, [inplace]]\n"),
        ["18:21: each entry of 'add.Tensor.variants' must be a variant name, or a variant with its dtypes "
         "(e.g. `variants: [out, {inplace: [float32, float16]}]`)"]),
    "guard_is_not_none": (V.replace(ADD, ADD + "    when: \"self.dim() is 2\"\n"),
        ["19:11: 'self.dim() is 2': `is` only tests for None (write a condition over the op's arguments, e.g. `input.dim() == 4`)"]),
    "guard_string_literal": (V.replace(ADD, ADD + "    when: \"self.dim() == 'two'\"\n"),
        ["19:11: unsupported constant ''two'' in guard (a guard compares numbers and true/false (None only in `x is None`))"]),
    "include_not_text": ("include: [3]\n" + V,
        ['1:11: each include must be a path relative to the spec']),
    "query_not_declared": (V.replace("  stream: mlu_glue::queue_of\n", "  stream: mlu_glue::queue_of\n  workspace_query: \"{function}WorkspaceBytes\"\n").replace("mluOpAdd(stream, self, other, alpha, out)", "mluOpAdd(stream, self, other, alpha, workspace, out)"),
        ["18:11: workspace query 'mluOpAddWorkspaceBytes' of 'add.Tensor' is not declared in vendors/mlu/sdk/mlu_ops.h (did you mean 'mluOpCumsumGetWorkspaceSize'?)"]),
    "decomposition_with_variants": (V + "  linear: {call: \"mluOpLinear(stream, input, weight, bias, out)\", autograd: decomposition, variants: [out]}\n",
        ["20:3: 'linear': `autograd: decomposition` supports a functional overload without variants whose decomposition takes no SymInt (list the ops it decomposes into instead)"]),
    "yaml_tag": (V.replace("vendor: mlu", "vendor: !!binary bWx1"),
        ["1:9: YAML tag '!!binary' is not allowed in a spec (write plain values: specs use text, numbers, true/false, lists and mappings)"]),
    "empty_spec": ("",
        ['1:1: the spec is empty']),
    "custom_not_mapping": (V + "custom:\n  scale: 3\n",
        ["21:3: custom op 'scale' must be a mapping with 'schema' and 'call'"]),
    "op_without_call": (V.replace('  mm: {call: "mluOpMatMul(stream, self, mat2, out)"}', '  mm: {dtypes: [float32]}'),
        ["19:3: op 'mm' has neither 'call' nor 'fallback' (add `call: sdkFunction(...)` or `fallback: cpu`)"]),
    "variant_widens_two": (V.replace(ADD, "    variants: [out, {inplace: [float32, int64, int32]}]\n"),
        ["18:21: 'add.Tensor.variants.inplace' lists int64, int32, which 'add.Tensor' does not declare (a variant may narrow its overload's dtypes, not widen them)"]),
    "two_phase_unknown_key": (V.replace("  stream: mlu_glue::queue_of\n", "  stream: mlu_glue::queue_of\n  two_phase: {query: \"{function}GetWorkspaceSize\", executor: npuExecutor*, exector: x}\n"),
        ["8:76: unknown key 'exector' in sdk.two_phase (did you mean 'executor'?)"]),
    "sdk_unknown_key": (V.replace("  glue: vendors", "  glu: vendors"),
        ["4:3: missing 'sdk.glue' (add `glue: ...`)", "5:3: unknown key 'glu' in sdk (did you mean 'glue'?)"]),
    "variants_not_list": (V.replace(ADD, "    variants: {inplace: 1}\n"),
        ["18:15: 'add.Tensor.variants' must be a list"]),
    "variants_two_unknown": (V.replace(ADD, "    variants: [outt, inplac]\n"),
        ["18:16: unknown variant 'outt' for op 'add.Tensor' (did you mean 'out'?)", "18:22: unknown variant 'inplac' for op 'add.Tensor' (did you mean 'inplace'?)"]),
    "fallback_not_scalar": (V.replace(ADD, ADD + "    fallback: [cpu]\n"),
        ["19:15: invalid fallback policy '<non-scalar>' (expected one of: cpu, error)"]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_error_reads(tmp_path, name):
    spec_text, expected = CASES[name]
    result, out_dir = run_codegen(tmp_path, spec_text)
    assert result.returncode == 2, result.stderr
    errors = [line.split("broken.yaml:", 1)[1] for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert errors == expected
    assert result.stderr.endswith(f"{len(expected)} error(s); nothing was written\n")


@pytest.mark.parametrize("data, expected", [
    (b"\xff\xfe" + "vendor: mlu\n".encode("utf-16-le"), "1:1: the file is UTF-16 text; specs are UTF-8 (save it as UTF-8)"),
    (b"vendor: mlu\ndevice: ml\xffu\n",
     "2:11: not valid UTF-8: byte 0xff at offset 22 (specs are UTF-8 text: save the file as UTF-8)"),
], ids=["utf-16", "not utf-8"])
def test_an_encoding_error_reads(tmp_path, data, expected):
    from cli import run_cli
    spec = tmp_path / "broken.yaml"
    spec.write_bytes(data)
    (tmp_path / "out").mkdir()
    run = run_cli("generate", "--vendor", "mlu", "--spec", str(spec), "--out", str(tmp_path / "out"))
    assert run.status == 2
    assert [line.split("broken.yaml:", 1)[1] for line in run.error_lines] == [expected]
