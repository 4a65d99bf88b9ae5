"""The verdict rules of the conformance run, on synthetic records."""
from __future__ import annotations

from verdicts import BASIC, FAILED, STRICT, UNTESTED, decide, keep_native_runs_meant


def record(phase="forward", ok=True, invoked=(("add.Tensor", "float32"),), fallbacks=(), sample=0, error=""):
    return {"opinfo": "add", "variant": "", "dtype": "float32", "sample": sample, "phase": phase, "ok": ok,
            "error": error, "invoked": [list(i) for i in invoked], "fallbacks": [list(f) for f in fallbacks]}


def test_all_phases_pass_is_strict():
    v = decide("add.Tensor", "float32", [record(), record(phase="backward", invoked=())], None)
    assert v.verdict == STRICT and v.samples == 1


def test_wrong_result_is_failed_with_the_error():
    v = decide("add.Tensor", "float32", [record(ok=False, error="AssertionError: values differ")], None)
    assert v.verdict == FAILED and "values differ" in v.detail


def test_a_fallback_of_a_declared_native_overload_is_failed():
    v = decide("add.Tensor", "float32", [record(fallbacks=(("add.Tensor", "float32"),))], None)
    assert v.verdict == FAILED and "fell back" in v.detail


def test_failing_backward_of_a_passing_forward_is_basic():
    records = [record(), record(phase="backward", ok=False, invoked=(("sum", "float32"),), error="grad differs")]
    assert decide("add.Tensor", "float32", records, None).verdict == BASIC
    assert decide("sum", "float32", records, None).verdict == FAILED


def test_never_invoked_is_untested():
    assert decide("mm", "float32", [record()], None).verdict == UNTESTED
    assert decide("add.Tensor", "float16", [record()], None).verdict == UNTESTED


def test_known_failure_is_carried():
    v = decide("add.Tensor", "float32", [record(ok=False)], "vendor rounds half to even")
    assert v.verdict == FAILED and v.known_failure == "vendor rounds half to even"


def test_right_values_with_other_strides_than_cpu_are_basic_and_say_which():
    strided = dict(record(), strides="output 0: strides (1, 3) on the device, (4, 1) on CPU (shape (3, 4))")
    v = decide("add.Tensor", "float32", [strided], None)
    assert v.verdict == BASIC and "strides (1, 3) on the device" in v.detail


def test_a_skipped_sample_is_reported_but_decides_nothing():
    skipped = dict(record(invoked=()), skipped="does not fit the inplace form on CPU: RuntimeError: ...")
    assert decide("add.Tensor", "float32", [record(), skipped], None).verdict == STRICT


def test_what_the_backend_says_ran_natively_decides_over_what_was_called():
    # conv2d's samples call convolution; the backend ran convolution_overrideable natively
    conv = dict(record(invoked=(("convolution", "float32"),)), native=[["convolution_overrideable", "float32"]])
    assert decide("convolution_overrideable", "float32", [conv], None).verdict == STRICT
    assert decide("convolution", "float32", [conv], None).verdict == UNTESTED
    failing = dict(conv, ok=False, error="AssertionError: values differ")
    assert decide("convolution_overrideable", "float32", [failing], None).verdict == FAILED


def test_native_runs_judge_only_the_overloads_their_opinfo_is_meant_to_verify():
    linear = dict(record(ok=False, invoked=(("mm.out", "bfloat16"),)), opinfo="nn.functional.linear",
                  native=[["mm.out", "bfloat16"], ["linear", "bfloat16"]])
    keep_native_runs_meant([linear], {"nn.functional.linear:": {"linear"}})
    assert linear["native"] == [["linear", "bfloat16"]] and linear["native_elsewhere"] == [["mm.out", "bfloat16"]]
    assert decide("mm.out", "bfloat16", [linear], None).verdict == UNTESTED
    assert decide("linear", "bfloat16", [linear], None).verdict == FAILED


def test_a_failure_before_the_launch_still_fails_the_overload_called():
    # the SDK refused the workspace query: nothing launched, the call raised
    refused = dict(record(ok=False, error="RuntimeError: [npu] mm: status 107000"), native=[])
    assert decide("add.Tensor", "float32", [refused, dict(record(), native=[["add.Tensor", "float32"]])],
                  None).verdict == FAILED


def test_out_forms_reached_only_inside_an_op_are_replayed():
    from selection import replayed_overloads, select_opinfos
    native = {name: {"float32"} for name in ("avg_pool2d", "avg_pool2d_backward", "avg_pool2d_backward.grad_input",
                                              "nll_loss_forward", "nll_loss_forward.output", "mm", "mm.out")}
    replayed = replayed_overloads(native)
    assert replayed["nn.functional.avg_pool2d:"] == {"avg_pool2d_backward.grad_input"}
    assert "nll_loss_forward.output" in replayed["nn.functional.nll_loss:"]
    assert "mm.out" not in set().union(*replayed.values())
    assert "mm.out" in select_opinfos(native)["mm:"][1]  # mm's own OpInfo calls its out= form directly


def test_samples_are_the_first_ones_and_one_of_each_rank_they_lack():
    from types import SimpleNamespace

    from selection import chosen_samples
    import torch
    ranks = [2, 2, 1, 2, 4, 4, 3, 0]
    samples = [SimpleNamespace(input=torch.zeros((1,) * rank), kwargs={}) for rank in ranks]
    assert [index for index, _ in chosen_samples(iter(samples), 3)] == [0, 1, 2, 4, 6, 7]
    assert [index for index, _ in chosen_samples(iter(samples), 3, scanned=5)] == [0, 1, 2, 4]
    # A sample that asks for dropout is not comparable with CPU: left out, the rest kept.
    samples[1].kwargs = {"dropout_p": 0.5}
    samples[2].kwargs = {"dropout_p": 0.0}
    assert [index for index, _ in chosen_samples(iter(samples), 3)] == [0, 2, 4, 6, 7]
