"""Malformed specs: each error class is reported at file:line:column with what
was expected (and a suggestion where one exists), the CLI exits with status 2,
and nothing is written."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap


from dataclasses import dataclass

from cli import run_cli
from codegen.spec_model import VersionGate
from conftest import REPO_ROOT

VALID_SPEC = textwrap.dedent("""\
    vendor: mlu
    device: mlu
    sdk:
      headers: [vendors/mlu/sdk/mlu_ops.h]
      glue: vendors/mlu/sdk/mlu_glue.h
      status: {type: mluRet_t, ok: MLU_RET_SUCCESS, message: mluGetErrorStr}
      stream: mlu_glue::queue_of
      converters:
        Tensor: {fn: mlu_glue::describe, pass: pointer}
        Scalar: mlu_glue::scalar
        int[]?: mlu_glue::int_list
    defaults:
      dtypes: [float32, float16]
      fallback: cpu
    ops:
      add.Tensor:
        call: mluOpAdd(stream, self, other, alpha, out)
        variants: [out, inplace]
      mm: {call: "mluOpMatMul(stream, self, mat2, out)"}
    """)


@dataclass(frozen=True)
class Generation:
    returncode: int
    stdout: str
    stderr: str


def run_codegen(tmp_path, spec_text: str) -> tuple[Generation, str]:
    """`python -m codegen generate` on spec_text, in this process (so that a mutation
    tool sees which generator code the test ran; test_cli_exit_status runs the real
    command line)."""
    spec = tmp_path / "broken.yaml"
    spec.write_text(spec_text)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    (out_dir / "sentinel.txt").write_text("untouched")
    run = run_cli("generate", "--vendor", "mlu", "--spec", str(spec), "--out", str(out_dir))
    return Generation(run.status, run.stdout, run.stderr), str(out_dir)


def assert_rejected(tmp_path, spec_text: str, line: int, *fragments: str) -> str:
    result, out_dir = run_codegen(tmp_path, spec_text)
    assert result.returncode == 2, result.stdout + result.stderr
    assert os.listdir(out_dir) == ["sentinel.txt"], "a rejected spec must write nothing"
    assert f"broken.yaml:{line}:" in result.stderr, result.stderr
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr
    return result.stderr


def test_valid_spec_generates(tmp_path):
    result, out_dir = run_codegen(tmp_path, VALID_SPEC)
    assert result.returncode == 0, result.stderr
    assert "support_matrix.json" in os.listdir(out_dir)
    assert "sentinel.txt" not in os.listdir(out_dir), "the output directory is exactly what the spec produces"


def test_unknown_overload_suggests_the_closest(tmp_path):
    assert_rejected(tmp_path, VALID_SPEC.replace("add.Tensor:", "add.Tensr:"), 16,
                    "unknown ATen overload 'add.Tensr'", "did you mean 'add.Tensor'?")


def test_unknown_key_in_an_op(tmp_path):
    assert_rejected(tmp_path, VALID_SPEC.replace("    variants:", "    variantz:"), 18,
                    "unknown key 'variantz'", "did you mean 'variants'?")


def test_unknown_top_level_key(tmp_path):
    assert_rejected(tmp_path, VALID_SPEC + "opps: {}\n", 20, "unknown key 'opps'", "did you mean 'ops'?")


def test_call_argument_that_names_no_parameter(tmp_path):
    assert_rejected(tmp_path, VALID_SPEC.replace("self, other, alpha, out", "self, othr, alpha, out"), 17,
                    "call argument 'othr' names no parameter of 'add.Tensor'", "did you mean 'other'?")


def test_unknown_dtype(tmp_path):
    assert_rejected(tmp_path, VALID_SPEC.replace("[float32, float16]", "[float32, flaot16]"), 13,
                    "unknown dtype 'flaot16'", "did you mean 'float16'?")


def test_duplicate_op(tmp_path):
    assert_rejected(tmp_path, VALID_SPEC + '  mm: {call: "mluOpMatMul(stream, self, mat2, out)"}\n', 20,
                    "duplicate key 'mm'", "first defined at line 19")


def test_variant_registered_twice(tmp_path):
    spec = VALID_SPEC + '  add_.Tensor: {call: "mluOpAdd(stream, self, other, alpha, self)"}\n'
    assert_rejected(tmp_path, spec, 20, "'add_.Tensor' is registered twice")


def test_sdk_symbol_not_declared_in_the_headers(tmp_path):
    assert_rejected(tmp_path, VALID_SPEC.replace("mluOpMatMul(", "mluOpMatMull("), 19,
                    "SDK function 'mluOpMatMull' is not declared", "did you mean 'mluOpMatMul'?")


def test_argument_type_without_converter(tmp_path):
    assert_rejected(tmp_path, VALID_SPEC.replace("    Scalar: mlu_glue::scalar\n", ""), 16,
                    "no converter for ATen type 'Scalar'")


def test_variant_that_does_not_exist(tmp_path):
    assert_rejected(tmp_path, VALID_SPEC.replace('mm: {call: "mluOpMatMul(stream, self, mat2, out)"}',
                                                 'mm: {call: "mluOpMatMul(stream, self, mat2, out)", variants: [inplace]}'),
                    19, "'mm' has no inplace variant")


def test_an_out_form_sized_like_an_argument_is_refused(tmp_path):
    # No meta function would check the caller's out= tensors.
    assert_rejected(tmp_path, VALID_SPEC.replace('mm: {call: "mluOpMatMul(stream, self, mat2, out)"}',
                                                 'mm: {call: "mluOpMatMul(stream, self, mat2, out)", variants: [out], '
                                                 'output: {like: self}}'),
                    19, "'mm' sizes its output like a tensor argument: its out= form has no meta function")


def test_composite_implicit_op_cannot_be_native(tmp_path):
    spec = VALID_SPEC + '  linear: {call: "mluOpMatMul(stream, input, weight, out)"}\n'
    assert_rejected(tmp_path, spec, 20, "'linear' is CompositeImplicitAutograd")


def test_malformed_call(tmp_path):
    assert_rejected(tmp_path, VALID_SPEC.replace('"mluOpMatMul(stream, self, mat2, out)"', '"mluOpMatMul stream"'),
                    19, "malformed call 'mluOpMatMul stream'")


def test_wrong_type_for_a_key(tmp_path):
    assert_rejected(tmp_path, VALID_SPEC.replace("variants: [out, inplace]", "variants: out"), 18,
                    "'add.Tensor.variants' must be a list")


def test_invalid_fallback_policy(tmp_path):
    assert_rejected(tmp_path, VALID_SPEC.replace("fallback: cpu", "fallback: cpuu"), 14,
                    "invalid fallback policy 'cpuu'", "did you mean 'cpu'?")


def test_yaml_syntax_error(tmp_path):
    assert_rejected(tmp_path, VALID_SPEC.replace("mm: {call:", "mm: {call: [[["), 19, "YAML syntax error")


def test_every_error_is_reported_in_one_run(tmp_path):
    spec = VALID_SPEC.replace("add.Tensor:", "add.Tensr:").replace("mluOpMatMul(", "mluOpMatMull(")
    stderr = assert_rejected(tmp_path, spec, 16, "add.Tensr", "mluOpMatMull")
    assert "2 error(s); nothing was written" in stderr


# --- spec language v1 features ---------------------------------------------

CUSTOM = textwrap.dedent("""\
    custom:
      rms_norm:
        schema: rms_norm(Tensor input, Tensor weight, float eps=1e-06) -> Tensor
        call: mluOpRmsNorm(stream, input, weight, eps, out)
        output: {like: input}
        backward:
          grads: [input, weight]
          schema: rms_norm_backward(Tensor grad, Tensor input, Tensor weight, float eps) -> (Tensor, Tensor)
          call: mluOpRmsNormBackward(stream, grad, input, weight, eps, out0, out1)
          output: {like: [input, weight]}
    """)


def test_valid_custom_op_generates(tmp_path):
    result, out_dir = run_codegen(tmp_path, VALID_SPEC + CUSTOM)
    assert result.returncode == 0, result.stderr
    assert "custom_ops.cpp" in os.listdir(out_dir)


def test_custom_schema_that_does_not_parse(tmp_path):
    spec = VALID_SPEC + CUSTOM.replace("rms_norm(Tensor input, Tensor weight, float eps=1e-06) -> Tensor",
                                       "rms_norm(Tensor input, Tensor weight, float eps=1e-06 -> Tensor")
    assert_rejected(tmp_path, spec, 22, "custom schema", "does not parse")


def test_backward_without_grads(tmp_path):
    spec = VALID_SPEC + CUSTOM.replace("      grads: [input, weight]\n", "")
    assert_rejected(tmp_path, spec, 26, "'rms_norm.backward' has no grads", "list the forward arguments")


def test_backward_grad_that_is_not_an_argument(tmp_path):
    spec = VALID_SPEC + CUSTOM.replace("grads: [input, weight]", "grads: [input, wieght]")
    assert_rejected(tmp_path, spec, 26, "backward grad 'wieght' is not a tensor argument", "did you mean 'weight'?")


def test_unknown_converter(tmp_path):
    spec = VALID_SPEC.replace("Scalar: mlu_glue::scalar", "Scalar: mlu_glue::scalr")
    assert_rejected(tmp_path, spec, 10, "unknown converter 'mlu_glue::scalr'", "did you mean 'scalar'?")


def test_guard_naming_no_argument(tmp_path):
    spec = VALID_SPEC.replace('  mm: {call: "mluOpMatMul(stream, self, mat2, out)"}',
                              '  mm: {call: "mluOpMatMul(stream, self, mat2, out)", when: "input.dim() == 2"}')
    assert_rejected(tmp_path, spec, 19, "guard names 'input', which is not an argument")


def test_guard_that_is_not_a_condition(tmp_path):
    spec = VALID_SPEC.replace('  mm: {call: "mluOpMatMul(stream, self, mat2, out)"}',
                              '  mm: {call: "mluOpMatMul(stream, self, mat2, out)", when: "self.dim( =="}')
    assert_rejected(tmp_path, spec, 19, "is not a valid condition")


def test_version_gate_with_max_below_min(tmp_path):
    spec = VALID_SPEC.replace('  mm: {call: "mluOpMatMul(stream, self, mat2, out)"}',
                              '  mm: {call: "mluOpMatMul(stream, self, mat2, out)", torch: {min: "2.14", max: "2.12"}}')
    assert_rejected(tmp_path, spec, 19, "max 2.12 < min 2.14")


def test_unquoted_version_is_refused(tmp_path):
    spec = VALID_SPEC.replace('  mm: {call: "mluOpMatMul(stream, self, mat2, out)"}',
                              '  mm: {call: "mluOpMatMul(stream, self, mat2, out)", torch: {min: 2.10}}')
    assert_rejected(tmp_path, spec, 19, "must be quoted", 'write "2.1"')


def test_version_gate_excluding_this_torch_skips_the_op(tmp_path):
    spec = VALID_SPEC.replace('  mm: {call: "mluOpMatMul(stream, self, mat2, out)"}',
                              '  mm: {call: "mluOpMatMul(stream, self, mat2, out)", torch: {min: "9.0"}}')
    result, out_dir = run_codegen(tmp_path, spec)
    assert result.returncode == 0, result.stderr
    import json
    matrix = json.load(open(os.path.join(out_dir, "support_matrix.json")))
    assert [g["name"] for g in matrix["gated"]] == ["mm"]
    assert "mm" not in {row["name"] for row in matrix["ops"]}


def test_a_version_gate_compares_major_and_minor_and_ignores_the_patch():
    from_2_14 = VersionGate((2, 14), None, None)
    assert not from_2_14.admits((2, 13, 0)) and from_2_14.admits((2, 14, 1)) and from_2_14.admits((3, 0))
    up_to_2_13 = VersionGate(None, (2, 13), None)
    assert up_to_2_13.admits((2, 13, 9)) and not up_to_2_13.admits((2, 14, 0)) and not up_to_2_13.admits((3, 1))
    assert str(VersionGate((2, 13), (2, 15), None)) == "torch >=2.13,<=2.15"


def test_a_gate_one_minor_release_away_excludes_the_op(tmp_path):
    import torch
    major, minor = (int(part) for part in torch.__version__.split(".")[:2])
    spec = VALID_SPEC.replace('  mm: {call: "mluOpMatMul(stream, self, mat2, out)"}',
                              f'  mm: {{call: "mluOpMatMul(stream, self, mat2, out)", torch: {{min: "{major}.{minor + 1}"}}}}')
    result, out_dir = run_codegen(tmp_path, spec)
    assert result.returncode == 0, result.stderr
    import json
    matrix = json.load(open(os.path.join(out_dir, "support_matrix.json")))
    assert [g["name"] for g in matrix["gated"]] == ["mm"]


def test_cli_exit_status(tmp_path):
    """The real command line: status 2 for a spec error, the message on stderr."""
    spec = tmp_path / "broken.yaml"
    spec.write_text(VALID_SPEC.replace("fallback: cpu", "fallback: cpuu"))
    result = subprocess.run([sys.executable, "-m", "codegen", "generate", "--vendor", "mlu", "--spec", str(spec),
                             "--out", str(tmp_path / "out")], cwd=REPO_ROOT, capture_output=True, text=True)
    assert result.returncode == 2 and "broken.yaml:14:" in result.stderr, result.stderr
    assert not (tmp_path / "out").exists()


def test_unknown_layout_rule(tmp_path):
    spec = VALID_SPEC.replace('  mm: {call: "mluOpMatMul(stream, self, mat2, out)"}',
                              '  mm: {call: "mluOpMatMul(stream, self, mat2, out)", layout: {self: channel_last}}')
    assert_rejected(tmp_path, spec, 19, "invalid layout rule 'channel_last'", "did you mean 'channels_last'?")


def test_unknown_dtype_in_a_per_dtype_fallback(tmp_path):
    spec = VALID_SPEC.replace('  mm: {call: "mluOpMatMul(stream, self, mat2, out)"}',
                              '  mm: {call: "mluOpMatMul(stream, self, mat2, out)", fallback: {default: cpu, flaot64: error}}')
    assert_rejected(tmp_path, spec, 19, "unknown dtype 'flaot64'", "did you mean 'float64'?")


def test_unknown_autocast_op(tmp_path):
    spec = VALID_SPEC + "autocast: {lower_precision_fp: [mm, adddmm]}\n"
    assert_rejected(tmp_path, spec, 20, "unknown ATen overload 'adddmm' in autocast.lower_precision_fp",
                    "did you mean 'addmm'?")


def test_missing_include(tmp_path):
    assert_rejected(tmp_path, "include: [common/nothere.yaml]\n" + VALID_SPEC, 1, "included spec 'common/nothere.yaml' not found")


def test_composite_implicit_op_needs_an_autograd_decision(tmp_path):
    spec = VALID_SPEC + '  linear: {call: "mluOpMatMul(stream, input, weight, out)"}\n'
    assert_rejected(tmp_path, spec, 20, "CompositeImplicitAutograd")


def test_workspace_without_a_convention(tmp_path):
    spec = VALID_SPEC.replace('  mm: {call: "mluOpMatMul(stream, self, mat2, out)"}',
                              '  cumsum: {call: "mluOpCumsum(stream, self, dim, workspace, out)"}')
    assert_rejected(tmp_path, spec, 19, "passes a workspace, but the SDK declares no workspace convention")


def test_workspace_query_not_in_the_headers(tmp_path):
    spec = VALID_SPEC.replace("  stream: mlu_glue::queue_of\n",
                              '  stream: mlu_glue::queue_of\n  workspace_query: "{function}WorkspaceBytes"\n')
    spec = spec.replace('  mm: {call: "mluOpMatMul(stream, self, mat2, out)"}',
                        '  cumsum: {call: "mluOpCumsum(stream, self, dim, workspace, out)"}')
    assert_rejected(tmp_path, spec, 20, "workspace query 'mluOpCumsumWorkspaceBytes'", "is not declared")


def test_unknown_autograd_policy(tmp_path):
    spec = VALID_SPEC + '  linear: {call: "mluOpLinear(stream, input, weight, bias, out)", autograd: decompostion}\n'
    assert_rejected(tmp_path, spec, 20, "unknown autograd policy 'decompostion'", "did you mean 'decomposition'?")


def test_check_without_a_vendor_checks_every_spec():
    from cli import run_cli as run
    result = run("check")
    vendors = sorted(name[:-len(".yaml")] for name in os.listdir(os.path.join(REPO_ROOT, "specs"))
                     if name.endswith(".yaml"))
    assert len(vendors) >= 2
    # "generated/mlu: up to date", or "generated/mlu is out of date: ..." under another torch
    checked = [line.split()[0].rstrip(":") for line in result.stdout.splitlines() + result.stderr.splitlines()
               if line.startswith("generated/")]
    assert sorted(path.split("/")[1] for path in checked) == vendors, result.stdout + result.stderr
