"""The generator's output: deterministic, atomic, traceable to the spec, and
checked in (generated/ is exactly what the specs produce)."""
from __future__ import annotations

import json
import os
import shutil

import pytest

from conftest import REPO_ROOT
from generated_output import GENERATED_DIR

from codegen import output
from codegen.pipeline import generate_files


def mlu_files() -> dict[str, str]:
    return generate_files(os.path.join(REPO_ROOT, "specs", "mlu.yaml"), REPO_ROOT)[1]


def test_output_is_deterministic():
    assert mlu_files() == mlu_files()


@pytest.mark.parametrize("vendor", ["mlu", "npu"])
def test_checked_in_output_matches_the_spec(vendor):
    files = generate_files(os.path.join(REPO_ROOT, "specs", f"{vendor}.yaml"), REPO_ROOT)[1]
    assert output.differences(os.path.join(GENERATED_DIR, vendor), files) == []


def test_every_wrapper_names_its_spec_line():
    files = mlu_files()
    spec_lines = {}  # the spec and the files it includes, by path
    # ATen's kernels are in the shards, other libraries' (torchvision::nms) in library_<namespace>.cpp.
    kernels = "".join(text for name, text in files.items()
                      if name.startswith("kernels_shard") or name.startswith("library_"))
    assert "Do not edit" in kernels
    for row in json.loads(files["support_matrix.json"])["ops"]:
        path, line = row["source"].rsplit(":", 1)
        assert path == "specs/mlu.yaml" or path.startswith("specs/mlu/"), row
        if path not in spec_lines:
            spec_lines[path] = open(os.path.join(REPO_ROOT, path)).read().splitlines()
        entry = row.get("derived_from") or row["name"].split("::")[-1]  # the spec's key, under its namespace
        assert spec_lines[path][int(line) - 1].strip().startswith(entry + ":"), row
        if set(row["dtypes"].values()) == {"fallback"}:
            # A declared fallback (`isnan: {fallback: cpu}`, no call): nothing is registered,
            # the boxed CPU fallback runs it, and the matrix row is what declares it.
            assert f'"{row["name"]}", ' not in kernels, row
            continue
        assert f'"{row["name"]}", "{row["source"]}"' in kernels


def test_support_matrix_contract():
    matrix = json.loads(mlu_files()["support_matrix.json"])
    assert matrix["vendor"] == "mlu" and matrix["device"] == "mlu"
    for row in matrix["ops"]:
        assert set(row["dtypes"].values()) <= {"native", "fallback", "error"}
    by_name = {row["name"]: row for row in matrix["ops"]}
    assert by_name["add.out"]["derived_from"] == "add.Tensor"
    assert by_name["mm"]["dtypes"]["int64"] == "fallback"
    assert by_name["mm"]["dtypes"]["float32"] == "native"


def test_one_op_edit_changes_one_shard(tmp_path):
    spec_text = open(os.path.join(REPO_ROOT, "specs", "mlu.yaml")).read()
    edited = spec_text.replace("mm: {call: \"mluOpMatMul(stream, self, mat2, out)\", variants: [out], "
                               "dtypes: [float32, float16, bfloat16]}",
                               "mm: {call: \"mluOpMatMul(stream, self, mat2, out)\", variants: [out], "
                               "dtypes: [float32, float16]}")
    assert edited != spec_text
    path = tmp_path / "mlu.yaml"
    path.write_text(edited)
    for included in ("common", "mlu"):
        shutil.copytree(os.path.join(REPO_ROOT, "specs", included), tmp_path / included)
    before, after = mlu_files(), generate_files(str(path), REPO_ROOT, display_path="specs/mlu.yaml")[1]
    changed = sorted(name for name in before if before[name] != after[name] and name.endswith(".cpp"))
    # One kernel shard, plus backend_info.cpp (which carries the spec hash).
    # (autocast.cpp names its include by path, which is the temporary copy here.)
    changed = [name for name in changed if name != "autocast.cpp"]
    assert len(changed) == 2 and "backend_info.cpp" in changed, changed


def test_atomic_write_replaces_the_tree_and_keeps_unchanged_mtimes(tmp_path):
    target = tmp_path / "gen"
    assert output.write_tree(str(target), {"a.txt": "1", "b.txt": "2"}) == ["a.txt", "b.txt"]
    mtime_b = os.stat(target / "b.txt").st_mtime_ns
    assert output.write_tree(str(target), {"a.txt": "changed", "b.txt": "2"}) == ["a.txt"]
    assert (target / "a.txt").read_text() == "changed"
    assert os.stat(target / "b.txt").st_mtime_ns == mtime_b
    assert output.write_tree(str(target), {"a.txt": "changed"}) == ["b.txt"]
    assert sorted(os.listdir(target)) == ["a.txt"]
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".")], "no staging directories left behind"


def test_html_matrix_works_offline():
    html = mlu_files()["support_matrix.html"]
    assert "http://" not in html and "https://" not in html, "the page must not load anything from the network"
    assert "<script src" not in html and "<link" not in html
    assert 'id="name"' in html and 'id="status"' in html, "filters by op name and by status"


def test_vendor_op_rows_name_their_namespace_dtypes_and_backward():
    (row,) = json.loads(mlu_files()["support_matrix.json"])["custom_ops"]
    assert row["name"] == "rms_norm" and row["namespace"] == "mlu"
    assert row["schema"] == "rms_norm(Tensor input, Tensor weight, float eps=1e-06) -> Tensor"
    assert row["dtypes"]["float32"] == "native" and row["dtypes"]["float64"] == "error"  # no CPU kernel to fall back to
    assert row["autograd"].startswith("rms_norm_backward(Tensor grad,") and row["reference"] == "rms_norm"
    assert row["source"].startswith("specs/mlu.yaml:")


def test_a_measured_annotation_follows_the_status_letter():
    import dataclasses

    from codegen import matrix
    from codegen.pipeline import load_plan
    declared = matrix.build(load_plan(os.path.join(REPO_ROOT, "specs", "mlu.yaml")))

    class Measured(matrix.SupportMatrix):
        def annotation(self, row, dtype):
            return "strict" if dtype == "float32" else ""

    measured = Measured(**{f.name: getattr(declared, f.name) for f in dataclasses.fields(declared)})
    mm = next(row for row in measured.rows if row.name == "mm")
    assert (measured.cell(mm, "float32"), measured.cell(mm, "float16"), measured.cell(mm, "int64")) == ("N strict", "N", "F")
    assert declared.cell(mm, "float32") == "N"
