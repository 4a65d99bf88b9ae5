"""The spec front end's fuzz target: hypothesis strategies for hostile specs,
and the oracle every generation run must satisfy.

Specs are drawn three ways: structured mutations of the real specs (a value
replaced by hostile text, a wrong type or a random guard; a key deleted or
added), byte-level mutations of their text (YAML features, control bytes,
broken encodings, deep nesting spliced in), and random YAML documents under
the spec's own keys.

The oracle (check_run): generation either exits 0 with C++ in which no spec
text became code (and, when asked, that g++ accepts), or exits 2 with one
line per error and nothing written. Never a traceback, never a run longer
than RUN_SECONDS.
"""
from __future__ import annotations

import contextlib
import copy
import hashlib
import io
import json
import os
import re
import signal
import time
from dataclasses import dataclass

import yaml
from conftest import REPO_ROOT
from cpp_checks import assert_no_injected_code, syntax_check
from hypothesis import strategies as st

from codegen.__main__ import main

VENDORS = ("mlu", "npu", "nvidia")
RUN_SECONDS = 20  # one generation; real specs take 0.2 s
SPEC_TEXT = {v: open(os.path.join(REPO_ROOT, "specs", f"{v}.yaml"), encoding="utf-8").read() for v in VENDORS}
SPEC_DATA = {v: yaml.safe_load(text) for v, text in SPEC_TEXT.items()}

HOSTILE_TEXT = [
    "\n#error injected\n", "x\n#define mluOpAdd(...) MLU_RET_SUCCESS\n", '"', "'", "\\", "a\\", "); evil(); //",
    "*/ evil(); /*", "<script>alert(1)</script>", "a | b", "{function}", "{x}", "{function.__class__}",
    "{function}{function}", "\u2028", "\r", "\x85", "caf\u00e9", "x" * 300, "mlu_glue::describe", "torch_fl::nothing",
    "::", "a:::b", "class", "int", "0", "-1", "1e400", "True", "None", "", " ", "self", "op", "out",
    "mluOpAdd(stream, self, other, alpha, out)", "f(", "f())", "npunnExecutor*", "npunnExecutor**", "a b",
    "../../etc/passwd", "/dev/zero", "vendors/mlu/sdk/mlu_ops.h", "specs/mlu.yaml", "cuda", "meta", "MLU",
    "2.13", "2." + "9" * 5000, "9" * 5000, "\x00", "\ud7ff\ue000", "rms_norm(Tensor input) -> Tensor",
]
HOSTILE_VALUES = st.one_of(
    st.sampled_from(HOSTILE_TEXT), st.text(max_size=40),
    st.integers(min_value=-2**70, max_value=2**70), st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(), st.none(), st.just([]), st.just({}),
    st.lists(st.sampled_from(HOSTILE_TEXT), max_size=3),
    st.dictionaries(st.sampled_from(["fn", "pass", "like", "rule", "aligned", "convert", "reuse", "min", "max",
                                     "default", "float64", "x"]), st.sampled_from(HOSTILE_TEXT + [True, 64, 3]),
                    max_size=2))
SPEC_KEYS = ["vendor", "device", "sdk", "defaults", "ops", "custom", "autocast", "include", "headers", "glue",
             "status", "stream", "converters", "workspace_query", "two_phase", "call", "variants", "dtypes",
             "fallback", "output", "known_failure", "dtype_from", "when", "layout", "torch", "autograd", "cast",
             "schema", "backward", "grads", "reference", "like", "rule", "aligned", "convert", "reuse", "<<"]

# Guards: argument names, methods and literals, combined by the guard grammar and beyond it.
GUARD_NAMES = ["self", "other", "input", "weight", "bias", "alpha", "groups", "transposed", "stride", "dim",
               "dtype", "keepdim", "eps", "p", "train", "tensors", "half_to_float", "kernel_size", "nosuch"]
GUARD_ATOMS = st.one_of(
    st.sampled_from(GUARD_NAMES),
    st.builds("{}.{}()".format, st.sampled_from(GUARD_NAMES),
              st.sampled_from(["dim", "numel", "is_contiguous", "scalar_type", "size", "data_ptr"])),
    st.builds("{}.{}({})".format, st.sampled_from(GUARD_NAMES), st.sampled_from(["size", "stride"]),
              st.sampled_from(["0", "-1", "1.5", "True", "self"])),
    st.builds("len({})".format, st.sampled_from(GUARD_NAMES)),
    st.sampled_from(["0", "1", "-1", "2.5", "1e-06", "1e400", "99999999999999999999", "True", "False", "None",
                     "'x'", "1j", "(1, 2)", "[1]", "__import__('os')", "lambda: 1", "x.y.z"]))
GUARDS = st.recursive(
    GUARD_ATOMS,
    lambda inner: st.one_of(
        st.builds("{} {} {}".format, inner, st.sampled_from(["==", "!=", "<", "<=", ">", ">=", "is", "is not",
                                                             "and", "or", "in", "+", "*"]), inner),
        st.builds("not {}".format, inner), st.builds("-{}".format, inner), st.builds("({})".format, inner),
        st.builds("{}\n#define X 1\n{}".format, inner, inner)),
    max_leaves=6)

YAML_TOKENS = ["&a ", "*a", "!!python/name:os.system ", "!!int ", "!!timestamp ", "!binary ", "<<: ", "? ", "---\n",
               "...\n", "[", "]", "{", "}", '"', "'", "\n", "\t", ": ", "- ", "#", "|\n", ">\n", "~", "%YAML 1.1\n",
               "include: [mlu.yaml]\n", "include: [common/autocast.yaml]\n", "[" * 40, "9" * 5000, "\\", "\\u0000"]
BYTE_TOKENS = [b"\x00", b"\xff", b"\xfe\xff", b"\xef\xbb\xbf", b"\xc3", b"\xe2\x80\xa8", b"\x1b[31m", b"\r"]


def _paths(node, prefix=()):
    """Every (key or index path) into a loaded spec, containers included."""
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, prefix + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, prefix + (index,))


def _parent(data, path):
    for step in path[:-1]:
        data = data[step]
    return data


@st.composite
def structured_specs(draw) -> tuple[str, bytes]:
    vendor = draw(st.sampled_from(VENDORS))
    data = copy.deepcopy(SPEC_DATA[vendor])
    ops = data.get("ops") or {}
    for _ in range(draw(st.integers(0, 2))):  # hostile text where a spec may put text: often accepted
        op = ops[draw(st.sampled_from(sorted(ops)))]
        key = draw(st.sampled_from(["when", "when", "known_failure"]))
        op[key] = draw(GUARDS) if key == "when" else draw(st.sampled_from(HOSTILE_TEXT) | st.text(min_size=1))
    for _ in range(draw(st.integers(0, 2))):
        paths = [p for p in _paths(data) if p]
        path = draw(st.sampled_from(paths))
        parent, last = _parent(data, path), path[-1]
        action = draw(st.sampled_from(["replace", "replace", "guard", "delete", "add_key"]))
        if action == "replace":
            parent[last] = draw(HOSTILE_VALUES)
        elif action == "guard" and isinstance(parent.get(last) if isinstance(parent, dict) else None, dict):
            parent[last]["when"] = draw(GUARDS)
        elif action == "delete":
            del parent[last]
        elif action == "add_key" and isinstance(parent, dict):
            parent[draw(st.sampled_from(SPEC_KEYS))] = draw(HOSTILE_VALUES)
    text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=2**16)
    return vendor, text.encode("utf-8")


@st.composite
def mutated_texts(draw) -> tuple[str, bytes]:
    vendor = draw(st.sampled_from(VENDORS))
    data = SPEC_TEXT[vendor].encode("utf-8")
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        action = draw(st.sampled_from(["token", "token", "bytes", "delete", "duplicate"]))
        if action == "token":
            data = data[:at] + draw(st.sampled_from(YAML_TOKENS)).encode() + data[at:]
        elif action == "bytes":
            data = data[:at] + draw(st.sampled_from(BYTE_TOKENS)) + data[at:]
        elif action == "delete":
            data = data[:at] + data[at + draw(st.integers(1, 200)):]
        else:
            end = min(len(data), at + draw(st.integers(1, 400)))
            data = data[:end] + data[at:end] + data[end:]
    return vendor, data


YAML_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=20),
              st.sampled_from(HOSTILE_TEXT)),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.sampled_from(SPEC_KEYS) | st.text(max_size=8), inner, max_size=4)),
    max_leaves=20)


@st.composite
def random_documents(draw) -> tuple[str, bytes]:
    document = draw(st.dictionaries(st.sampled_from(SPEC_KEYS), YAML_VALUES, max_size=8))
    return "mlu", yaml.safe_dump(document, allow_unicode=True).encode("utf-8")


SPECS = st.one_of(structured_specs(), mutated_texts(), random_documents())


# ----------------------------------------------------------------------------
# running and judging


class RunTooLong(AssertionError):
    pass


@dataclass(frozen=True)
class Run:
    status: int
    stdout: str
    stderr: str
    files: dict[str, str]
    seconds: float


def _alarm(signum, frame):
    raise RunTooLong(f"generation ran past {RUN_SECONDS} s")


def generate(spec_dir: str, vendor: str, spec: bytes, out_dir: str) -> Run:
    """`python -m codegen generate` on the spec bytes, in process, within RUN_SECONDS."""
    path = os.path.join(spec_dir, f"{vendor}.yaml")
    with open(path, "wb") as f:
        f.write(spec)
    out, err = io.StringIO(), io.StringIO()
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(RUN_SECONDS)
    started = time.monotonic()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(["generate", "--vendor", vendor, "--spec", path, "--out", out_dir])
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    files = {}
    if os.path.isdir(out_dir):
        for name in sorted(os.listdir(out_dir)):
            with open(os.path.join(out_dir, name), encoding="utf-8") as f:
                files[name] = f.read()
    return Run(status, out.getvalue(), err.getvalue(), files, time.monotonic() - started)


_REPORT_LINE = re.compile(r"error: \S.*|\.\.\. and \d+ more errors|\d+ error\(s\); nothing was written|"
                          r"nothing was written")


def check_run(run: Run) -> None:
    """The oracle: exit 0 with C++ free of spec-chosen code, or exit 2 with one
    line per error and nothing written."""
    assert "Traceback" not in run.stderr
    if run.status == 0:
        assert run.files, "exit 0 writes the tree"
        assert_no_injected_code(run.files)
        json.loads(run.files["support_matrix.json"])
        return
    assert run.status == 2, f"exit {run.status}: {run.stderr[-2000:]}"
    lines = run.stderr.splitlines()
    assert lines and all(_REPORT_LINE.fullmatch(line) for line in lines), run.stderr[-2000:]
    assert not run.files, "a refused spec writes nothing"


def changed_cpp(run: Run, baseline: dict[str, str]) -> dict[str, str]:
    """The C++ files of an accepted run that differ from the unmutated spec's."""
    return {name: text for name, text in run.files.items()
            if name.endswith(".cpp") and baseline.get(name) != text}


def compile_errors(files: dict[str, str], vendor: str) -> list[str]:
    result = syntax_check(files, f"vendors/{vendor}")
    return [] if result.returncode == 0 else \
        [line for line in result.stderr.splitlines() if re.search(r"\berror\b", line)] or [result.stderr[-2000:]]


def compilable_vendors(baselines: dict[str, dict[str, str]]) -> set[str]:
    """The vendors whose real spec's C++ compiles here (the nvidia SDK needs the CUDA toolkit's headers)."""
    compilable = set()
    for vendor, files in baselines.items():
        errors = compile_errors({n: t for n, t in files.items() if n.endswith(".cpp")}, vendor)
        if errors:
            print(f"fuzz: not compiling {vendor} specs: its real spec does not compile here: {errors[0]}")
        else:
            compilable.add(vendor)
    return compilable


def assert_compiles(files: dict[str, str], vendor: str, spec: bytes, keep_dir) -> None:
    """g++ accepts files, generated from spec; on failure the spec is kept to reproduce it."""
    errors = compile_errors(files, vendor)
    if errors:
        kept = os.path.join(keep_dir, f"does-not-compile-{vendor}.yaml")
        with open(kept, "wb") as f:
            f.write(spec)
        raise AssertionError(f"accepted spec {kept} generates C++ that does not compile:\n" + "\n".join(errors[:20]))


def tree_digest(directory: str) -> str:
    """Names, contents and mtimes of every file below directory."""
    digest = hashlib.sha256()
    for root, dirs, names in sorted(os.walk(directory)):
        dirs.sort()
        for name in sorted(names):
            path = os.path.join(root, name)
            digest.update(f"{os.path.relpath(path, directory)}\0{os.stat(path).st_mtime_ns}\0".encode())
            with open(path, "rb") as f:
                digest.update(f.read())
    return digest.hexdigest()
