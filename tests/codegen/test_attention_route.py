"""Fused attention from the spec (attention_route, emit_attention): declaring
`_scaled_dot_product_fused_attention_overrideable` registers SDPA's choice for the
device, answering from the forward kernel's own checks; the pair's rules (the
backward too, `fallback: error`, numbers only from an output rule) are reported
at the entry. The runtime's side is tests/python/test_fused_attention.py."""
from __future__ import annotations

import pathlib
import re

from test_spec_errors import VALID_SPEC, assert_rejected, run_codegen

FORWARD = """\
  _scaled_dot_product_fused_attention_overrideable:
    call: mluOpFusedAttention(stream, query, key, value, attn_bias, is_causal, mlu_glue::optional_float(scale), output, logsumexp)
    output: {rule: torch_fl::output_rules::fused_attention}
    dtype_from: query
    fallback: error
    when: query.dim() == 4 and dropout_p == 0.0
"""
BACKWARD = """\
  _scaled_dot_product_fused_attention_overrideable_backward:
    call: mluOpFusedAttentionBackward(stream, grad_out, query, key, value, attn_bias, logsumexp, is_causal, mlu_glue::optional_float(scale), grad_query, grad_key, grad_value, grad_attn_bias)
    output: {rule: torch_fl::output_rules::fused_attention_backward}
    dtype_from: query
    fallback: error
"""
BASE = VALID_SPEC.replace("    int[]?: mlu_glue::int_list\n",
                          "    int[]?: mlu_glue::int_list\n    Tensor?: {fn: mlu_glue::describe_optional, pass: pointer}\n")
assert BASE != VALID_SPEC, "test_spec_errors.VALID_SPEC changed: update the converters added here"
FORWARD_LINE = BASE.count("\n") + 1  # the forward entry is appended right after the base spec


def generated_code(tmp_path, spec_text: str) -> str:
    result, out_dir = run_codegen(tmp_path, spec_text)
    assert result.returncode == 0, result.stderr
    return "".join(path.read_text() for path in sorted(pathlib.Path(out_dir).glob("*.cpp")))


def function(code: str, signature_start: str) -> str:
    match = re.search(re.escape(signature_start) + r".*?\n}\n", code, re.S)
    assert match, f"no function starting {signature_start!r}"
    return match.group(0)


def test_the_choice_is_registered_and_asks_the_forward_kernels_checks(tmp_path):
    code = generated_code(tmp_path, BASE + FORWARD + BACKWARD)
    assert "#include <torch_fl/sdp_choice.h>" in code
    accepts = function(code, "bool fused_attention_accepts(")
    # The wrapper's own dtype decision and `when:`, answering false instead of falling back.
    assert "OpContext op(kOp__scaled_dot_product_fused_attention_overrideable, " \
           "torch_fl::OpContext::Purpose::kProbe);" in accepts  # logs "asked, not run", records nothing
    assert 'op.dtype_is_native(query, "query")' in accepts
    assert "query.dim() == 4 && dropout_p == 0.0" in accepts
    assert "fallback_to_cpu" not in accepts and accepts.count("return false;") == 2
    choice = function(code, "int64_t choose_sdp_backend(")
    assert "torch_fl::same_head_count(query, key, value)" in choice
    assert "fused_attention_accepts(query, key, value, attn_mask, dropout_p, is_causal," in choice
    assert f'broken.yaml:{FORWARD_LINE}");' in choice and "torch_fl::sdp_backend_choice(accepted, " in choice
    assert "torch_fl::SdpChoiceRegistration register_sdp_choice{&choose_sdp_backend};" in code


def test_number_results_come_from_the_output_rule_and_are_returned_as_they_are(tmp_path):
    code = generated_code(tmp_path, BASE + FORWARD + BACKWARD)
    wrapper = function(code, "::std::tuple<at::Tensor,at::Tensor,at::Tensor,at::Tensor,c10::SymInt,c10::SymInt")
    assert "const auto max_q = std::get<4>(expected);" in wrapper
    assert "const auto max_k = std::get<5>(expected);" in wrapper
    assert "op.allocate(std::get<4>" not in wrapper and "op.allocate(std::get<1>(expected))" in wrapper
    assert "return std::make_tuple(output, logsumexp, cum_seq_q, cum_seq_k, max_q, max_k," in wrapper


def test_no_choice_without_a_fused_forward(tmp_path):
    assert "choose_sdp_backend" not in generated_code(tmp_path, VALID_SPEC)


def test_the_forward_without_its_backward_is_rejected(tmp_path):
    assert_rejected(tmp_path, BASE + FORWARD, FORWARD_LINE,
                    "declared without '_scaled_dot_product_fused_attention_overrideable_backward'",
                    "declare '_scaled_dot_product_fused_attention_overrideable_backward' as well")


def test_a_cpu_fallback_policy_is_rejected_for_the_hooks(tmp_path):
    spec = BASE + FORWARD.replace("    fallback: error\n", "") + BACKWARD
    assert_rejected(tmp_path, spec, FORWARD_LINE, "has no CPU kernel to fall back to", "declare `fallback: error`")


def test_a_call_cannot_write_a_number_result(tmp_path):
    spec = BASE + FORWARD.replace("output, logsumexp)", "output, logsumexp, max_q)") + BACKWARD
    assert_rejected(tmp_path, spec, FORWARD_LINE + 1, "call argument 'max_q' is a SymInt result",
                    "remove 'max_q' from the call")


def test_number_results_need_an_output_rule(tmp_path):
    spec = BASE + FORWARD.replace("    output: {rule: torch_fl::output_rules::fused_attention}\n", "") + BACKWARD
    assert_rejected(tmp_path, spec, FORWARD_LINE, "returns max_q, max_k, which only an output rule can compute",
                    "declare `output: {rule: <C++ function>}`")
