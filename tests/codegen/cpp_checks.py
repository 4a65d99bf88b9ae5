"""Checks of generated C++ for tests: a lexical one that is instant (spec text
cannot have become code), and `g++ -fsyntax-only` against torch's headers
(the generated code compiles)."""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import tempfile

from conftest import REPO_ROOT


class LexError(AssertionError):
    pass


def code_only(text: str) -> list[str]:
    """The lines of a C++ file with comments and the contents of string and
    character literals removed. A literal or comment left open where C++ would
    not allow it, or a line spliced by a trailing backslash, is a LexError."""
    lines = []
    for number, line in enumerate(text.split("\n"), 1):
        if line.rstrip(" \t").endswith("\\"):
            raise LexError(f"line {number} ends in a backslash: the next line is spliced onto it: {line!r}")
        if "\r" in line or "\f" in line or "\v" in line:
            raise LexError(f"line {number} has a control character that some compilers read as a line break")
        code, i = [], 0
        while i < len(line):
            char = line[i]
            if line.startswith("//", i):
                break
            if line.startswith("/*", i):
                end = line.find("*/", i + 2)
                if end < 0:
                    raise LexError(f"line {number}: a block comment continues past the line: {line!r}")
                i = end + 2
                continue
            if char in "\"'":
                j = i + 1
                while j < len(line) and line[j] != char:
                    j += 2 if line[j] == "\\" else 1
                if j >= len(line):
                    raise LexError(f"line {number}: unterminated literal: {line!r}")
                code.append(char + char)
                i = j + 1
                continue
            code.append(char)
            i += 1
        lines.append("".join(code))
    return lines


def assert_no_injected_code(files: dict[str, str]) -> None:
    """Every preprocessor line of the generated C++ is one of the generator's
    own #includes: spec text cannot have added a directive or a line."""
    for name, text in files.items():
        if not name.endswith(".cpp"):
            continue
        for line in code_only(text):
            stripped = line.strip()
            if stripped.startswith("#"):
                assert stripped.startswith("#include <") or stripped.startswith('#include ""'), (name, line)


def compiler() -> str | None:
    return shutil.which(os.environ.get("CXX", "g++"))


def _include_flags(vendor_dir: str) -> list[str]:
    # torch.utils.cpp_extension.include_paths(), without importing torch (seconds).
    torch_dir = importlib.util.find_spec("torch").submodule_search_locations[0]
    flags = []
    include = os.path.join(torch_dir, "include")
    for path in (include, os.path.join(include, "torch", "csrc", "api", "include")):
        flags += ["-isystem", path]
    for sub in ("runtime/include", f"{vendor_dir}/sdk", f"{vendor_dir}/driver", "vendors/sim"):
        flags += ["-I", os.path.join(REPO_ROOT, sub)]
    # A CUDA vendor's SDK headers include the CUDA runtime's.
    nvcc = shutil.which("nvcc")
    for cuda in (os.environ.get("CUDA_HOME"), nvcc and os.path.dirname(os.path.dirname(os.path.realpath(nvcc))),
                 "/usr/local/cuda"):
        if cuda and os.path.isfile(os.path.join(cuda, "include", "cuda_runtime_api.h")):
            flags += ["-isystem", os.path.join(cuda, "include")]
            break
    return flags


def _cxx_standard() -> str:
    """As CMakeLists.txt: torch 2.14's headers need C++20."""
    import torch
    major, minor = (int(part) for part in torch.__version__.split(".")[:2])
    return "gnu++20" if (major, minor) >= (2, 14) else "gnu++17"


def syntax_check(files: dict[str, str], vendor_dir: str = "vendors/mlu",
                 timeout: float = 300) -> subprocess.CompletedProcess:
    """g++ -fsyntax-only over the generated .cpp files, as one translation unit
    (the torch headers are parsed once), with the flags the backend build uses."""
    with tempfile.TemporaryDirectory() as scratch:
        unit = os.path.join(scratch, "generated_unit.cpp")
        with open(unit, "w", encoding="utf-8") as f:
            for name in sorted(files):
                if name.endswith(".cpp"):
                    f.write(f"// ---- {name}\n{files[name]}\n")
        command = [compiler(), f"-std={_cxx_standard()}", "-fsyntax-only", *_include_flags(vendor_dir), unit]
        return subprocess.run(command, capture_output=True, text=True, timeout=timeout)
