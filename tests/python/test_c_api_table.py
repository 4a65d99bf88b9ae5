"""The ctypes table of torch_fl._backend (_declare) against its C counterpart,
runtime/src/python_c_api.h: every function in both, with the same result and
argument types. A mismatch would pass the wrong width or read a pointer as an int."""
from __future__ import annotations

import ctypes
import pathlib
import re

import pytest

from torch_fl import _backend

HEADER = pathlib.Path(__file__).resolve().parents[2] / "runtime" / "src" / "python_c_api.h"
DECLARATION = re.compile(r"^(const char\*|int) (tfl_\w+)\(([^)]*)\);", re.MULTILINE)
CTYPES = {
    "int": ctypes.c_int, "uint64_t": ctypes.c_uint64, "uintptr_t": ctypes.c_void_p,
    "const char*": ctypes.c_char_p, "int*": ctypes.POINTER(ctypes.c_int),
    "uint64_t*": ctypes.POINTER(ctypes.c_uint64), "uint8_t*": ctypes.POINTER(ctypes.c_uint8),
    "const uint8_t*": ctypes.POINTER(ctypes.c_uint8), "const char**": ctypes.POINTER(ctypes.c_char_p),
    "tflDeviceProperties*": ctypes.POINTER(_backend.DriverDeviceProperties),
    "torch_fl::LogSink": ctypes.c_void_p,  # a C function pointer, passed as ctypes makes it
    "torch_fl::OutOfMemoryObserver": ctypes.c_void_p,
}


def header_declarations(text: str) -> dict[str, tuple[type, list[type]]]:
    declared = {}
    for result, name, parameters in DECLARATION.findall(text):
        argument_types = []
        for parameter in filter(None, (p.strip() for p in parameters.split(","))):
            c_type = parameter.rsplit(" ", 1)[0].replace(" *", "*")
            assert c_type in CTYPES, f"{name}: no ctypes type known for the C type {c_type!r}"
            argument_types.append(CTYPES[c_type])
        declared[name] = (CTYPES[result], argument_types)
    return declared


class RecordingLibrary:
    """What _declare sets, function by function."""

    class Function:
        restype = None
        argtypes = None

    def __init__(self):
        self.functions: dict[str, RecordingLibrary.Function] = {}

    def __getattr__(self, name):
        return self.functions.setdefault(name, RecordingLibrary.Function())


def test_the_ctypes_table_is_the_header_function_for_function():
    header = header_declarations(HEADER.read_text())
    assert len(header) > 40, "the header's declarations were not read"
    library = RecordingLibrary()
    _backend._declare(library)
    table = {name: (f.restype, list(f.argtypes)) for name, f in library.functions.items()}
    assert sorted(set(header) - set(table)) == [], "declared in the header, missing from _backend._declare"
    assert sorted(set(table) - set(header)) == [], "in _backend._declare, missing from the header"
    assert {name: table[name] for name in header if table[name] != header[name]} == {}


def test_the_loaded_library_exports_every_function_of_the_header():
    library = _backend.load().lib
    missing = [name for name in header_declarations(HEADER.read_text()) if not hasattr(library, name)]
    assert missing == []


@pytest.mark.parametrize("line, message", [
    ("int tfl_x(float value);", "no ctypes type known for the C type 'float'"),
])
def test_an_unknown_c_type_is_named(line, message):
    with pytest.raises(AssertionError, match=message):
        header_declarations(line)
