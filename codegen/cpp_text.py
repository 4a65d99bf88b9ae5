"""Spec text on its way into C++: the grammar a name must match before the
generator emits it as code, and the escaping of text that C++ only quotes or
comments.

A spec is untrusted input (vendor pull requests are generated and built by
CI), so nothing from it reaches C++ unchecked:
- names (SDK functions, converters, output rules, status types and values,
  custom op and argument names) must match the grammar here, and are then
  emitted as they are;
- free text (file names, spec lines, schemas) only appears through
  string_literal() or comment(), in which no character can end the literal or
  the comment early, or splice the next line into it.
"""
from __future__ import annotations

import re

# C++17's keywords and alternative tokens: valid identifiers to a regex, not to a compiler.
KEYWORDS = frozenset("""
    alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t char32_t class
    compl concept const consteval constexpr constinit const_cast continue co_await co_return co_yield decltype
    default delete do double dynamic_cast else enum explicit export extern false float for friend goto if inline
    int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected public
    register reinterpret_cast requires return short signed sizeof static static_assert static_cast struct switch
    template this thread_local throw true try typedef typeid typename union unsigned using virtual void volatile
    wchar_t while xor xor_eq
    """.split())

# Names a generated kernel declares itself, or qualifies other names with
# (emit_cpp.py): a custom op's parameter named so would hide them. Also the
# shapes of the locals it derives from parameter names (x_arg, x_laid, ...).
GENERATED_NAMES = frozenset({
    "op", "guard", "expected", "status", "query_status", "sdk_call", "query_call", "workspace", "workspace_bytes", "executor", "stream_arg",
    "self_meta", "saved", "ctx", "grads", "grad_outputs", "below_autograd", "backward_op",
    "at", "c10", "std", "torch", "torch_fl"})
_GENERATED_SHAPE = re.compile(r"\w*_(?:arg\d*|on_device|laid|meta|as_\w+)|computed_arg\d*")

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_POINTER_TYPE = re.compile(r"(?P<name>[A-Za-z0-9_:]+)(?P<stars>(?:\s*\*)*)")
_INTEGER = re.compile(r"-?(?:0|[1-9][0-9]{0,17})")  # fits int64_t whatever the digits


def is_identifier(text: str) -> bool:
    return bool(_IDENTIFIER.fullmatch(text)) and text not in KEYWORDS


def is_parameter_name(text: str) -> bool:
    """A name a generated kernel can take a parameter by."""
    return is_identifier(text) and text not in GENERATED_NAMES and not _GENERATED_SHAPE.fullmatch(text)


def is_qualified_name(text: str) -> bool:
    """`name` or `ns::name` (a leading `::` allowed): a function, type or constant."""
    parts = text.split("::")
    if parts[0] == "" and len(parts) > 1:
        parts = parts[1:]
    return all(is_identifier(part) for part in parts)


def is_type_name(text: str) -> bool:
    """A qualified name, possibly a pointer to one: `mluRet_t`, `npunnExecutor*`."""
    match = _POINTER_TYPE.fullmatch(text)
    return bool(match) and is_qualified_name(match.group("name"))


def is_constant(text: str) -> bool:
    """A status value: a qualified name (an enumerator, a macro) or an integer literal."""
    return is_qualified_name(text) or bool(_INTEGER.fullmatch(text))


def string_literal(text: str) -> str:
    """text as a C++ string literal with the same UTF-8 bytes.

    Quotes and backslashes are escaped; every byte outside printable ASCII is a
    three-digit octal escape, which (unlike \\x) cannot swallow the next character."""
    out = []
    for byte in text.encode("utf-8"):
        char = chr(byte)
        if char in '"\\':
            out.append("\\" + char)
        elif 0x20 <= byte < 0x7F:
            out.append(char)
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def comment(text: str) -> str:
    """text made safe to follow `//` on one line.

    Printable ASCII stays; anything else is shown escaped. A line break would
    end the comment (and make the rest code), and a backslash at the end of the
    line would continue the comment onto the next one: a backslash is shown as
    \\x5c, so no escape ends in a backslash."""
    out = []
    for char in text:
        if char == "\\":
            out.append("\\x5c")
        elif " " <= char <= "~":
            out.append(char)
        else:
            out.append(char.encode("unicode_escape").decode("ascii"))
    return "".join(out)
