"""A typed `when:` guard (guards.Expr) → the C++ condition a kernel tests.

Printed as a person would write it: parentheses only where C++ precedence
needs them or where GCC's -Wparentheses asks for them (`&&` inside `||`, a
`!` or a comparison used as an operand of a comparison).
"""
from __future__ import annotations

from . import guards

# C++ precedence, loosest first; a child looser than its context is parenthesized.
_OR, _AND, _EQUALITY, _RELATIONAL, _UNARY, _ATOM = range(1, 7)
_LEVEL = {"==": _EQUALITY, "!=": _EQUALITY, "<": _RELATIONAL, "<=": _RELATIONAL, ">": _RELATIONAL, ">=": _RELATIONAL}
# Negating these flips the operator and is exact for every value, NaN included
# (`!(a < b)` is not `a >= b` for NaN, so relational operators are never flipped).
_NEGATED_EQUALITY = {"==": "!=", "!=": "=="}


def condition(expr: guards.Expr) -> str:
    """The guard itself: true when the native kernel may run."""
    return _print(expr)[0]


def negated(expr: guards.Expr) -> str:
    """The guard's negation: true when the kernel must fall back."""
    if isinstance(expr, guards.Not):
        return _print(expr.operand)[0]
    if isinstance(expr, guards.IsNone):
        return _print(guards.IsNone(expr.target, not expr.negated))[0]
    if isinstance(expr, guards.Compare) and len(expr.operators) == 1 and expr.operators[0] in _NEGATED_EQUALITY:
        return _print(guards.Compare(expr.operands, (_NEGATED_EQUALITY[expr.operators[0]],)))[0]
    return f"!{_wrapped(expr, _UNARY)}"


def _wrapped(expr: guards.Expr, at_least: int) -> str:
    text, level = _print(expr)
    return text if level >= at_least else f"({text})"


def _print(expr: guards.Expr) -> tuple[str, int]:
    """(C++ text, its precedence level)."""
    if isinstance(expr, guards.Logical):
        level = _AND if expr.operator == "and" else _OR
        parts = []
        for operand in expr.operands:
            text, inner = _print(operand)
            # `a || b && c` is correct C++ but reads wrong (and GCC warns): mixed
            # logical operators are parenthesized.
            parts.append(f"({text})" if inner < level or (inner in (_AND, _OR) and inner != level) else text)
        return (" && " if level == _AND else " || ").join(parts), level
    if isinstance(expr, guards.Not):
        return f"!{_wrapped(expr.operand, _UNARY + 1)}", _UNARY
    if isinstance(expr, guards.Negate):
        # `- -x` must not print as the decrement `--x`: a unary operand is parenthesized.
        return f"-{_wrapped(expr.operand, _UNARY + 1)}", _UNARY
    if isinstance(expr, guards.Compare):
        pairs = []
        for left, operator, right in zip(expr.operands, expr.operators, expr.operands[1:]):
            # An operand is an atom or a negation; `!x == y` reads wrong, and a
            # comparison compared (`(a == b) == c`) needs its parentheses.
            pairs.append(f"{_operand(left)} {operator} {_operand(right)}")
        if len(pairs) == 1:
            return pairs[0], _LEVEL[expr.operators[0]]
        return " && ".join(pairs), _AND
    if isinstance(expr, guards.IsNone):
        if expr.negated:
            return f"{expr.target}.has_value()", _ATOM
        return f"!{expr.target}.has_value()", _UNARY
    if isinstance(expr, guards.Literal):
        if isinstance(expr.value, bool):
            return ("true" if expr.value else "false"), _ATOM
        # repr of a finite float is a valid C++ double literal (1e-06, 2.5, 1e+300).
        return (repr(expr.value) if isinstance(expr.value, float) else str(expr.value)), _ATOM
    if isinstance(expr, guards.Argument):
        return expr.name, _ATOM
    if isinstance(expr, guards.Length):
        return f"static_cast<int64_t>({expr.target}.size())", _ATOM
    index = condition(expr.index) if expr.index is not None else ""
    return f"{expr.target}.{expr.method}({index})", _ATOM


def _operand(expr: guards.Expr) -> str:
    text, level = _print(expr)
    if level == _ATOM or (level == _UNARY and isinstance(expr, guards.Negate)):
        return text
    return f"({text})"
