"""Reading one spec file as text: a regular file, at most a byte limit, strict
UTF-8 without control characters. Anything else is a spec error, not a
traceback: a spec is untrusted input (a directory, /dev/zero or a FIFO named
by an include, a file saved as UTF-16). The headers a spec names are read
through the same bounded reader."""
from __future__ import annotations

import os
import re
import stat

from .errors import Location, SpecError, SpecErrors
from .limits import SPEC_BYTES

# What YAML itself refuses (YAML 1.1 §5.1, PyYAML's Reader): C0 controls other
# than tab and line breaks, DEL, C1 controls, surrogates, U+FFFE/U+FFFF.
_NOT_PRINTABLE = re.compile("[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\U00010000-\U0010FFFF]")
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def _fail(where: Location, message: str, suggestion: str | None = None) -> SpecErrors:
    return SpecErrors([SpecError(where, message, suggestion)])


def _location(display: str, text_before: str) -> Location:
    """The location just after text_before, the start of a file's text."""
    line = text_before.count("\n") + 1
    return Location(display, line, len(text_before) - (text_before.rfind("\n") + 1) + 1)


def read_bytes(path: str, name: str, where: Location, limit: int) -> bytes:
    """The bytes of the regular file at path, at most limit of them; errors at `where`."""
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise _fail(where, f"{name} not found") from None
    except OSError as error:
        raise _fail(where, f"{name} cannot be read: {error.strerror}") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise _fail(where, f"{name} is a directory")
        if not stat.S_ISREG(mode):
            raise _fail(where, f"{name} is not a regular file")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        data = b"".join(chunks)
    except OSError as error:
        raise _fail(where, f"{name} cannot be read: {error.strerror}") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise _fail(where, f"{name} is too large: a spec with its includes is at most {SPEC_BYTES} bytes"
                    if limit <= SPEC_BYTES else f"{name} is larger than {limit} bytes", "is this the right file?")
    return data


def read(path: str, display: str, limit: int, where: Location | None = None, name: str = "spec file") -> str:
    """The text of the spec file at path, of at most `limit` bytes.

    display names the file in errors inside its text; `where` and `name` say
    where the file was asked for (an include line) and how to call it."""
    where = where or Location(display)
    data = read_bytes(path, name, where, limit)
    if data.startswith(_UTF16_BOMS):
        raise _fail(Location(display, 1, 1), "the file is UTF-16 text; specs are UTF-8", "save it as UTF-8")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        before = data[:error.start].decode("utf-8", errors="replace")
        raise _fail(_location(display, before), f"not valid UTF-8: byte 0x{data[error.start]:02x} "
                    f"at offset {error.start}", "specs are UTF-8 text: save the file as UTF-8") from None
    bad = _NOT_PRINTABLE.search(text)
    if bad:
        raise _fail(_location(display, text[:bad.start()]),
                    f"control character U+{ord(bad.group(0)):04X} is not allowed in a spec",
                    "specs are UTF-8 text; a NUL often means UTF-16")
    return text
