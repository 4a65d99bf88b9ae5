"""`when:` guards: a small typed condition language over an op's arguments.

    when: input.dim() == 4 and not transposed and groups == 1

A guard is parsed (with Python's expression grammar) into the tree below,
type-checked against the overload's argument types, and printed by the
generator: as C++ for the kernel, as canonical text for comments and the
support matrix. The spec's text is never pasted anywhere, so whatever a guard
is accepted as compiles.

Types and what a guard can do with them:
    bool        and, or, not; == and != with bool
    int, float  comparisons with int and float (int and SymInt arguments,
                dim(), numel(), size(i), stride(i), len(list), literals)
    ScalarType  == and != with ScalarType (scalar_type(), ScalarType arguments)
    Tensor      the methods dim(), numel(), size(i), stride(i), is_contiguous(),
                scalar_type()
    optional    `x is None`, `x is not None` (Tensor?, int?, ...)
    list        len(x) (int[], Tensor[], ...)
Anything else (Scalar, str, Generator, ...) cannot appear in a guard.
"""
from __future__ import annotations

import ast
import enum
import math
from dataclasses import dataclass
from typing import Union

from .limits import GUARD_CHARS

INT64_MAX = 2**63 - 1


class GuardType(enum.Enum):
    BOOL = "bool"
    INT = "int"
    FLOAT = "float"
    SCALAR_TYPE = "ScalarType"
    TENSOR = "Tensor"
    OPTIONAL = "optional"
    LIST = "list"
    OTHER = "other"


_NUMBERS = (GuardType.INT, GuardType.FLOAT)


def argument_type(aten_type: str) -> GuardType:
    """The guard type of an ATen argument type ('Tensor', 'int[2]', 'Tensor?', 'Scalar', ...)."""
    if aten_type.endswith("?"):
        return GuardType.OPTIONAL
    if aten_type.endswith("]"):
        return GuardType.LIST
    return {"Tensor": GuardType.TENSOR, "int": GuardType.INT, "SymInt": GuardType.INT, "float": GuardType.FLOAT,
            "bool": GuardType.BOOL, "ScalarType": GuardType.SCALAR_TYPE}.get(aten_type, GuardType.OTHER)


@dataclass(frozen=True)
class Literal:
    value: Union[bool, int, float]

    @property
    def type(self) -> GuardType:
        if isinstance(self.value, bool):
            return GuardType.BOOL
        return GuardType.INT if isinstance(self.value, int) else GuardType.FLOAT


@dataclass(frozen=True)
class Argument:
    name: str
    type: GuardType


@dataclass(frozen=True)
class Method:
    """A tensor method: target.method(index) or target.method()."""
    target: str
    method: str
    index: Union["Expr", None]

    @property
    def type(self) -> GuardType:
        return _TENSOR_METHODS[self.method][1]


@dataclass(frozen=True)
class Length:
    target: str
    type: GuardType = GuardType.INT


@dataclass(frozen=True)
class IsNone:
    target: str
    negated: bool  # `is not None`
    type: GuardType = GuardType.BOOL


@dataclass(frozen=True)
class Compare:
    """A chain `a < b <= c`: each adjacent pair compared, all must hold."""
    operands: tuple["Expr", ...]
    operators: tuple[str, ...]  # C++ and Python alike: == != < <= > >=
    type: GuardType = GuardType.BOOL


@dataclass(frozen=True)
class Not:
    operand: "Expr"
    type: GuardType = GuardType.BOOL


@dataclass(frozen=True)
class Negate:
    operand: "Expr"

    @property
    def type(self) -> GuardType:
        return self.operand.type


@dataclass(frozen=True)
class Logical:
    operator: str  # "and" or "or"
    operands: tuple["Expr", ...]
    type: GuardType = GuardType.BOOL


Expr = Union[Literal, Argument, Method, Length, IsNone, Compare, Not, Negate, Logical]

# method → (number of int arguments, result type)
_TENSOR_METHODS = {"dim": (0, GuardType.INT), "numel": (0, GuardType.INT), "size": (1, GuardType.INT),
                   "stride": (1, GuardType.INT), "is_contiguous": (0, GuardType.BOOL),
                   "scalar_type": (0, GuardType.SCALAR_TYPE)}
_COMPARE = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_EQUALITY = ("==", "!=")


class GuardError(ValueError):
    def __init__(self, message: str, suggestion: str = "write a condition over the op's arguments, "
                                                        "e.g. `input.dim() == 4`"):
        super().__init__(message)
        self.suggestion = suggestion


# ----------------------------------------------------------------------------
# parsing and type checking


def parse(text: str, arguments: dict[str, str]) -> Expr:
    """The typed tree of a guard; arguments: name → ATen type ('Tensor', 'int', 'Tensor?', ...)."""
    if len(text) > GUARD_CHARS:
        raise GuardError(f"guard is longer than {GUARD_CHARS} characters",
                         "a guard is a short condition; split the entry instead")
    text = text.strip()
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError) as error:
        raise GuardError(f"guard '{text}' is not a valid condition: {getattr(error, 'msg', error)}") from None
    checker = _Checker(text, arguments)
    expr = checker.expr(tree.body)
    if expr.type != GuardType.BOOL:
        raise GuardError(f"guard '{text}' is {checker._described(expr)}, not a condition",
                         "compare it: e.g. `input.dim() == 4`")
    if not checker.named:
        raise GuardError(f"guard '{text}' names no argument of the op")
    return expr


def names_in(text: str) -> set[str]:
    """The arguments a guard's text names (methods are attributes, not names);
    empty when it does not parse (parse() reports that)."""
    if len(text) > GUARD_CHARS:
        return set()
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError):
        return set()
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}


class _Checker:
    """Builds the typed tree from Python's AST, refusing what a guard cannot say."""

    def __init__(self, text: str, aten_types: dict[str, str]):
        self.text = text
        self.types = {name: argument_type(t) for name, t in aten_types.items()}
        self.aten_types = aten_types
        self.named: set[str] = set()

    def expr(self, node: ast.AST) -> Expr:
        if isinstance(node, ast.BoolOp):
            operands = tuple(self.condition(v) for v in node.values)
            return Logical("and" if isinstance(node.op, ast.And) else "or", operands)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return Not(self.condition(node.operand))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            operand = self.expr(node.operand)
            if operand.type not in _NUMBERS:
                raise GuardError(f"'-' applies to numbers, not to '{self._source(node.operand)}'")
            return Negate(operand)
        if isinstance(node, ast.Compare):
            return self.compare(node)
        if isinstance(node, ast.Constant):
            return self.literal(node)
        if isinstance(node, ast.Name):
            return self.argument(node)
        if isinstance(node, ast.Call):
            return self.call(node)
        raise GuardError(f"unsupported expression '{self._source(node)}' in guard")

    def condition(self, node: ast.AST) -> Expr:
        expr = self.expr(node)
        if expr.type != GuardType.BOOL:
            raise GuardError(f"{self._described(expr)} is not a condition",
                             "and, or and not combine conditions: compare it, e.g. `x == 1`")
        return expr

    def literal(self, node: ast.Constant) -> Literal:
        value = node.value
        if isinstance(value, bool):
            return Literal(value)
        if isinstance(value, int):
            if value > INT64_MAX:
                raise GuardError(f"integer {value} in guard does not fit in int64")
            return Literal(value)
        if isinstance(value, float):
            if not math.isfinite(value):
                raise GuardError(f"number '{self._source(node)}' in guard is not a finite double",
                                 f"write a number within ±{1.7976931348623157e308}")
            return Literal(value)
        raise GuardError(f"unsupported constant '{self._source(node)}' in guard",
                         "a guard compares numbers and true/false (None only in `x is None`)")

    def argument(self, node: ast.AST) -> Argument:
        if not isinstance(node, ast.Name):
            raise GuardError(f"expected an argument name, got '{self._source(node)}'")
        if node.id not in self.types:
            raise GuardError(f"guard names '{node.id}', which is not an argument of the op "
                             f"(arguments: {', '.join(self.types)})")
        self.named.add(node.id)
        return Argument(node.id, self.types[node.id])

    def call(self, node: ast.Call) -> Expr:
        if node.keywords:
            raise GuardError(f"'{self._source(node)}': guards pass arguments by position")
        if isinstance(node.func, ast.Name) and node.func.id == "len":
            if len(node.args) != 1:
                raise GuardError(f"'{self._source(node)}': len takes one list argument")
            target = self.argument(node.args[0])
            if target.type != GuardType.LIST:
                raise GuardError(f"len({target.name}): {self._described(target)} is not a list")
            return Length(target.name)
        if not isinstance(node.func, ast.Attribute):
            raise GuardError(f"'{self._source(node)}' is not a call a guard can make",
                             f"call a tensor method ({', '.join(_TENSOR_METHODS)}) or len(list)")
        target = self.argument(node.func.value)
        method = node.func.attr
        if target.type != GuardType.TENSOR:
            optional = self.aten_types[target.name] == "Tensor?"
            raise GuardError(f"'{target.name}.{method}()': {self._described(target)} is not a Tensor",
                             f"test `{target.name} is not None`: a guard cannot call methods on an "
                                       "optional tensor" if optional else
                             "methods apply to Tensor arguments")
        if method not in _TENSOR_METHODS:
            raise GuardError(f"'{method}()' is not a tensor method a guard can call",
                             f"use one of: {', '.join(sorted(_TENSOR_METHODS))}")
        arity = _TENSOR_METHODS[method][0]
        if len(node.args) != arity:
            raise GuardError(f"'{target.name}.{method}()' takes {arity} argument(s), got {len(node.args)}")
        index = self.expr(node.args[0]) if arity else None
        if index is not None and index.type != GuardType.INT:
            raise GuardError(f"'{target.name}.{method}({self._source(node.args[0])})': the index must be an int")
        return Method(target.name, method, index)

    def compare(self, node: ast.Compare) -> Expr:
        if len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot)):
            right = node.comparators[0]
            if not (isinstance(right, ast.Constant) and right.value is None):
                raise GuardError(f"'{self._source(node)}': `is` only tests for None")
            target = self.argument(node.left)
            if target.type != GuardType.OPTIONAL:
                raise GuardError(f"'{self._source(node)}': {self._described(target)} is never None",
                                 "only optional arguments (Tensor?, int?, ...) can be None")
            return IsNone(target.name, isinstance(node.ops[0], ast.IsNot))
        operands = [self.expr(node.left)] + [self.expr(c) for c in node.comparators]
        operators = []
        for op, left, right in zip(node.ops, operands, operands[1:]):
            if type(op) not in _COMPARE:
                raise GuardError(f"unsupported comparison '{self._source(node)}' in guard",
                                 "compare with == != < <= > >=, or test `x is None`")
            operator = _COMPARE[type(op)]
            self.comparable(left, operator, right, node)
            operators.append(operator)
        return Compare(tuple(operands), tuple(operators))

    def comparable(self, left: Expr, operator: str, right: Expr, node: ast.AST) -> None:
        if left.type in _NUMBERS and right.type in _NUMBERS:
            return
        if left.type == right.type and left.type in (GuardType.BOOL, GuardType.SCALAR_TYPE) and operator in _EQUALITY:
            return
        culprit = left if left.type not in _NUMBERS else right
        raise GuardError(f"'{self._source(node)}' compares {self._described(left)} with {self._described(right)}",
                         f"'{to_text(culprit)}' cannot be compared with {operator}: guards compare int and float "
                         "values (dim(), size(i), int arguments, ...), and bool or dtype values with == and !=")

    def _source(self, node: ast.AST) -> str:
        """The text of node as the spec wrote it."""
        return ast.get_source_segment(self.text, node) or ast.unparse(node)

    def _described(self, expr: Expr) -> str:
        """'alpha' (Scalar), 'self.dim()' (int): what a message says an operand is."""
        kind = self.aten_types[expr.name] if isinstance(expr, Argument) else expr.type.value
        return f"'{to_text(expr)}' ({kind})"


# ----------------------------------------------------------------------------
# printing

_PRECEDENCE = {"or": 1, "and": 2, "not": 3, "compare": 4, "negate": 5, "atom": 6}


def _precedence(expr: Expr) -> int:
    if isinstance(expr, Logical):
        return _PRECEDENCE[expr.operator]
    if isinstance(expr, Not):
        return _PRECEDENCE["not"]
    if isinstance(expr, (Compare, IsNone)):
        return _PRECEDENCE["compare"]
    if isinstance(expr, Negate):
        return _PRECEDENCE["negate"]
    return _PRECEDENCE["atom"]


def to_text(expr: Expr) -> str:
    """The guard in the spec's own syntax, canonically spaced and parenthesized."""
    def child(sub: Expr, above: int) -> str:
        text = to_text(sub)
        return f"({text})" if _precedence(sub) <= above else text

    if isinstance(expr, Logical):
        return f" {expr.operator} ".join(child(o, _PRECEDENCE[expr.operator]) for o in expr.operands)
    if isinstance(expr, Not):
        return f"not {child(expr.operand, _PRECEDENCE['not'] - 1)}"
    if isinstance(expr, Negate):
        return f"-{child(expr.operand, _PRECEDENCE['negate'])}"
    if isinstance(expr, Compare):
        parts = [child(expr.operands[0], _PRECEDENCE["compare"])]
        for operator, operand in zip(expr.operators, expr.operands[1:]):
            parts.append(f"{operator} {child(operand, _PRECEDENCE['compare'])}")
        return " ".join(parts)
    if isinstance(expr, IsNone):
        return f"{expr.target} is {'not ' if expr.negated else ''}None"
    if isinstance(expr, Literal):
        return str(expr.value) if isinstance(expr.value, bool) else repr(expr.value)
    if isinstance(expr, Argument):
        return expr.name
    if isinstance(expr, Length):
        return f"len({expr.target})"
    return f"{expr.target}.{expr.method}({to_text(expr.index) if expr.index is not None else ''})"

