"""Spec text never becomes C++ that the spec chose: every string emitted as
code is checked against its grammar first (a spec error at file:line:col
naming the key, with an example), and free text that reaches C++ (file names,
schemas) is escaped inside string literals and comments."""
from __future__ import annotations

import os
import re
import textwrap

import pytest
from cli import assert_spec_error
from conftest import REPO_ROOT
from cpp_checks import assert_no_injected_code
from test_spec_errors import VALID_SPEC

from codegen.pipeline import generate_files

MM = '  mm: {call: "mluOpMatMul(stream, self, mat2, out)"}'
STREAM = "  stream: mlu_glue::queue_of\n"


def with_mm(extra: str) -> str:
    return VALID_SPEC.replace(MM, MM[:-1] + ", " + extra + "}")


def custom(name: str = "rms_norm", schema: str = "rms_norm(Tensor input, Tensor weight, float eps=1e-06) -> Tensor"):
    return VALID_SPEC + textwrap.dedent(f"""\
        custom:
          {name}:
            schema: {schema}
            call: mluOpRmsNorm(stream, input, weight, eps, out)
            output: {{like: input}}
        """)


ETC_PASSWD = os.path.relpath("/etc/passwd", REPO_ROOT)

# name → (spec, line, fragments of the error)
REJECTED = {
    "sdk.status.type": (VALID_SPEC.replace("type: mluRet_t", "type: 'mluRet_t x = 0; } int evil() { return 0'"), 6,
                        ["'sdk.status.type' must be a C++ type name", "e.g. mluRet_t"]),
    "sdk.status.ok": (VALID_SPEC.replace("ok: MLU_RET_SUCCESS", "ok: 'MLU_RET_SUCCESS) {} if (1'"), 6,
                      ["'sdk.status.ok' must be a C++ constant"]),
    "sdk.status.message": (VALID_SPEC.replace("message: mluGetErrorStr", "message: 'mluGetErrorStr(status)); evil(('"),
                           6, ["'sdk.status.message' must be a C++ function name"]),
    "sdk.stream": (VALID_SPEC.replace("stream: mlu_glue::queue_of", "stream: 'mlu_glue::queue_of; evil'"), 7,
                   ["'sdk.stream' must be a C++ function name"]),
    "a runtime converter": (VALID_SPEC.replace("Scalar: mlu_glue::scalar", "Scalar: 'torch_fl::x(self); evil(); //'"),
                            10, ["'sdk.converters.Scalar' must be a C++ function name", "e.g. mlu_glue::describe"]),
    "output.rule": (with_mm("output: {rule: 'torch_fl::output_rules::where); system(\"id\"); (void'}"), 19,
                    ["'mm.output.rule' must be a C++ function name"]),
    "a layout converter": (with_mm("layout: {self: {convert: 'torch_fl::x); evil(//'}}"), 19,
                           ["'mm.layout.self.convert' must be a C++ function name"]),
    "a call converter": (VALID_SPEC.replace("mluOpMatMul(stream, self,", "mluOpMatMul(stream, mlu_glue:::x(self),"),
                         19, ["call argument 'mlu_glue:::x(self)' is not a name"]),
    "the call's function": (VALID_SPEC.replace("mluOpMatMul(stream", "mluOpMatMul:(stream"), 19, ["malformed call"]),
    "a workspace query with another placeholder": (
        VALID_SPEC.replace(STREAM, STREAM + '  workspace_query: "{function}{x}"\n'), 8,
        ["'sdk.workspace_query' must be a function name containing {function} once"]),
    "a workspace query with code": (VALID_SPEC.replace(STREAM, STREAM + '  workspace_query: "{function}); evil(//"\n'),
                                    8, ["'sdk.workspace_query' must be a function name"]),
    "sdk.two_phase.executor": (VALID_SPEC.replace(STREAM, STREAM + '  two_phase: {query: "{function}GetWorkspaceSize", '
                                                  'executor: "npunnExecutor* x; evil(); npunnExecutor*"}\n'), 8,
                               ["'sdk.two_phase.executor' must be a C++ type name"]),
    "a vendor that is a C++ keyword": (VALID_SPEC.replace("vendor: mlu", "vendor: class"), 1,
                                       ["'vendor' must be an identifier"]),
    "a custom op name with a quote": (custom("'rms\"norm'", "'rms\"norm(Tensor input, Tensor weight) -> Tensor'"), 21,
                                      ["'custom op name' must be an identifier", "got 'rms\"norm'"]),
    "a custom argument with a quote": (custom(schema="'rms_norm(Tensor in\"put, Tensor weight) -> Tensor'"), 22,
                                       ["custom schema argument 'in\"put' of 'rms_norm' cannot be a C++ parameter"]),
    "a custom argument that is a keyword": (custom(schema="rms_norm(Tensor class, Tensor weight) -> Tensor"), 22,
                                            ["custom schema argument 'class'"]),
    "a custom argument the kernel declares": (custom(schema="rms_norm(Tensor op, Tensor weight) -> Tensor"), 22,
                                              ["custom schema argument 'op'"]),
    "a custom argument named as the SDK function": (
        custom(schema="rms_norm(Tensor mluOpRmsNorm, Tensor weight) -> Tensor"), 22,
        ["custom schema argument 'mluOpRmsNorm'"]),
    "a custom argument named as a glue namespace": (
        custom(schema="rms_norm(Tensor mlu_glue, Tensor weight) -> Tensor"), 22, ["custom schema argument 'mlu_glue'"]),
    "a header outside the repository": (
        VALID_SPEC.replace("headers: [vendors/mlu/sdk/mlu_ops.h]",
                           f"headers: [vendors/mlu/sdk/mlu_ops.h, {ETC_PASSWD}]"),
        4, [f"'sdk.headers' must be a header path inside the repository, got '{ETC_PASSWD}'"]),
    "aligned: true": (with_mm("layout: {self: {aligned: true}}"), 19,
                      ["'mm.layout.self.aligned' must be a power of two number of bytes", "got 'True'"]),
    "aligned: 3": (with_mm("layout: {self: {aligned: 3}}"), 19, ["must be a power of two", "got '3'"]),
    "aligned: 2**40": (with_mm("layout: {self: {aligned: 1099511627776}}"), 19, ["must be a power of two"]),
}


@pytest.mark.parametrize("case", list(REJECTED))
def test_spec_text_that_would_become_code_is_a_spec_error(tmp_path, case):
    spec, line, fragments = REJECTED[case]
    assert_spec_error(tmp_path, spec, line, *fragments)


HOSTILE_FILE_NAMES = ['x\n#error injected\n.yaml', 'quote".yaml', "back\\slash\\.yaml", "tab\tcr\rnel\x85.yaml",
                      "caf\u00e9\u2028.yaml"]


@pytest.mark.parametrize("file_name", HOSTILE_FILE_NAMES)
def test_a_spec_file_name_is_escaped_in_comments_and_literals(tmp_path, file_name):
    spec = tmp_path / file_name
    spec.write_text(VALID_SPEC)
    files = generate_files(str(spec), REPO_ROOT)[1]
    assert_no_injected_code(files)
    shard = next(text for name, text in files.items() if "wrap_mm(" in text)
    # The KernelInfo names the spec by a literal holding exactly the file name's UTF-8 bytes.
    literal = re.search(r'"mm", ("(?:[^"\\]|\\.)*")', shard).group(1)
    assert _c_string_value(literal).endswith(file_name.encode() + b":19")


def _c_string_value(literal: str) -> bytes:
    """The bytes of a C string literal with the escapes the generator uses."""
    body, out, i = literal[1:-1], bytearray(), 0
    while i < len(body):
        if body[i] == "\\" and body[i + 1] in "01234567":
            out.append(int(body[i + 1:i + 4], 8))
            i += 4
        elif body[i] == "\\":
            out += body[i + 1].encode()
            i += 2
        else:
            out += body[i].encode()
            i += 1
    return bytes(out)


def test_a_schema_default_with_quotes_stays_inside_its_literal(tmp_path):
    schema = r"""rms_norm(Tensor input, Tensor weight, float eps=1e-06, str mode="a\"b") -> Tensor"""
    spec = tmp_path / "spec.yaml"
    spec.write_text(custom(schema=f"'{schema}'"))
    files = generate_files(str(spec), REPO_ROOT)[1]
    assert_no_injected_code(files)
    escaped = schema.replace("\\", "\\\\").replace('"', '\\"')
    assert f'  m.def("{escaped}");' in files["custom_ops.cpp"].splitlines()


def test_a_guard_is_printed_from_its_tree_never_pasted(tmp_path):
    # Python's grammar reads the `#` lines as comments: the guard is `self.dim() == 2`.
    spec = tmp_path / "spec.yaml"
    spec.write_text(with_mm('when: "(self.dim() == 2\\n#define mluOpAdd(...) MLU_RET_SUCCESS\\n#error injected\\n)"'))
    files = generate_files(str(spec), REPO_ROOT)[1]
    assert_no_injected_code(files)
    shard = next(text for text in files.values() if "wrap_mm(" in text)
    assert "  if (self.dim() != 2) {  // when: self.dim() == 2" in shard.splitlines()
    assert "#define" not in "".join(files.values()) and "#error" not in "".join(files.values())
