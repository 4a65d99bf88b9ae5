"""The spec's `distributed:` section: the c10d backend it declares reaches the
generated registration, and a bad one is refused at its line, writing nothing."""
from __future__ import annotations

import os

from test_spec_errors import VALID_SPEC, assert_rejected, run_codegen

DISTRIBUTED = """\
distributed:
  backend: cncl
  transport: gloo_staged
  dtypes: [float32, int64]
"""


def test_the_declared_backend_and_dtypes_reach_the_registration(tmp_path):
    result, out_dir = run_codegen(tmp_path, VALID_SPEC + DISTRIBUTED)
    assert result.returncode == 0, result.stderr
    with open(os.path.join(out_dir, "backend_info.cpp")) as f:
        registration = f.read()
    assert '"cncl", "float32,int64", "gloo_staged",\n    nullptr};' in registration


def test_without_dtypes_the_backend_takes_the_defaults_gloo_has(tmp_path):
    result, out_dir = run_codegen(tmp_path, VALID_SPEC + "distributed: {backend: cncl}\n")
    assert result.returncode == 0, result.stderr
    with open(os.path.join(out_dir, "backend_info.cpp")) as f:
        assert '"cncl", "float32,float16"' in f.read()


def test_no_section_declares_no_backend(tmp_path):
    result, out_dir = run_codegen(tmp_path, VALID_SPEC)
    assert result.returncode == 0, result.stderr
    with open(os.path.join(out_dir, "backend_info.cpp")) as f:
        assert '\n    "", "", "",\n    nullptr};' in f.read()


def test_a_vendor_library_transport_links_the_vendors_collectives_table(tmp_path):
    # vendor_ccl: the vendor library must implement torch_fl_vendor_collectives()
    # (the link fails otherwise), and it may take dtypes Gloo has not.
    spec = VALID_SPEC + DISTRIBUTED.replace("gloo_staged", "vendor_ccl").replace("int64]", "float64, int16]")
    result, out_dir = run_codegen(tmp_path, spec)
    assert result.returncode == 0, result.stderr
    with open(os.path.join(out_dir, "backend_info.cpp")) as f:
        registration = f.read()
    assert '"cncl", "float32,float64,int16", "vendor_ccl",\n    &torch_fl_vendor_collectives};' in registration


def test_a_builtin_backend_name_is_refused(tmp_path):
    assert_rejected(tmp_path, VALID_SPEC + DISTRIBUTED.replace("cncl", "nccl"), 21,
                    "'distributed.backend: nccl' is one of PyTorch's own c10d backends", "e.g. cncl or hccl")


def test_a_name_that_is_not_a_backend_name_is_refused(tmp_path):
    assert_rejected(tmp_path, VALID_SPEC + DISTRIBUTED.replace("cncl", "Cn-CL"), 21,
                    "'distributed.backend' must be a lowercase name", "got 'Cn-CL'")


def test_a_dtype_gloo_cannot_reduce_is_refused(tmp_path):
    assert_rejected(tmp_path, VALID_SPEC + DISTRIBUTED.replace("int64]", "int64, complex64, int16]"), 23,
                    "Gloo has no collectives for complex64, int16", "list only dtypes Gloo takes")


def test_an_unknown_key_is_refused(tmp_path):
    assert_rejected(tmp_path, VALID_SPEC + DISTRIBUTED.replace("transport: gloo_staged", "transprt: gloo_staged"),
                    22, "unknown key 'transprt' in distributed", "did you mean 'transport'?")


def test_an_unknown_transport_is_refused(tmp_path):
    assert_rejected(tmp_path, VALID_SPEC + DISTRIBUTED.replace("gloo_staged", "hccs"), 22,
                    "invalid distributed.transport 'hccs'", "gloo_staged")


def test_a_section_without_a_backend_is_refused(tmp_path):
    assert_rejected(tmp_path, VALID_SPEC + "distributed: {dtypes: [float32]}\n", 20,
                    "missing 'distributed.backend'")
