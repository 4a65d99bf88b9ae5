"""A generated tree has the permissions of anything else the user creates:
directory 0777 & ~umask, files 0666 & ~umask (not the 0700 of a private
temporary directory), after the first write and after a rewrite."""
from __future__ import annotations

import contextlib
import os
import stat

import pytest
from cli import run_cli
from test_spec_errors import VALID_SPEC

from codegen import output


@contextlib.contextmanager
def umask(mask: int):
    previous = os.umask(mask)
    try:
        yield
    finally:
        os.umask(previous)


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.mark.parametrize("mask", [0o022, 0o027, 0o002])
def test_written_tree_has_the_usual_permissions(tmp_path, mask):
    target = tmp_path / "gen"
    with umask(mask):
        output.write_tree(str(target), {"a.txt": "1", "b.txt": "2"})
        assert mode(target) == 0o777 & ~mask
        assert mode(target / "a.txt") == mode(target / "b.txt") == 0o666 & ~mask
        output.write_tree(str(target), {"a.txt": "changed", "b.txt": "2"})  # b.txt copied over unchanged
        assert mode(target) == 0o777 & ~mask
        assert mode(target / "a.txt") == mode(target / "b.txt") == 0o666 & ~mask


def test_generate_keeps_the_usual_permissions(tmp_path):
    spec = tmp_path / "spec.yaml"
    spec.write_text(VALID_SPEC)
    out_dir = tmp_path / "out"
    with umask(0o022):
        for text in (VALID_SPEC, VALID_SPEC.replace("[float32, float16]", "[float32]")):
            spec.write_text(text)
            run = run_cli("generate", "--vendor", "mlu", "--spec", str(spec), "--out", str(out_dir))
            assert run.status == 0, run.stderr
            assert mode(out_dir) == 0o755
            assert {mode(out_dir / name) for name in os.listdir(out_dir)} == {0o644}
