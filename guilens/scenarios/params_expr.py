"""Derived values of a template: `qty * first_price + second_price`, evaluated on drawn values.

Hand-written over the standard library's `ast` rather than taken from a library (simpleeval,
asteval): a template needs four operators, parentheses, numbers and names, and nothing else may
run; walking the parsed tree and refusing every other node is twenty lines that admit exactly
that, with no new dependency and no `eval`.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable

_OPS: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
}


class ExprError(ValueError):
    """An expression that is not plain arithmetic over names, or names a value not drawn."""


def _parse(expr: str) -> ast.expr:
    try:
        return ast.parse(expr, mode="eval").body
    except SyntaxError:
        raise ExprError(f"{expr!r} is not an arithmetic expression") from None


def expr_names(expr: str) -> list[str]:
    """The names an expression reads (for the loader's checks)."""
    return [n.id for n in ast.walk(_parse(expr)) if isinstance(n, ast.Name)]


def evaluate(expr: str, values: dict[str, str]) -> float:
    """The value of `expr` with each name read as a number from `values` ("1,234.50" and "$5" read too)."""

    def walk(node: ast.expr) -> float:
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
            return float(node.value)
        if isinstance(node, ast.Name):
            if node.id not in values:
                raise ExprError(f"{expr!r}: no value {node.id!r} drawn before it")
            raw = values[node.id].replace(",", "").replace("$", "").strip()
            try:
                return float(raw)
            except ValueError:
                raise ExprError(f"{expr!r}: {node.id} is {values[node.id]!r}, not a number") from None
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            left, right = walk(node.left), walk(node.right)
            if isinstance(node.op, ast.Div) and right == 0:
                raise ExprError(f"{expr!r}: division by zero")
            return _OPS[type(node.op)](left, right)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -walk(node.operand)
        raise ExprError(f"{expr!r}: only + - * / ( ), numbers and parameter names are allowed")

    return walk(_parse(expr))


def formatted(value: float, fmt: str) -> str:
    """A derived value as the template writes it (`ParamSpec.format`)."""
    if fmt == "money":
        return f"{value:.2f}"
    if fmt == "comma_money":
        return f"{value:,.2f}"
    if fmt == "int":
        return str(round(value))
    if fmt == "comma":
        return f"{round(value):,}"
    return f"{round(value, 6):g}" if abs(value) < 1e15 else str(value)
