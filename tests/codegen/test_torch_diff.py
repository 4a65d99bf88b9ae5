"""`codegen diff-torch` and the notes `generate` prints for another torch: ATen's
changes between releases, tied to the spec entries they touch."""
from __future__ import annotations

import json
import os

from cli import run_cli
from codegen import torch_diff
from codegen.pipeline import REPO_ROOT

BEFORE = """
- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
- func: add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
- func: frobnicate(Tensor self) -> Tensor
- func: old_only(Tensor self) -> Tensor
"""
AFTER = """
- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1, bool fast=False) -> Tensor
- func: add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
- func: frobnicate(Tensor  self) -> Tensor
- func: new_only(Tensor self) -> Tensor
"""


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_diff_lists_added_removed_changed_and_the_spec_entries_touched(tmp_path):
    result = torch_diff.diff(torch_diff.read_schemas(write(tmp_path, "a.yaml", BEFORE)),
                             torch_diff.read_schemas(write(tmp_path, "b.yaml", AFTER)),
                             torch_diff.load_specs(REPO_ROOT), "2.13.0", "2.14.1")
    kinds = {c.overload: c.kind for c in result.changes}
    # Whitespace alone is not a change; add_.Tensor is unchanged.
    assert kinds == {"aten::add.Tensor": "changed", "aten::old_only": "removed", "aten::new_only": "added"}
    add = next(c for c in result.changes if c.overload == "aten::add.Tensor")
    assert "bool fast=False" in add.after and "fast" not in add.before
    touched = {(e.vendor, e.op) for e in add.touches}
    assert {("mlu", "add.Tensor"), ("npu", "add.Tensor")} <= touched
    assert all(e.location.startswith(f"specs/{e.vendor}.yaml:") for e in add.touches)
    assert result.changes[0].overload == "aten::add.Tensor"  # what touches a spec comes first
    report = "\n".join(torch_diff.format_report(result))
    assert "1 overloads added, 1 removed, 1 changed; 1 of them touch a spec entry" in report
    assert "specs/mlu.yaml:" in report


def test_the_command_line_prints_the_report_and_writes_json(tmp_path):
    out = tmp_path / "diff.json"
    run = run_cli("diff-torch", write(tmp_path, "a.yaml", BEFORE), write(tmp_path, "b.yaml", AFTER),
                  "--names", "2.13.0", "2.14.1", "--json", str(out))
    assert run.status == 0, run.stderr
    assert "ATen from torch 2.13.0 to 2.14.1" in run.stdout
    assert "1 overloads added, 1 removed, 1 changed; 1 of them touch a spec entry" in run.stdout
    for line in ("changed  aten::add.Tensor", "added    aten::new_only  new_only(Tensor self) -> Tensor",
                 "removed  aten::old_only", "2.14.1: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1, bool fast",
                 "spec: specs/mlu.yaml:36 mlu `add.Tensor`"):
        assert any(printed.strip().startswith(line) for printed in run.stdout.splitlines()), (line, run.stdout)
    document = json.loads(out.read_text())
    assert document["counts"] == {"added": 1, "removed": 1, "changed": 1}
    assert document["before"] == "2.13.0" and document["after"] == "2.14.1"
    changed = [c for c in document["changes"] if c["kind"] == "changed"]
    assert [c["overload"] for c in changed] == ["aten::add.Tensor"]
    assert "bool fast=False" in changed[0]["after"]
    assert {("mlu", "add.Tensor", False)} <= {(t["vendor"], t["op"], t["gated"]) for t in changed[0]["touches"]}
    missing = run_cli("diff-torch", "no-such.yaml", "b.yaml")
    assert missing.status == 2 and "no such file: no-such.yaml" in missing.stderr


def test_generating_for_another_torch_notes_each_registered_schema_that_changed():
    reference = {"torch_version": "2.13.0", "ops": [
        {"name": "add.Tensor", "source": "specs/mlu.yaml:36", "schema": "add.Tensor(Tensor self) -> Tensor"},
        {"name": "relu", "source": "specs/mlu.yaml:63", "schema": "relu(Tensor self) -> Tensor"},
        {"name": "gone", "source": "specs/mlu.yaml:70", "schema": "gone(Tensor self) -> Tensor"}]}
    current = {"torch_version": "2.14.1", "ops": [
        {"name": "add.Tensor", "source": "specs/mlu.yaml:36", "schema": "add.Tensor(Tensor self, bool f=False) -> Tensor"},
        {"name": "relu", "source": "specs/mlu.yaml:63", "schema": "relu(Tensor self) -> Tensor"}]}
    notes = torch_diff.notes_against_reference(reference, current)
    assert len(notes) == 2, notes
    assert notes[0].startswith("note: specs/mlu.yaml:36: aten::add.Tensor: the schema changed from torch 2.13.0 to 2.14.1")
    assert "bool f=False" in notes[0]
    assert "aten::gone is registered for torch 2.13.0 but not for 2.14.1" in notes[1]
    # The same torch (a spec under edit, generated into another directory): the spec differs,
    # not the release, so nothing is said of torch (it once printed "for torch 2.13.0 but not
    # for 2.13.0").
    assert torch_diff.notes_against_reference(reference, dict(current, torch_version="2.13.0")) == []


def test_the_committed_matrix_records_each_registered_schema():
    with open(os.path.join(REPO_ROOT, "generated", "mlu", "support_matrix.json")) as f:
        ops = {op["name"]: op for op in json.load(f)["ops"]}
    assert ops["add.Tensor"]["schema"].startswith("add.Tensor(Tensor self, Tensor other")


def test_the_report_marks_version_gated_entries():
    gated = torch_diff.SpecEntry("mlu", "foo.out", "specs/mlu.yaml:9", True)
    plain = torch_diff.SpecEntry("npu", "foo_", "specs/npu.yaml:4", False)
    change = torch_diff.SchemaChange("aten::foo.out", "changed", "foo.out(Tensor a)", "foo.out(Tensor a, int b=0)",
                                     [gated, plain])
    report = torch_diff.format_report(torch_diff.TorchDiff("2.13.0", "2.14.1", [change]))
    assert report[1:4] == ["", "Touching the specs (read these before upgrading):", "  changed  aten::foo.out"]
    assert report[-4:] == ["             2.13.0: foo.out(Tensor a)",
                           "             2.14.1: foo.out(Tensor a, int b=0)",
                           "             spec: specs/mlu.yaml:9 mlu `foo.out` (version-gated)",
                           "             spec: specs/npu.yaml:4 npu `foo_`"]


def test_a_change_touches_every_entry_of_its_family(tmp_path):
    before = "- func: mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)\n"
    after = "- func: mul.out(Tensor self, Tensor other, *, int mode=0, Tensor(a!) out) -> Tensor(a!)\n"
    result = torch_diff.diff(torch_diff.read_schemas(write(tmp_path, "a.yaml", before)),
                             torch_diff.read_schemas(write(tmp_path, "b.yaml", after)),
                             torch_diff.load_specs(REPO_ROOT), "a", "b")
    (change,) = result.changes
    # mul.Tensor declares `variants: [out, ...]`: its out= kernel is registered under mul.out
    assert ("mlu", "mul.Tensor") in {(e.vendor, e.op) for e in change.touches}


def test_a_family_is_the_name_without_its_in_place_underscore():
    assert [torch_diff.family(name) for name in ("add_.Tensor", "add.out", "add", "_softmax.out", "__and__.Tensor")] \
        == ["add", "add", "add", "_softmax", "__and"]
