"""Expense: transactions (name, amount, category, note, date), this month's totals by category, add and edit."""

from __future__ import annotations

import datetime as dt
from functools import partial
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

import guilens.device.sim.icons as icons
import guilens.device.sim.ui as ui
from guilens.device.sim.apps.when import parse_date
from guilens.device.sim.core import App, Ctx
from guilens.device.sim.kit import Canvas, Color, Label, View, mix
from guilens.device.sim.records import by_id, number_records

CATEGORIES = ["Food", "Shopping", "Transport", "Bills", "Entertainment", "Health", "Travel", "Other"]


def _paint_share(c: Canvas, v: View, frac: float, track: Color, fill: Color, radius: int, least: int) -> None:
    """A category's share of the month: a bar filled to `frac` of its width, never thinner than `least`."""
    x1, y1, x2, y2 = v.bounds
    c.rect(v.bounds, track, radius=radius, bg=None)
    c.rect((x1, y1, x1 + max(least, int((x2 - x1) * frac)), y2), fill, radius=radius, bg=None)


class Transaction(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: int | None = None
    name: str
    amount: float = Field(gt=0)
    category: str = "Other"
    note: str = ""
    date: dt.date | None = None
    """The clock's date when left out."""
    kind: Literal["expense", "income"] = "expense"


class ExpenseState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    transactions: list[Transaction] = []
    categories: list[str] = Field(default_factory=lambda: list(CATEGORIES))
    currency: str = "$"

    @model_validator(mode="after")
    def _ids(self) -> ExpenseState:
        number_records(self.transactions)
        return self

    def get(self, tid: int | None) -> Transaction | None:
        return by_id(self.transactions, tid)


def _amount(s: str) -> float | None:
    cleaned = "".join(ch for ch in s if ch.isdigit() or ch in ".-")
    try:
        v = round(float(cleaned), 2)
    except ValueError:
        return None
    return v if v > 0 else None


class Expense(App):
    short = "expense"
    label = "Expense"
    accent = (67, 160, 71)
    icon = "wallet"
    State = ExpenseState

    def _date(self, ctx: Ctx, t: Transaction) -> dt.date:
        return t.date or ctx.now.date()

    def screen_main(self, ctx: Ctx) -> list[View]:
        u = ctx.u
        th = ctx.theme
        st: ExpenseState = ctx.state
        cur = st.currency
        today = ctx.now.date()
        month = [t for t in st.transactions if (self._date(ctx, t).year, self._date(ctx, t).month) ==
                 (today.year, today.month)]
        spent = round(sum(t.amount for t in month if t.kind == "expense"), 2)
        income = round(sum(t.amount for t in month if t.kind == "income"), 2)
        views: list[View] = [ui.app_bar(ctx, "Expense", back=False)]
        col = ui.Column(u(40), ctx.top + ctx.bar + u(20), ctx.w - u(40))
        items: list[View] = []
        r = col.next(u(430), u(30))
        card = View(r, fill=th.accent, radius=u(44), rid="summary", cls="android.widget.LinearLayout")
        card.add(Label((r[0] + u(48), r[1] + u(30), r[2] - u(48), r[1] + u(100)), f"Spent in {today:%B}", u(40),
                       mix(th.on_accent, th.accent, 0.2)))
        card.add(Label((r[0] + u(48), r[1] + u(100), r[2] - u(48), r[1] + u(230)), ui.money(spent, cur), u(100),
                       th.on_accent, rid="month_total", bold=True))
        card.add(Label((r[0] + u(48), r[1] + u(250), r[2] // 2, r[1] + u(310)), "Income", u(36),
                       mix(th.on_accent, th.accent, 0.2)))
        card.add(Label((r[0] + u(48), r[1] + u(310), r[2] // 2, r[1] + u(390)), ui.money(income, cur), u(50),
                       th.on_accent, rid="month_income", bold=True))
        card.add(Label((r[2] // 2, r[1] + u(250), r[2] - u(48), r[1] + u(310)), "Balance", u(36),
                       mix(th.on_accent, th.accent, 0.2), align="right"))
        card.add(Label((r[2] // 2, r[1] + u(310), r[2] - u(48), r[1] + u(390)), ui.money(income - spent, cur), u(50),
                       th.on_accent, rid="month_balance", bold=True, align="right"))
        items.append(card)
        by_cat: dict[str, float] = {}
        for t in month:
            if t.kind == "expense":
                by_cat[t.category] = round(by_cat.get(t.category, 0) + t.amount, 2)
        if by_cat:
            items.append(ui.section(ctx, col, "By category"))
            top = max(by_cat.values())
            for cat, amt in sorted(by_cat.items(), key=lambda kv: (-kv[1], kv[0])):
                rr = col.next(u(110), u(8))
                row = View(rr, cls="android.widget.LinearLayout", rid="category_total")
                row.add(Label((rr[0], rr[1], rr[0] + u(300), rr[1] + u(60)), cat, u(40), th.text, rid="category_name"))
                row.add(Label((rr[2] - u(300), rr[1], rr[2], rr[1] + u(60)), ui.money(amt, cur), u(40), th.text,
                              align="right", rid="category_amount"))
                frac = amt / top if top else 0
                row.add(View((rr[0], rr[1] + u(70), rr[2], rr[1] + u(94)), cls="android.widget.ProgressBar",
                             paint=partial(_paint_share, frac=frac, track=th.divider, fill=th.accent,
                                           radius=u(12), least=u(24))))
                items.append(row)
        items.append(ui.section(ctx, col, "Transactions"))
        txns = sorted(st.transactions, key=lambda t: (self._date(ctx, t), t.id or 0), reverse=True)
        for t in txns:
            sign = "+" if t.kind == "income" else "-"
            meta = f"{t.category} · {self._date(ctx, t):%b %-d}" + (f" · {t.note}" if t.note else "")
            items.append(ui.row(ctx, col.next(u(190), u(16)), t.name, meta, rid="transaction", title_id="txn_name",
                                sub_id="txn_meta", on_tap=partial(self._edit, ctx, t),
                                trailing=f"{sign}{ui.money(t.amount, cur)}", trailing_id="txn_amount",
                                trailing_color=(46, 125, 50) if t.kind == "income" else th.text,
                                lead=lambda c, lr: icons.wallet(c, lr, th.accent)))
        if not txns:
            items.append(ui.empty(ctx, col.next(u(240)), "No transactions yet"))
        col.skip(u(240))
        items.append(View((0, col.y - 2, 1, col.y)))
        views.append(ui.scroll(ctx, (0, ctx.top + ctx.bar, ctx.w, ctx.bottom), "overview", items))
        views.append(ui.fab(ctx, "Add transaction", "add_transaction", lambda: self._edit(ctx, None)))
        return views

    def _edit(self, ctx: Ctx, t: Transaction | None) -> str:
        if t is None:
            fields = {"name": "", "amount": "", "note": "", "date": ctx.now.date().isoformat()}
            params: dict[str, Any] = {"id": None, "category": "Other", "kind": "expense"}
        else:
            fields = {"name": t.name, "amount": f"{t.amount:.2f}", "note": t.note,
                      "date": self._date(ctx, t).isoformat()}
            params = {"id": t.id, "category": t.category, "kind": t.kind}
        ctx.push("edit", params, fields, focus="name" if t is None else None)
        return f"editing {t.name!r}" if t else "adding a transaction"

    def screen_edit(self, ctx: Ctx) -> list[View]:
        u = ctx.u
        st: ExpenseState = ctx.state
        params = ctx.route.params
        tid = params.get("id")
        views: list[View] = [ui.editor_bar(ctx, "Edit transaction" if tid else "New transaction",
                                           lambda: self._save(ctx), None if tid is None else lambda: self._delete(ctx))]
        col = ui.Column(u(48), ctx.top + ctx.bar + u(16), ctx.w - u(48))
        items: list[View] = []

        def set_param(key: str, value: str) -> str:
            params[key] = value
            return f"chose {value}"

        items += ui.chips(ctx, col, [(k.title(), f"type_{k}", params["kind"] == k, partial(set_param, "kind", k))
                                     for k in ("expense", "income")])
        items += ui.labeled_field(ctx, col, "name", "Name", height=140)
        items += ui.labeled_field(ctx, col, "amount", f"Amount ({st.currency})", "0.00", height=140,
                                  accept=lambda s: "".join(ch for ch in s if ch.isdigit() or ch in ".,").replace(",", "."))
        items.append(ui.section(ctx, col, "Category"))
        items += ui.chips(ctx, col, [(c, f"category_{c.lower().replace(' ', '_')}", params["category"] == c,
                                      partial(set_param, "category", c)) for c in st.categories])
        items += ui.labeled_field(ctx, col, "date", "Date (YYYY-MM-DD)", height=140)
        items += ui.labeled_field(ctx, col, "note", "Note", height=140)
        col.skip(u(120))
        items.append(View((0, col.y - 2, 1, col.y)))
        views.append(ui.scroll(ctx, (0, ctx.top + ctx.bar, ctx.w, ctx.bottom), "form", items))
        return views

    def _save(self, ctx: Ctx) -> str:
        st: ExpenseState = ctx.state
        params = ctx.route.params
        name = ctx.field("name").strip()
        amount = _amount(ctx.field("amount"))
        day = parse_date(ctx.field("date"), ctx.now.date()) if ctx.field("date").strip() else ctx.now.date()
        problem = ("Enter a name" if not name else "Enter an amount above 0" if amount is None else
                   "Enter the date as YYYY-MM-DD" if day is None else "")
        if problem:
            ctx.toast(problem)
            return f"not saved: {problem.lower()}"
        assert amount is not None
        values = {"name": name, "amount": amount, "category": params["category"], "note": ctx.field("note").strip(),
                  "date": day, "kind": params["kind"]}
        t = st.get(params.get("id"))
        if t is None:
            t = Transaction(id=max((x.id or 0 for x in st.transactions), default=0) + 1, **values)
            st.transactions.append(t)
        else:
            for k, v in values.items():
                setattr(t, k, v)
        ctx.pop()
        ctx.toast("Transaction saved")
        return f"saved {t.kind} {name!r} of {ui.money(amount, st.currency)}"

    def _delete(self, ctx: Ctx) -> str:
        st: ExpenseState = ctx.state
        t = st.get(ctx.route.params.get("id"))
        if t is not None:
            st.transactions.remove(t)
        ctx.pop()
        ctx.toast("Transaction deleted")
        return f"deleted {t.name if t else 'the transaction'!r}"
