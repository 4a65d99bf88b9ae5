"""A typed guard prints as the C++ a person would write: no doubled negations
or redundant parentheses, but every parenthesis C++ precedence (or GCC's
-Wparentheses) needs, and a negation that is exact for NaN too."""
from __future__ import annotations

import pytest

from codegen import emit_guard, guards

ARGUMENTS = {"transposed": "bool", "groups": "SymInt", "eps": "float", "x": "Tensor", "bias": "Tensor?",
             "stride": "SymInt[]", "flag": "bool"}


def parsed(text: str) -> guards.Expr:
    return guards.parse(text, ARGUMENTS)


@pytest.mark.parametrize("guard, fallback_when", [
    ("not transposed", "transposed"),
    ("transposed", "!transposed"),
    ("bias is None", "bias.has_value()"),
    ("bias is not None", "!bias.has_value()"),
    ("x.scalar_type() == x.scalar_type()", "x.scalar_type() != x.scalar_type()"),
    ("groups != 1", "groups == 1"),
    # !(eps < 1) is true for NaN, eps >= 1 is not: relational operators are not flipped.
    ("eps < 1.0", "!(eps < 1.0)"),
    ("not transposed and groups == 1 and x.dim() == 4", "!(!transposed && groups == 1 && x.dim() == 4)"),
])
def test_the_fallback_condition_reads_as_written_by_hand(guard, fallback_when):
    assert emit_guard.negated(parsed(guard)) == fallback_when


@pytest.mark.parametrize("guard, cpp", [
    ("1 <= groups <= 1024", "1 <= groups && groups <= 1024"),
    ("transposed and groups == 1 or flag", "(transposed && groups == 1) || flag"),
    ("transposed or (groups == 1 and flag)", "transposed || (groups == 1 && flag)"),
    ("transposed == (groups == 1)", "transposed == (groups == 1)"),
    ("(not transposed) == flag", "(!transposed) == flag"),
    ("x.size(-1) == - -groups", "x.size(-1) == -(-groups)"),
    ("len(stride) == 2", "static_cast<int64_t>(stride.size()) == 2"),
    ("not (groups == 1)", "!(groups == 1)"),
    ("x.is_contiguous() == True", "x.is_contiguous() == true"),
    ("eps > 1e-12", "eps > 1e-12"),
])
def test_parentheses_only_where_precedence_needs_them(guard, cpp):
    assert emit_guard.condition(parsed(guard)) == cpp
