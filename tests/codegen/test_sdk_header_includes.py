"""The SDK functions a spec may call are those its `sdk.headers` declare, or the
headers beside them that they include by quotes (an umbrella header over
per-kind headers, as vendors/npu/sdk/npu_ops.h is); nothing outside the
repository is read, each header once."""
from __future__ import annotations

import os

from codegen.errors import ErrorSink, Location
from codegen.plan import _declared_symbols

WHERE = Location("spec.yaml", 3, 3)


def write(path, text: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def symbols(repo, *headers: str, follow_includes: bool = True) -> tuple[set[str], ErrorSink]:
    errors = ErrorSink()
    return _declared_symbols(str(repo), headers, errors, WHERE, follow_includes=follow_includes), errors


def test_an_umbrella_header_declares_what_its_per_kind_headers_declare(tmp_path):
    write(tmp_path / "sdk/ops.h", '#include "ops_base.h"\n# include "ops_matmul.h"\n#include <stdint.h>\nint opAdd(int);\n')
    write(tmp_path / "sdk/ops_base.h", "int opCreate(void);\n")
    write(tmp_path / "sdk/ops_matmul.h", '#include "ops_base.h"\nint opMm(int, int);\n')
    found, errors = symbols(tmp_path, "sdk/ops.h")
    assert {"opAdd", "opCreate", "opMm"} <= found
    assert not errors.errors


def test_includes_are_not_followed_for_glue_and_runtime_headers(tmp_path):
    write(tmp_path / "sdk/glue.h", '#include "ops.h"\nint describe(int);\n')
    write(tmp_path / "sdk/ops.h", "int opAdd(int);\n")
    found, _ = symbols(tmp_path, "sdk/glue.h", follow_includes=False)
    assert "describe" in found and "opAdd" not in found


def test_an_include_found_elsewhere_or_outside_the_repository_is_not_read(tmp_path):
    repo = tmp_path / "repo"
    write(tmp_path / "outside.h", "int secretFunction(int);\n")
    os.symlink(tmp_path / "outside.h", tmp_path / "elsewhere.h")
    write(repo / "sdk/ops.h", '#include "../../outside.h"\n#include "runtime.h"\n#include "link.h"\n'
          '#include "/etc/hostname"\n#include "dir"\nint opAdd(int);\n')
    os.symlink(tmp_path / "elsewhere.h", repo / "sdk/link.h")
    os.makedirs(repo / "sdk/dir")
    found, errors = symbols(repo, "sdk/ops.h")
    assert "opAdd" in found and "secretFunction" not in found
    assert not errors.errors


def test_headers_that_include_each_other_are_read_once(tmp_path):
    write(tmp_path / "sdk/a.h", '#include "b.h"\nint opA(int);\n')
    write(tmp_path / "sdk/b.h", '#include "a.h"\n#include "b.h"\nint opB(int);\n')
    found, errors = symbols(tmp_path, "sdk/a.h")
    assert {"opA", "opB"} <= found
    assert not errors.errors
