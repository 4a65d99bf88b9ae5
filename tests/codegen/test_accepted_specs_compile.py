"""What the generator accepts compiles: a spec with every accepted guard form
(one per argument type), a file name with a line break, quotes and
backslashes, and a custom schema whose default holds quotes, generates C++
that `g++ -fsyntax-only` accepts against torch's headers."""
from __future__ import annotations

import re

import pytest
from conftest import REPO_ROOT
from cpp_checks import assert_no_injected_code, compiler, syntax_check
from test_guard_typing import ACCEPTED, mlu_spec_with_guards

from codegen.pipeline import generate_files

HOSTILE_NAME = 'mlu\n#error injected "quoted" back\\slash\\.yaml'
SCHEMA = "rms_norm(Tensor input, Tensor weight, float eps=1e-06) -> Tensor"
QUOTED_SCHEMA = r"""'rms_norm(Tensor input, Tensor weight, float eps=1e-06, str mode="a\"b") -> Tensor'"""


@pytest.mark.skipif(compiler() is None, reason="no C++ compiler (g++ or $CXX) here")
def test_accepted_hostile_spec_compiles(tmp_path):
    text, _ = mlu_spec_with_guards(ACCEPTED)
    assert SCHEMA in text
    spec = tmp_path / HOSTILE_NAME
    spec.write_text(text.replace(SCHEMA, QUOTED_SCHEMA))
    files = generate_files(str(spec), REPO_ROOT)[1]
    assert_no_injected_code(files)
    # The files that hold what this spec adds: guarded kernels, the custom op, the provenance.
    compiled = {name: text for name, text in files.items()
                if "// when:" in text or name in ("custom_ops.cpp", "backend_info.cpp")}
    assert len([name for name in compiled if name.startswith("kernels_shard")]) >= 2
    result = syntax_check(compiled)
    errors = [line for line in result.stderr.splitlines() if re.search(r"\berror\b", line)]
    assert result.returncode == 0, "\n".join(errors[:20])
