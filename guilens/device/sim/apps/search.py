"""Web search: a query gives result cards whose facts (prices, rates, addresses, counts, hours) come from the setup.

A fact matches when every word of the query (question words and filler aside,
plurals folded as the Shop folds them, `matching`) occurs among the fact's
words (its keyword phrases, title, answer and snippet), so text appended to a
query narrows the results, and junk narrows them to nothing. Results are
ordered by the longest keyword phrase the query holds in full (in its order
before out of it), so `["nvidia stock", "nvda"]` puts the NVIDIA card first for
both "NVIDIA stock price" and "NVDA".
"""

from __future__ import annotations

from functools import partial

from pydantic import BaseModel, ConfigDict, Field

import guilens.device.sim.icons as icons
import guilens.device.sim.ui as ui
from guilens.device.sim.apps.matching import STOP, query_terms, word_set, words
from guilens.device.sim.apps.settings import online
from guilens.device.sim.core import App, Ctx
from guilens.device.sim.data.facts import more_facts
from guilens.device.sim.kit import Label, View


class Fact(BaseModel):
    model_config = ConfigDict(extra="forbid")

    keywords: list[str] = Field(min_length=1)
    """Phrases; the fact matches a query containing every word of any one of them."""
    title: str
    fact: str = ""
    """The answer shown large on the card (`$181.42`, `0.9241 EUR`, `10:00-18:00`)."""
    snippet: str = ""
    url: str = ""
    details: str = ""
    """Longer text on the result's page."""


_DEFAULT_FACTS = [
    Fact(keywords=["nvidia stock", "nvda"], title="NVIDIA Corporation (NVDA) Stock Price", fact="$181.42",
         snippet="NASDAQ: NVDA · +2.31 (1.29%) today · Market cap 4.42T", url="finance.example.com/quote/NVDA"),
    Fact(keywords=["apple stock", "aapl"], title="Apple Inc. (AAPL) Stock Price", fact="$229.87",
         snippet="NASDAQ: AAPL · -0.84 (0.36%) today · Market cap 3.41T", url="finance.example.com/quote/AAPL"),
    Fact(keywords=["usd eur", "dollar euro", "usd to eur"], title="1 US Dollar equals", fact="0.9241 Euro",
         snippet="USD to EUR exchange rate · Nov 21, 09:00 UTC", url="fx.example.com/usd-eur"),
    Fact(keywords=["eur usd", "euro dollar"], title="1 Euro equals", fact="1.0821 US Dollar",
         snippet="EUR to USD exchange rate · Nov 21, 09:00 UTC", url="fx.example.com/eur-usd"),
    Fact(keywords=["apple park address", "apple park"], title="Apple Park",
         fact="One Apple Park Way, Cupertino, CA 95014", snippet="Corporate headquarters of Apple Inc.",
         url="maps.example.com/apple-park"),
    Fact(keywords=["english wikipedia", "english wikipedia articles"], title="English Wikipedia",
         fact="6,912,345 articles", snippet="The English-language edition of the free online encyclopedia.",
         url="wiki.example.org/English_Wikipedia"),
    Fact(keywords=["german wikipedia", "german wikipedia articles"], title="German Wikipedia",
         fact="3,004,118 articles", snippet="The German-language edition of Wikipedia.",
         url="wiki.example.org/German_Wikipedia"),
    Fact(keywords=["louvre hours", "louvre opening", "louvre"], title="Louvre Museum - Opening hours",
         fact="9:00-18:00, closed Tuesdays", snippet="Rue de Rivoli, 75001 Paris · Late opening Fri until 21:45",
         url="louvre.example.fr/hours"),
    *(Fact(**f) for f in more_facts()),
]


class SearchAppState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    facts: list[Fact] = Field(default_factory=lambda: [f.model_copy(deep=True) for f in _DEFAULT_FACTS])
    history: list[str] = []
    """Submitted queries, newest first."""
    query: str = ""
    """The query whose results are (or were last) on screen."""


_WEB_STOP = STOP | {"what", "is", "are", "was", "how", "many", "much", "when", "where", "who", "which", "does", "do",
                    "at"}
"""A question typed as a question ("what is the height of K2") needs none of these words matched."""


def _haystack(f: Fact) -> frozenset[str]:
    return word_set(" ".join([*f.keywords, f.title, f.fact, f.snippet]))


def _phrase_score(said: list[str], phrase: str) -> int:
    """How well the query holds a keyword phrase: its length twice when its words come in the query's
    order, once when they are all there in another order, else 0 ("EUR to USD" is the euro's card)."""
    ws = words(phrase)
    if not ws or not set(ws) <= set(said):
        return 0
    rest = iter(said)
    return 2 * len(ws) if all(w in rest for w in ws) else len(ws)


def find_facts(facts: list[Fact], query: str) -> list[Fact]:
    """The facts holding every word of `query`, best first: the keyword phrase the query holds best."""
    terms = query_terms(query, _WEB_STOP)
    if not terms:
        return []
    said = words(query)
    scored = []
    for i, f in enumerate(facts):
        hay = _haystack(f)
        if not all(t in hay for t in terms):
            continue
        best = max((_phrase_score(said, phrase) for phrase in f.keywords), default=0)
        scored.append((-best, i, f))
    return [f for _, _, f in sorted(scored, key=lambda x: (x[0], x[1]))]


class Search(App):
    short = "search"
    label = "Search"
    accent = (26, 115, 232)
    icon = "search"
    State = SearchAppState

    def _box(self, ctx: Ctx, y: int) -> list[View]:
        u = ctx.u
        f = ui.field(ctx, (u(40), y, ctx.w - u(40), y + u(140)), "query", "Search the web",
                     submit=lambda: self._search(ctx))
        cb = ui.clear_button(ctx, f, "Search the web")
        return [f, cb] if cb else [f]

    def _search(self, ctx: Ctx, query: str | None = None) -> str:
        st: SearchAppState = ctx.state
        q = (query if query is not None else ctx.field("query")).strip()
        if not q:
            return "type a query first"
        st.query = q
        if q in st.history:
            st.history.remove(q)
        st.history.insert(0, q)
        if ctx.route.screen == "results":
            ctx.route.fields["query"] = q
            ctx.route.scroll.clear()
        else:
            ctx.push("results", fields={"query": q})
        n = len(find_facts(st.facts, q)) if online(ctx.phone.apps) else 0
        return f"searched the web for {q!r}: {n} result{'' if n == 1 else 's'}"

    def screen_main(self, ctx: Ctx) -> list[View]:
        u = ctx.u
        t = ctx.theme
        st: SearchAppState = ctx.state
        y = ctx.top + u(300)
        views: list[View] = [View((0, ctx.top, ctx.w, ctx.bottom), fill=t.bg)]
        views.append(View((ctx.w // 2 - u(90), y, ctx.w // 2 + u(90), y + u(180)), cls="android.widget.ImageView",
                          desc="Search logo", paint=icons.disc(icons.search, t.accent, t.on_accent)))
        views.append(Label((0, y + u(200), ctx.w, y + u(320)), "Search", u(80), t.text, align="center", bold=True,
                           rid="logo"))
        views += self._box(ctx, y + u(380))
        col = ui.Column(u(40), y + u(560), ctx.w - u(40))
        if st.history:
            views.append(ui.section(ctx, col, "Recent"))
            for q in st.history[:6]:
                views.append(ui.row(ctx, col.next(u(140), u(8)), q, rid="recent", title_id="recent_query",
                                    on_tap=partial(self._search, ctx, q), card=False,
                                    lead=lambda c, lr: icons.history(c, lr, t.sub)))
        return views

    def screen_results(self, ctx: Ctx) -> list[View]:
        u = ctx.u
        t = ctx.theme
        st: SearchAppState = ctx.state
        views: list[View] = [ui.app_bar(ctx, "Search")]
        top = ctx.top + ctx.bar
        views += self._box(ctx, top + u(16))
        col = ui.Column(u(40), top + u(190), ctx.w - u(40))
        items: list[View] = []
        if not online(ctx.phone.apps):
            items.append(ui.empty(ctx, col.next(u(300)), "No internet connection. Turn off airplane mode or "
                                  "turn on Wi-Fi."))
            found = []
        else:
            found = find_facts(st.facts, st.query)
            items.append(Label(col.next(u(70), u(10)), f"About {len(found)} result{'s' if len(found) != 1 else ''}", u(34), t.sub,
                               rid="result_count"))
        for i, f in enumerate(found):
            items.append(self._card(ctx, col, f, i))
        if online(ctx.phone.apps) and not found:
            items.append(ui.empty(ctx, col.next(u(300)), f"No results for “{st.query}”"))
        col.skip(u(40))
        items.append(View((0, col.y - 2, 1, col.y)))
        views.append(ui.scroll(ctx, (0, top + u(176), ctx.w, ctx.bottom), "results", items))
        return views

    def _card(self, ctx: Ctx, col: ui.Column, f: Fact, i: int) -> View:
        u = ctx.u
        t = ctx.theme
        from guilens.device.sim.kit import wrap

        snippet_lines = min(3, len(wrap(f.snippet, u(38), col.x2 - col.x1 - u(80)))) if f.snippet else 0
        h = u(40) + u(56) + u(130) + (u(90) if f.fact else 0) + snippet_lines * u(50) + u(30)
        r = col.next(h, u(24))
        card = View(r, fill=t.card, radius=u(36), rid="result", cls="android.widget.LinearLayout",
                    on_tap=ctx.pusher("page", f"opened {f.title!r}", {"index": i}),
                    on_long=lambda: self._copy(ctx, f))
        y = r[1] + u(36)
        x1, x2 = r[0] + u(40), r[2] - u(40)
        card.add(Label((x1, y, x2, y + u(50)), f.url or "web.example.com", u(32), t.sub, rid="result_url"))
        y += u(56)
        card.add(Label((x1, y, x2, y + u(120)), f.title, u(46), t.accent, rid="result_title", max_lines=2,
                       valign="top"))
        y += u(130)
        if f.fact:
            card.add(Label((x1, y, x2, y + u(84)), f.fact, u(60), t.text, rid="result_fact", bold=True))
            y += u(90)
        if f.snippet:
            card.add(Label((x1, y, x2, y + snippet_lines * u(50)), f.snippet, u(38), t.sub, rid="result_snippet",
                           max_lines=snippet_lines, valign="top"))
        return card

    def _copy(self, ctx: Ctx, f: Fact) -> str:
        ctx.phone.clipboard = f.fact or f.snippet or f.title
        ctx.toast("Copied to clipboard")
        return f"copied {ctx.phone.clipboard!r}"

    def screen_page(self, ctx: Ctx) -> list[View]:
        u = ctx.u
        t = ctx.theme
        st: SearchAppState = ctx.state
        found = find_facts(st.facts, st.query)
        idx = ctx.route.params.get("index", 0)
        if idx >= len(found):
            ctx.pop()
            return self.build(ctx)
        f = found[idx]
        views: list[View] = [ui.app_bar(ctx, f.url or "Result")]
        col = ui.Column(u(56), ctx.top + ctx.bar + u(40), ctx.w - u(56))
        items: list[View] = [Label(col.next(u(150), u(20)), f.title, u(60), t.text, rid="page_title", max_lines=2,
                                   valign="top", bold=True)]
        if f.fact:
            items.append(Label(col.next(u(110), u(20)), f.fact, u(72), t.accent, rid="page_fact", bold=True,
                               on_long=lambda: self._copy(ctx, f)))
        from guilens.device.sim.kit import line_height, wrap

        for text, rid in ((f.snippet, "page_snippet"), (f.details, "page_details")):
            if text:
                n = len(wrap(text, u(42), col.x2 - col.x1))
                items.append(Label(col.next(n * line_height(u(42)), u(30)), text, u(42), t.text, rid=rid,
                                   max_lines=n, valign="top"))
        views.append(ui.scroll(ctx, (0, ctx.top + ctx.bar, ctx.w, ctx.bottom), "page", items))
        return views
