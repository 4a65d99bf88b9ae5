"""How the spec parser reads located YAML nodes (source.py): the `Reader`, which
checks a node's kind and keys and collects every error (errors.py) instead of
stopping at the first, and the grammars a string must follow before the
generator emits it as C++ or includes it as a header.

The spec_*.py modules parse one section each with it; spec_parser.parse() runs
them over a whole spec.
"""
from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Callable, Optional

from . import cpp_text
from .errors import ErrorSink, Location, did_you_mean
from .source import Mapping, Node, Scalar, Sequence
from .spec_model import DTYPES

@dataclass(frozen=True)
class Grammar:
    """What a spec string must be before the generator emits it as C++ (or
    includes it as a header): spec text is never pasted into C++ unchecked."""
    accepts: Callable[[str], bool]
    expected: str
    example: str


# Relative, below the repository: no component starts with '.', so none is '..'.
_HEADER_PATH = re.compile(r"(?:[A-Za-z0-9_][A-Za-z0-9_.+-]*/)*[A-Za-z0-9_][A-Za-z0-9_.+-]*\.(?:h|hh|hpp|hxx)")
_PLACEHOLDER = "{function}"


def _is_header_path(text: str) -> bool:
    return bool(_HEADER_PATH.fullmatch(text))


def _is_query_template(text: str) -> bool:
    """`{function}GetWorkspaceSize`: a function name once the call's function is put in."""
    return text.count(_PLACEHOLDER) == 1 and cpp_text.is_identifier(text.replace(_PLACEHOLDER, "f"))


FUNCTION = Grammar(cpp_text.is_qualified_name, "a C++ function name", "mlu_glue::describe")
TYPE = Grammar(cpp_text.is_type_name, "a C++ type name", "mluRet_t")
CONSTANT = Grammar(cpp_text.is_constant, "a C++ constant (a name or an integer)", "MLU_RET_SUCCESS")
IDENTIFIER = Grammar(cpp_text.is_identifier, "an identifier that is not a C++ keyword", "rms_norm")
HEADER = Grammar(_is_header_path, "a header path inside the repository", "vendors/mlu/sdk/mlu_ops.h")
QUERY = Grammar(_is_query_template, "a function name containing {function} once", '"{function}GetWorkspaceSize"')


class Reader:
    """Typed access to located nodes: each method returns the value, or a neutral
    one (None, (), the default) after adding an error that names the place."""

    def __init__(self, errors: ErrorSink):
        self.errors = errors

    def mapping(self, node: Optional[Node], what: str, where: Location) -> Optional[Mapping]:
        if node is None:
            self.errors.add(where, f"missing '{what}'", "add it: see specs/README.md")
            return None
        if not isinstance(node, Mapping):
            self.errors.add(node.location, f"'{what}' must be a mapping")
            return None
        return node

    def check_keys(self, node: Mapping, allowed: tuple[str, ...], what: str) -> None:
        for key in node.keys():
            if key not in allowed:
                self.errors.add(node.key_location(key), f"unknown key '{key}' in {what}",
                                did_you_mean(key, allowed, f"expected one of: {', '.join(allowed)}"))

    def string(self, node: Optional[Node], what: str, where: Location, required: bool = True) -> Optional[str]:
        if node is None:
            if required:
                self.errors.add(where, f"missing '{what}'", f"add `{what.rsplit('.', 1)[-1]}: ...`")
            return None
        if not isinstance(node, Scalar) or not isinstance(node.value, str) or not node.value:
            self.errors.add(node.location, f"'{what}' must be a non-empty string")
            return None
        return node.value

    def follows(self, text: str, grammar: Grammar, what: str, where: Location) -> bool:
        if grammar.accepts(text):
            return True
        self.errors.add(where, f"'{what}' must be {grammar.expected}, got '{text}'", f"e.g. {grammar.example}")
        return False

    def code(self, node: Optional[Node], what: str, where: Location, grammar: Grammar,
             required: bool = True) -> Optional[str]:
        """A string that becomes C++ text, so it is checked against `grammar` here
        (spec text is never pasted into C++ unchecked): None, with an error, unless
        it follows it."""
        text = self.string(node, what, where, required)
        if text is None or not self.follows(text, grammar, what, node.location):
            return None
        return text

    def code_list(self, node: Optional[Node], what: str, grammar: Grammar) -> tuple[str, ...]:
        return tuple(text for text, loc in self.string_list(node, what) if self.follows(text, grammar, what, loc))

    def string_list(self, node: Optional[Node], what: str) -> tuple[tuple[str, Location], ...]:
        if node is None:
            return ()
        if not isinstance(node, Sequence):
            self.errors.add(node.location, f"'{what}' must be a list")
            return ()
        out = []
        for item in node.items:
            if isinstance(item, Scalar) and isinstance(item.value, str):
                out.append((item.value, item.location))
            else:
                self.errors.add(item.location, f"each entry of '{what}' must be a string")
        return tuple(out)

    def enum(self, node: Optional[Node], enum_type: type[enum.Enum], what: str, default: enum.Enum) -> enum.Enum:
        if node is None:
            return default
        choices = [e.value for e in enum_type]
        if isinstance(node, Scalar) and node.value in choices:
            return enum_type(node.value)
        text = node.value if isinstance(node, Scalar) else "<non-scalar>"
        self.errors.add(node.location, f"invalid {what} '{text}'",
                        did_you_mean(str(text), choices, f"expected one of: {', '.join(choices)}"))
        return default

    def dtypes(self, node: Optional[Node], what: str) -> Optional[tuple[str, ...]]:
        if node is None:
            return None
        result = []
        for name, loc in self.string_list(node, what):
            if name not in DTYPES:
                self.errors.add(loc, f"unknown dtype '{name}'",
                                did_you_mean(name, DTYPES, f"expected one of: {', '.join(DTYPES)}"))
            else:
                result.append(name)
        return tuple(result)

