"""Calculator: exact decimal arithmetic, a live preview, and a history of results.

The formula is an always-focused text field, so an agent can either tap the keys
or type `50*181.42` and press enter; both land in the same state.
"""

from __future__ import annotations

import re
from decimal import Decimal, DivisionByZero, InvalidOperation, localcontext
from functools import partial

from pydantic import BaseModel, ConfigDict

import guilens.device.sim.icons as icons
import guilens.device.sim.ui as ui
from guilens.device.sim.core import App, Ctx
from guilens.device.sim.kit import Button, Label, View, text_width


class CalcEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    expression: str
    result: str


class CalculatorState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    display: str = ""
    """The formula on screen (× ÷ − as shown)."""
    result: str = ""
    """The last result computed with `=`, or `Error`."""
    history: list[CalcEntry] = []
    """Oldest first."""


class CalcError(ValueError):
    pass


_TOKEN = re.compile(r"\s*(?:(\d+(?:\.\d*)?|\.\d+)|(.))")


def evaluate(expr: str) -> Decimal:
    """Evaluate + − × ÷ % and parentheses with 34-digit decimals (so 0.1 + 0.2 is 0.3)."""
    s = expr.replace("×", "*").replace("÷", "/").replace("−", "-").replace("x", "*").replace(",", "")
    tokens: list[str] = []
    for m in _TOKEN.finditer(s):
        if m.group(1):
            tokens.append(m.group(1))
        elif m.group(2) and not m.group(2).isspace():
            tokens.append(m.group(2))
    pos = 0

    def peek() -> str | None:
        return tokens[pos] if pos < len(tokens) else None

    def take() -> str:
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def expr_() -> Decimal:
        v = term()
        while peek() in ("+", "-"):
            op = take()
            v = v + term() if op == "+" else v - term()
        return v

    def term() -> Decimal:
        v = unary()
        while peek() in ("*", "/") or (peek() is not None and (peek() == "(" or _is_num(peek()))):
            op = take() if peek() in ("*", "/") else "*"  # 2(3) multiplies
            rhs = unary()
            if op == "/":
                if rhs == 0:
                    raise CalcError("Can't divide by 0")
                v = v / rhs
            else:
                v = v * rhs
        return v

    def unary() -> Decimal:
        if peek() == "-":
            take()
            return -unary()
        if peek() == "+":
            take()
            return unary()
        return postfix()

    def postfix() -> Decimal:
        v = atom()
        while peek() == "%":
            take()
            v = v / 100
        return v

    def atom() -> Decimal:
        t = peek()
        if t is None:
            raise CalcError("Incomplete expression")
        if t == "(":
            take()
            v = expr_()
            if peek() == ")":
                take()
            return v  # an unclosed bracket closes at the end, as on Android
        if _is_num(t):
            take()
            return Decimal(t)
        raise CalcError(f"Unexpected {t!r}")

    with localcontext() as c:
        c.prec = 34
        c.traps[DivisionByZero] = True
        try:
            v = expr_()
        except (InvalidOperation, DivisionByZero):
            raise CalcError("Error") from None
        if pos != len(tokens):
            raise CalcError(f"Unexpected {tokens[pos]!r}")
        return v


def _is_num(t: str | None) -> bool:
    return t is not None and (t[0].isdigit() or t[0] == ".")


def format_number(v: Decimal) -> str:
    """Up to 10 decimals, no trailing zeros; scientific notation past 15 digits."""
    if abs(v) >= Decimal("1e15"):
        return f"{v:.6E}".replace("E+", "E")
    q = v.quantize(Decimal("1e-10"))
    s = format(q.normalize(), "f")
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


_ALLOWED = set("0123456789.+-*/x×÷−()%= ")


def _accept(text: str) -> str:
    out = "".join(ch for ch in text if ch in _ALLOWED or ch == "\n").replace(" ", "")
    return out.replace("*", "×").replace("x", "×").replace("/", "÷").replace("-", "−")


_KEYS: list[list[tuple[str, str, str]]] = [
    [("C", "clr", "clear"), ("(", "lparen", "left parenthesis"), (")", "rparen", "right parenthesis"),
     ("÷", "op_div", "divide")],
    [("7", "digit_7", ""), ("8", "digit_8", ""), ("9", "digit_9", ""), ("×", "op_mul", "multiply")],
    [("4", "digit_4", ""), ("5", "digit_5", ""), ("6", "digit_6", ""), ("−", "op_sub", "minus")],
    [("1", "digit_1", ""), ("2", "digit_2", ""), ("3", "digit_3", ""), ("+", "op_add", "plus")],
    [("%", "op_pct", "percent"), ("0", "digit_0", ""), (".", "dec_point", "point"), ("=", "eq", "equals")],
]


class Calculator(App):
    short = "calculator"
    label = "Calculator"
    accent = (0, 121, 107)
    icon = "calculator"
    State = CalculatorState

    def screen_main(self, ctx: Ctx) -> list[View]:
        u = ctx.u
        t = ctx.theme
        st: CalculatorState = ctx.state
        route = ctx.route
        if route.focus is None:
            route.focus = "formula"
        route.fields["formula"] = st.display
        views: list[View] = [ui.app_bar(ctx, "Calculator", back=False, actions=[
            ui.BarAction(icons.history, "History", "history", lambda: self._history(ctx))])]
        top = ctx.top + ctx.bar
        pad_top = ctx.h - u(1320) - (ctx.h - ctx.bottom)
        size = u(110)
        while size > u(56) and text_width(st.display, size) > ctx.w - u(120):
            size -= u(8)
        f = ui.field(ctx, (u(40), top + u(40), ctx.w - u(40), top + u(260)), "formula", "0",
                     submit=lambda: self._equals(ctx), accept=_accept, on_change=lambda: self._sync(ctx), size=size)
        f.box = t.bg
        f.line = t.bg
        views.append(f)
        preview = ""
        if st.display and any(op in st.display for op in "+−×÷%"):
            try:
                preview = format_number(evaluate(st.display))
            except CalcError:
                preview = ""
        shown = st.result if st.result and not preview else preview
        views.append(Label((u(60), top + u(270), ctx.w - u(60), top + u(380)), shown, u(64),
                           t.sub if preview else t.text, align="right", rid="result"))
        hy = pad_top - u(160)
        for e in reversed(st.history[-3:]):
            if hy - u(70) < top + u(390):
                break
            views.append(Label((u(60), hy - u(70), ctx.w - u(220), hy), f"{e.expression} = {e.result}", u(38), t.sub,
                               align="right", rid="history_line"))
            hy -= u(74)
        views.append(Button((ctx.w - u(170), pad_top - u(150), ctx.w - u(50), pad_top - u(30)), "",
                            lambda: self._backspace(ctx), rid="del", desc="delete", icon=icons.back, color=t.accent,
                            size=u(60), cls="android.widget.ImageButton"))
        cols, rows = 4, len(_KEYS)
        gap = u(24)
        kw = (ctx.w - u(60) - gap * (cols - 1)) // cols
        kh = (ctx.bottom - u(40) - pad_top - gap * (rows - 1)) // rows
        for ri, row in enumerate(_KEYS):
            for ci, (label, rid, desc) in enumerate(row):
                x = u(30) + ci * (kw + gap)
                y = pad_top + ri * (kh + gap)
                op = ci == 3 or label == "C"
                fill = t.accent if label == "=" else (t.tint if op else t.surface)
                fg = t.on_accent if label == "=" else (t.accent if op else t.text)
                views.append(Button((x, y, x + kw, y + kh), label, partial(self._key, ctx, label), rid=rid,
                                    desc=desc, fill=fill, color=fg, radius=min(kw, kh) // 2, size=u(64)))
        return views

    def _sync(self, ctx: Ctx) -> None:
        st: CalculatorState = ctx.state
        text = ctx.field("formula")
        if "=" in text or "\n" in text:
            st.display = text.replace("=", "").replace("\n", "")
            self._equals(ctx)
        else:
            st.display = text

    def _key(self, ctx: Ctx, k: str) -> str:
        st: CalculatorState = ctx.state
        if k == "C":
            st.display, st.result = "", ""
            return "cleared the calculator"
        if k == "=":
            return self._equals(ctx)
        if st.result and st.display == st.result and k.isdigit():
            st.display = ""  # a digit after = starts a new calculation
        st.display += k
        return f"pressed {k}"

    def set_field(self, ctx: Ctx, key: str, value: str) -> bool:
        """The display is the calculator's state, not a draft: the delete key and a cleared field edit it."""
        if key != "formula":
            return False
        st: CalculatorState = ctx.state
        st.display = value
        ctx.set_field(key, value)
        return True

    def _backspace(self, ctx: Ctx) -> str:
        st: CalculatorState = ctx.state
        st.display = st.display[:-1]
        return "deleted the last character"

    def _equals(self, ctx: Ctx) -> str:
        st: CalculatorState = ctx.state
        expr = st.display
        if not expr:
            return "nothing to calculate"
        try:
            value = format_number(evaluate(expr))
        except CalcError as err:
            st.result = "Error" if str(err) in ("Error", "Incomplete expression") else str(err)
            return f"{expr} = {st.result}"
        st.history.append(CalcEntry(expression=expr, result=value))
        st.result = value
        st.display = value
        return f"{expr} = {value}"

    def _history(self, ctx: Ctx) -> str:
        ctx.push("history")
        return "opened the history"

    def screen_history(self, ctx: Ctx) -> list[View]:
        u = ctx.u
        st: CalculatorState = ctx.state

        def clear() -> str:
            st.history.clear()
            return "cleared the history"

        views: list[View] = [ui.app_bar(ctx, "History", actions=[
            ui.BarAction(icons.trash, "Clear history", "clear_history", clear, text="Clear")])]
        col = ui.Column(u(40), ctx.top + ctx.bar + u(20), ctx.w - u(40))
        items: list[View] = []
        for e in reversed(st.history):
            r = col.next(u(200), u(20))

            def use(e: CalcEntry = e) -> str:
                st.display = e.result
                ctx.pop()
                return f"put {e.result} on the display"

            items.append(ui.row(ctx, r, e.result, e.expression, rid="history_item", title_id="history_result",
                                sub_id="history_expression", on_tap=use))
        if not st.history:
            items.append(ui.empty(ctx, col.next(u(300)), "No history yet"))
        views.append(ui.scroll(ctx, (0, ctx.top + ctx.bar, ctx.w, ctx.bottom), "history_list", items))
        return views
