"""Files a spec front end must refuse without a traceback: undecodable text,
YAML features a spec does not use (anchors, aliases, tags, merge keys), inputs
past the loader's bounds (size, nesting, includes), include cycles, and paths
that are not spec files. Each is one error line naming the file (and line
where there is one), exit status 2, and nothing written or moved."""
from __future__ import annotations

import os
import time

import pytest
from cli import run_cli
from test_spec_errors import VALID_SPEC

from codegen import limits

# Line 20 is the first line after VALID_SPEC.
AFTER = "spec.yaml:20:"
LAUGHS = "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]\n" for i in range(1, 10))
DEEP = f"nested more than {limits.NESTING_DEPTH} levels deep"
INCLUDE_CHAIN = {f"i{i}.yaml": f"include: [i{i + 1}.yaml]\n" for i in range(limits.INCLUDE_DEPTH + 1)}


def with_spec(text, **others) -> dict:
    return {"spec.yaml": text, **others}


# name → (files: {relative path: text or bytes; "->target" a symlink, "|fifo" a FIFO}, the spec to run,
#         where the error is ("file:line:", or "file: " for the file as a whole), message fragments)
CASES = {
    "not UTF-8": (with_spec(VALID_SPEC.encode() + b"# caf\xe9\n"), "spec.yaml", AFTER,
                  ["not valid UTF-8", "byte 0xe9"]),
    "UTF-16": (with_spec(VALID_SPEC.encode("utf-16")), "spec.yaml", "spec.yaml:1:", ["UTF-16", "save it as UTF-8"]),
    "a control character": (with_spec(VALID_SPEC + "x: \x00\n"), "spec.yaml", AFTER, ["control character U+0000"]),
    "a recursive alias": (with_spec(VALID_SPEC + "x: &a [*a]\n"), "spec.yaml", AFTER, ["YAML anchors"]),
    "the billion laughs": (with_spec(VALID_SPEC + LAUGHS), "spec.yaml", AFTER, ["YAML anchors"]),
    "an alias": (with_spec(VALID_SPEC + "x: *a\n"), "spec.yaml", AFTER, ["YAML aliases"]),
    "20,000-deep flow nesting": (with_spec(VALID_SPEC + "x: " + "[" * 20000 + "]" * 20000 + "\n"), "spec.yaml",
                                 AFTER, [DEEP]),
    "20,000-deep block nesting": (with_spec(VALID_SPEC + "x:\n" + "- " * 20000 + "a\n"), "spec.yaml",
                                  "spec.yaml:21:", [DEEP]),
    "an include of itself": (with_spec("include: [spec.yaml]\n" + VALID_SPEC), "spec.yaml", "spec.yaml:1:",
                             ["include cycle: ", "spec.yaml → ", "spec.yaml"]),
    "an include cycle of two": ({"a.yaml": "include: [b.yaml]\n" + VALID_SPEC, "b.yaml": "include: [a.yaml]\n"},
                                "a.yaml", "b.yaml:1:", ["include cycle: ", "a.yaml → ", "b.yaml → ", "a.yaml"]),
    "includes nested too deep": (with_spec("include: [i0.yaml]\n" + VALID_SPEC, **INCLUDE_CHAIN), "spec.yaml",
                                 f"i{limits.INCLUDE_DEPTH - 1}.yaml:1:",
                                 [f"includes nested more than {limits.INCLUDE_DEPTH} deep"]),
    "an include of a directory": (with_spec("include: [adir]\n" + VALID_SPEC, **{"adir/x.yaml": "ops: {}\n"}),
                                  "spec.yaml", "spec.yaml:1:", ["included spec 'adir' is a directory"]),
    "an include of /dev/zero": (with_spec("include: [zero.yaml]\n" + VALID_SPEC, **{"zero.yaml": "->/dev/zero"}),
                                "spec.yaml", "spec.yaml:1:", ["included spec 'zero.yaml' is outside the spec's"]),
    "an include of a FIFO": (with_spec("include: [pipe.yaml]\n" + VALID_SPEC, **{"pipe.yaml": "|fifo"}),
                             "spec.yaml", "spec.yaml:1:", ["included spec 'pipe.yaml' is not a regular file"]),
    "an include outside the spec's directory": (with_spec("include: [../outside.yaml]\n" + VALID_SPEC), "spec.yaml",
                                                "spec.yaml:1:", ["outside the spec's directory"]),
    "!!python/name": (with_spec(VALID_SPEC.replace("vendor: mlu", "vendor: !!python/name:os.system")), "spec.yaml",
                      "spec.yaml:1:", ["YAML tag '!!python/name:os.system'"]),
    "!!int abc": (with_spec(VALID_SPEC.replace("vendor: mlu", "vendor: !!int abc")), "spec.yaml", "spec.yaml:1:",
                  ["YAML tag '!!int'"]),
    "an invalid !!timestamp": (with_spec(VALID_SPEC.replace("vendor: mlu", "vendor: !!timestamp 2024-13-45")),
                               "spec.yaml", "spec.yaml:1:", ["YAML tag '!!timestamp'"]),
    "an implicit invalid timestamp": (with_spec(VALID_SPEC.replace("vendor: mlu", "vendor: 2024-13-45")),
                                      "spec.yaml", "spec.yaml:1:", ["'vendor' must be an identifier"]),
    "a 5,000-digit integer": (with_spec(VALID_SPEC + "x: " + "9" * 5000 + "\n"), "spec.yaml", AFTER,
                              ["number '99999999999999999999...' is too long"]),
    "a 5,000-digit torch version": (with_spec(VALID_SPEC.replace(
        '  mm: {call: "mluOpMatMul(stream, self, mat2, out)"}',
        '  mm: {call: "mluOpMatMul(stream, self, mat2, out)", torch: {min: "2.' + "9" * 5000 + '"}}')),
        "spec.yaml", "spec.yaml:19:", ["invalid torch version"]),
    "the << merge key": (with_spec(VALID_SPEC.replace("defaults:\n", "defaults:\n  <<: {fallback: cpu}\n")),
                         "spec.yaml", "spec.yaml:13:", ["merge keys (<<)"]),
    "a complex key": (with_spec(VALID_SPEC + "? [a, b]\n: c\n"), "spec.yaml", AFTER, ["mapping key"]),
    "two documents": (with_spec(VALID_SPEC + "---\nvendor: x\n"), "spec.yaml", AFTER, ["one YAML document"]),
    "a spec past the size limit": (with_spec(VALID_SPEC + "#" * limits.SPEC_BYTES + "\n"), "spec.yaml",
                                   "spec.yaml: ", [f"{limits.SPEC_BYTES} bytes"]),
    "a missing --spec": ({}, "nothere.yaml", "nothere.yaml: ", ["not found"]),
    "a --spec that is a directory": ({"adir/x.yaml": "ops: {}\n"}, "adir", "adir: ", ["is a directory"]),
    "--spec /dev/zero": ({}, "/dev/zero", "/dev/zero: ", ["is not a regular file"]),
}


def write_files(root, files: dict) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if content == "|fifo":
            os.mkfifo(path)
        elif isinstance(content, str) and content.startswith("->"):
            os.symlink(content[2:], path)
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)


def untouched_out(tmp_path):
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    (out_dir / "sentinel.txt").write_text("untouched")
    return out_dir


def assert_one_error(run, tmp_path, out_dir, where: str, fragments) -> str:
    assert run.status == 2, run.stderr
    assert "Traceback" not in run.stderr
    assert len(run.error_lines) == 1, run.stderr
    line = run.error_lines[0]
    assert where in line, line
    for fragment in fragments:
        assert fragment in line, line
    assert os.listdir(out_dir) == ["sentinel.txt"] and (out_dir / "sentinel.txt").read_text() == "untouched"
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".")], "nothing staged or moved aside"
    return line


@pytest.mark.parametrize("case", list(CASES))
def test_refused_with_one_spec_error(tmp_path, case):
    files, spec, where, fragments = CASES[case]
    write_files(tmp_path / "specs", files)
    out_dir = untouched_out(tmp_path)
    started = time.monotonic()
    run = run_cli("generate", "--vendor", "mlu", "--spec", str(tmp_path / "specs" / spec), "--out", str(out_dir))
    assert time.monotonic() - started < 10, "refusing a spec takes no time"
    assert_one_error(run, tmp_path, out_dir, where, fragments)


def test_out_that_is_a_file_is_refused_and_kept(tmp_path):
    write_files(tmp_path, {"spec.yaml": VALID_SPEC})
    precious = tmp_path / "precious.txt"
    precious.write_text("the user's file")
    run = run_cli("generate", "--vendor", "mlu", "--spec", str(tmp_path / "spec.yaml"), "--out", str(precious))
    assert run.status == 2 and "Traceback" not in run.stderr
    assert len(run.error_lines) == 1, run.stderr
    assert "precious.txt" in run.error_lines[0] and "not a directory" in run.error_lines[0]
    assert precious.read_text() == "the user's file"
    assert sorted(os.listdir(tmp_path)) == ["precious.txt", "spec.yaml"], "nothing of the user's is moved aside"


@pytest.mark.parametrize("where", ["/proc/torch-fl-test/out", "a-file/out"])
def test_out_under_an_unwritable_path_is_refused(tmp_path, where):
    write_files(tmp_path, {"spec.yaml": VALID_SPEC, "a-file": "not a directory"})
    out_dir = where if where.startswith("/") else str(tmp_path / where)
    run = run_cli("generate", "--vendor", "mlu", "--spec", str(tmp_path / "spec.yaml"), "--out", out_dir)
    assert run.status == 2 and "Traceback" not in run.stderr
    assert len(run.error_lines) == 1 and out_dir in run.error_lines[0], run.stderr
    assert sorted(os.listdir(tmp_path)) == ["a-file", "spec.yaml"]


def test_the_real_specs_are_within_the_limits():
    from conftest import REPO_ROOT
    for name in os.listdir(os.path.join(REPO_ROOT, "specs")):
        if name.endswith(".yaml"):
            assert os.path.getsize(os.path.join(REPO_ROOT, "specs", name)) < limits.SPEC_BYTES // 16
