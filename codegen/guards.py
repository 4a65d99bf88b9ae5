"""`when:` guards: a small Python-style condition over an op's arguments,
checked here and translated to the C++ the generated kernel evaluates.

    when: input.dim() == 4 and not transposed and groups == 1

Allowed: argument names; tensor methods dim(), size(i), numel(), is_contiguous(), scalar_type(),
stride(i); `len(list)`; `x is None` / `x is not None` for optionals; integer,
float and bool constants; comparisons; and, or, not.
"""
from __future__ import annotations

import ast

_TENSOR_METHODS = {"dim", "size", "numel", "is_contiguous", "stride", "scalar_type"}
_COMPARE = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}


class GuardError(ValueError):
    pass


def to_cpp(text: str, arguments: dict[str, str]) -> str:
    """arguments: name → ATen type string ('Tensor', 'int', 'Tensor?', ...)."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as error:
        raise GuardError(f"guard '{text}' is not a valid condition: {error.msg}") from None
    named: set[str] = set()
    cpp = _expr(tree.body, arguments, named)
    if not named:
        raise GuardError(f"guard '{text}' names no argument of the op")
    return cpp


def _expr(node: ast.AST, arguments: dict[str, str], named: set[str]) -> str:
    if isinstance(node, ast.BoolOp):
        op = " && " if isinstance(node.op, ast.And) else " || "
        return "(" + op.join(_expr(v, arguments, named) for v in node.values) + ")"
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return f"!({_expr(node.operand, arguments, named)})"
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return f"-{_expr(node.operand, arguments, named)}"
    if isinstance(node, ast.Compare):
        parts, left = [], node.left
        for op, right in zip(node.ops, node.comparators):
            if isinstance(op, (ast.Is, ast.IsNot)) and isinstance(right, ast.Constant) and right.value is None:
                name = _argument(left, arguments, named)
                check = f"{name}.has_value()"
                parts.append(f"!{check}" if isinstance(op, ast.Is) else check)
            elif type(op) in _COMPARE:
                parts.append(f"({_expr(left, arguments, named)} {_COMPARE[type(op)]} "
                             f"{_expr(right, arguments, named)})")
            else:
                raise GuardError(f"unsupported comparison '{type(op).__name__}' in guard")
            left = right
        return "(" + " && ".join(parts) + ")"
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return "true" if node.value else "false"
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return repr(node.value)
    if isinstance(node, ast.Name):
        return _argument(node, arguments, named)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1:
        return f"static_cast<int64_t>({_argument(node.args[0], arguments, named)}.size())"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        method = node.func.attr
        target = _argument(node.func.value, arguments, named)
        if method not in _TENSOR_METHODS or not arguments[target].startswith("Tensor"):
            raise GuardError(f"'{method}()' is not a tensor method a guard can call (use one of: "
                             f"{', '.join(sorted(_TENSOR_METHODS))})")
        args = ", ".join(_expr(a, arguments, named) for a in node.args)
        return f"{target}.{method}({args})"
    raise GuardError(f"unsupported expression '{ast.unparse(node)}' in guard")


def _argument(node: ast.AST, arguments: dict[str, str], named: set[str]) -> str:
    if not isinstance(node, ast.Name):
        raise GuardError(f"expected an argument name, got '{ast.unparse(node)}'")
    if node.id not in arguments:
        raise GuardError(f"guard names '{node.id}', which is not an argument of the op "
                         f"(arguments: {', '.join(arguments)})")
    named.add(node.id)
    return node.id
