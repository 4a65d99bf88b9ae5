"""Other libraries' ops (`namespaces:`): checked against the schemas their library
registers, emitted under the library's namespace with its CPU kernel as the
fallback, listed as not registered where the library is not installed, and a
data-dependent result (`output: {count: ...}`) trimmed by the runtime.

The library's schemas are faked here (library_ops.load), so these tests decide
what is installed, whatever torch runs them."""
from __future__ import annotations

import json

import pytest
from torchgen.model import FunctionSchema

from cli import run_cli
from codegen import library_ops
from codegen.aten import AtenOp
from codegen.spec_model import KNOWN_LIBRARIES
from test_spec_errors import VALID_SPEC, assert_rejected

TORCHVISION_SCHEMAS = (
    "nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
    "roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width, "
    "int sampling_ratio, bool aligned) -> Tensor",
    "roi_pool(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width) "
    "-> (Tensor, Tensor)",
)

LIBRARY_SPEC = VALID_SPEC + """\
namespaces:
  torchvision:
    nms:
      call: "mluOpNms(stream, dets, scores, iou_threshold, out, kept)"
      output: {rule: torch_fl::output_rules::nms, count: kept}
      dtypes: [float32]
    roi_pool:
      call: "mluOpRoiPool(stream, input, rois, spatial_scale, pooled_height, pooled_width, out0, out1)"
      output: {rule: torch_fl::output_rules::roi_pool}
      dtype_from: input
"""
NMS_LINE = LIBRARY_SPEC.splitlines().index("    nms:") + 1


def fake_library(installed: bool):
    library = KNOWN_LIBRARIES["torchvision"]
    if not installed:
        return library_ops.LibrarySchemas(library, "", unavailable="not installed beside this torch")
    ops = {}
    for text in TORCHVISION_SCHEMAS:
        schema = FunctionSchema.parse(text)
        ops[str(schema.name)] = AtenOp(name=str(schema.name), schema=schema, has_cpp_meta=False, function_variant=False,
                                       composite_implicit=False)
    return library_ops.LibrarySchemas(library, "0.99.0", ops)


@pytest.fixture
def torchvision_installed(monkeypatch):
    monkeypatch.setattr(library_ops, "load", lambda namespace: fake_library(True))


@pytest.fixture
def torchvision_missing(monkeypatch):
    monkeypatch.setattr(library_ops, "load", lambda namespace: fake_library(False))


def generate(tmp_path, spec_text: str = LIBRARY_SPEC) -> dict[str, str]:
    spec = tmp_path / "library.yaml"
    spec.write_text(spec_text)
    out = tmp_path / "out"
    run = run_cli("generate", "--vendor", "mlu", "--spec", str(spec), "--out", str(out))
    assert run.status == 0, run.stdout + run.stderr
    return {path.name: path.read_text() for path in out.iterdir()}


def test_library_ops_are_registered_under_their_namespace_and_fall_back_to_its_cpu_kernel(tmp_path,
                                                                                         torchvision_installed):
    files = generate(tmp_path)
    code = files["library_torchvision.cpp"]
    assert "TORCH_LIBRARY_IMPL(torchvision, PrivateUse1, m)" in code
    assert 'm.impl("nms", TORCH_FN(wrap_nms));' in code and 'm.impl("roi_pool", TORCH_FN(wrap_roi_pool));' in code
    assert "schemas read from torchvision 0.99.0" in code
    # Not among ATen's kernels, and never a TORCH_LIBRARY of its own (torchvision defines the schemas).
    assert not any("nms" in text for name, text in files.items() if name.startswith("kernels_shard"))
    assert "TORCH_LIBRARY(" not in code
    # A dtype that is not native reaches torchvision's own CPU kernel, by name.
    assert ('torch_fl::LibraryFallback<at::Tensor(const at::Tensor &, const at::Tensor &, double)>::call(op, '
            'torch_fl::FallbackReason::kDtype, "torchvision::nms", "", dets, scores, iou_threshold)') in code
    assert '"torchvision::nms", "' in code  # the KernelInfo names the op as its namespace does


def test_a_count_output_is_allocated_passed_to_the_call_and_trims_the_result(tmp_path, torchvision_installed):
    code = generate(tmp_path)["library_torchvision.cpp"]
    body = code[code.index("at::Tensor wrap_nms("):]
    body = body[:body.index("\n}\n")]
    assert "const at::Tensor out = op.allocate(expected);" in body
    assert "const at::Tensor kept = op.allocate_count();" in body
    assert "launch_nms(op, *dets_on_device, *scores_on_device, iou_threshold, out, kept);" in body
    assert body.rstrip().endswith("return op.trimmed_to_count(out, kept);")


def test_dtype_from_alone_decides_so_an_index_result_does_not_send_the_op_to_cpu(tmp_path, torchvision_installed):
    code = generate(tmp_path)["library_torchvision.cpp"]
    body = code[code.index("wrap_roi_pool("):]
    body = body[:body.index("\n}\n")]
    assert '  if (!(op.dtype_is_native(input, "input"))) {\n' in body
    assert body.count("dtype_is_native") == 1  # rois is not asked, and out1 (the int32 argmax) neither


def test_the_matrix_names_library_ops_with_their_namespace_and_version(tmp_path, torchvision_installed):
    matrix = json.loads(generate(tmp_path)["support_matrix.json"])
    rows = {row["name"]: row for row in matrix["ops"]}
    assert rows["torchvision::nms"]["dtypes"]["float32"] == "native"
    assert rows["torchvision::nms"]["dtypes"]["float16"] == "fallback"
    assert rows["torchvision::roi_pool"]["schema"].startswith("roi_pool(Tensor input")
    assert matrix["libraries"] == {"torchvision": "0.99.0"}


def test_without_the_library_its_entries_are_listed_as_not_registered_and_nothing_is_emitted(tmp_path,
                                                                                          torchvision_missing):
    files = generate(tmp_path)
    assert "library_torchvision.cpp" not in files
    matrix = json.loads(files["support_matrix.json"])
    assert not [row for row in matrix["ops"] if row["name"].startswith("torchvision::")]
    gated = {entry["name"]: entry for entry in matrix["gated"]}
    assert gated["torchvision::nms"]["requires"] == "torchvision (not installed beside this torch)"
    assert gated["torchvision::nms"]["source"].endswith(f":{NMS_LINE}")
    assert matrix["libraries"] == {}
    assert "torchvision::nms" in files["support_matrix.md"]


def test_an_unknown_namespace_is_a_spec_error_naming_the_ones_known(tmp_path):
    spec = LIBRARY_SPEC.replace("  torchvision:\n", "  torchvison:\n")
    assert_rejected(tmp_path, spec, NMS_LINE - 1, "unknown namespace 'torchvison'", "did you mean 'torchvision'?")


def test_an_unknown_namespace_without_entries_is_refused_too(tmp_path):
    spec = VALID_SPEC + "namespaces:\n  torchvison: {}\n"
    assert_rejected(tmp_path, spec, len(spec.splitlines()), "unknown namespace 'torchvison'")


@pytest.mark.parametrize("namespace,message", [
    ("aten", "ATen ops are not listed under `namespaces`"),
    ("mlu", "'mlu' is the vendor's own namespace"),
])
def test_aten_and_the_vendors_own_namespace_are_refused(tmp_path, namespace, message):
    spec = LIBRARY_SPEC.replace("  torchvision:\n", f"  {namespace}:\n")
    assert_rejected(tmp_path, spec, NMS_LINE - 1, message)


def test_an_op_the_library_does_not_register_is_a_spec_error_with_a_suggestion(tmp_path, torchvision_installed):
    spec = LIBRARY_SPEC.replace("    nms:\n", "    nmss:\n")
    assert_rejected(tmp_path, spec, NMS_LINE, "'nmss' is not an op of torchvision 0.99.0", "did you mean 'nms'?")


def test_variants_of_a_library_op_are_refused(tmp_path, torchvision_installed):
    spec = LIBRARY_SPEC.replace("      dtypes: [float32]\n", "      dtypes: [float32]\n      variants: [out]\n")
    assert_rejected(tmp_path, spec, NMS_LINE, "another library's op has none")


def test_a_count_must_be_written_by_the_call(tmp_path, torchvision_installed):
    spec = LIBRARY_SPEC.replace("out, kept)", "out)")
    assert_rejected(tmp_path, spec, NMS_LINE + 2, "`count: kept` of 'nms' is not passed to its call")


def test_a_count_may_not_name_an_argument(tmp_path, torchvision_installed):
    spec = LIBRARY_SPEC.replace("count: kept}", "count: scores}").replace("out, kept)", "out, scores)")
    assert_rejected(tmp_path, spec, NMS_LINE + 2, "`count: scores` of 'nms' names an argument or result of the op")


def test_a_count_trims_only_a_functional_result(tmp_path):
    spec = VALID_SPEC.replace('  mm: {call: "mluOpMatMul(stream, self, mat2, out)"}\n',
                              '  mm: {call: "mluOpMatMul(stream, self, mat2, out, kept)", '
                              'output: {rule: torch_fl::output_rules::nms, count: kept}, variants: [out]}\n')
    line = spec.splitlines().index([l for l in spec.splitlines() if l.startswith("  mm:")][0]) + 1
    assert_rejected(tmp_path, spec, line, "sizes its output by a rule")


def test_a_count_may_not_take_a_name_the_kernel_declares(tmp_path, torchvision_installed):
    spec = LIBRARY_SPEC.replace("count: kept}", "count: expected}").replace("out, kept)", "out, expected)")
    assert_rejected(tmp_path, spec, NMS_LINE + 2, "`count: expected` of 'nms' is a name the generated kernel declares")


def test_a_count_trims_the_one_result_of_an_op(tmp_path, torchvision_installed):
    spec = LIBRARY_SPEC.replace("output: {rule: torch_fl::output_rules::roi_pool}",
                                "output: {rule: torch_fl::output_rules::roi_pool, count: kept}").replace(
        "pooled_width, out0, out1)", "pooled_width, out0, out1, kept)")
    line = LIBRARY_SPEC.splitlines().index("    roi_pool:") + 3
    assert_rejected(tmp_path, spec, line, "`count` trims the one result of a functional overload")


def test_an_included_spec_adds_ops_to_a_namespace_op_by_op(tmp_path, torchvision_installed):
    shared = tmp_path / "common"
    shared.mkdir()
    (shared / "vision.yaml").write_text(
        "namespaces:\n  torchvision:\n    roi_align:\n"
        '      call: "mluOpRoiAlign(stream, input, rois, spatial_scale, pooled_height, pooled_width, sampling_ratio, '
        'aligned, out)"\n'
        "      output: {rule: torch_fl::output_rules::roi_align}\n")
    matrix = json.loads(generate(tmp_path, "include: [common/vision.yaml]\n" + LIBRARY_SPEC)["support_matrix.json"])
    names = {row["name"] for row in matrix["ops"] if row["name"].startswith("torchvision::")}
    assert names == {"torchvision::nms", "torchvision::roi_pool", "torchvision::roi_align"}


def test_a_library_that_imports_without_its_ops_is_not_registered_rather_than_wrong(monkeypatch):
    # torchvision swallows the failure to load its extension: the import succeeds, no op exists.
    import importlib
    import importlib.metadata
    import torch
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "0.99.0+cpu")
    monkeypatch.setattr(importlib, "import_module", lambda name: None)
    monkeypatch.setattr(torch._C, "_jit_get_all_schemas", lambda: [])
    library_ops.load.cache_clear()
    try:
        schemas = library_ops.load("torchvision")
    finally:
        library_ops.load.cache_clear()
    assert not schemas.available
    assert schemas.unavailable == "0.99.0 imported but registered no torchvision:: ops (its C++ extension did not load)"


def test_the_installed_library_is_read_when_there_is_one():
    library_ops.load.cache_clear()
    schemas = library_ops.load("torchvision")
    try:
        import torchvision
    except ImportError:
        assert schemas.unavailable == "not installed beside this torch"
        return
    assert schemas.version == torchvision.__version__.split("+")[0]
    assert str(schemas.ops["nms"].schema) == "nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor"
    assert "_roi_align_backward" in schemas.ops
