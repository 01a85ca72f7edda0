"""The runs browser: every episode under a directory (a run, or a folder of runs), filterable.

Columns: run, task, attempt, agent, status, steps, dollars, verdict. The filter
matches words anywhere in a row (`shop failure` keeps failed shop episodes);
`field:value` matches one column (`status:success`, `agent:human`). A click
on a column header sorts by that column, a second click reverses it; `s`
moves the sort to the next column and `S` reverses it (steps, dollars and
attempts sort as numbers). Enter opens the replay. Episodes are read on a thread (only `episode.json` and
`verdict.json`), so a large folder opens at once and fills in.

The folder is read again whenever the browser comes back into view (a replay
closed, whichever way: a judgement made there shows in the verdict column at
once), keeping the filter and the row the cursor was on. Opened from home,
`q`/Esc go back to it (Esc first clears a filter).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Static

from guilens.screens.app import is_first_screen
from guilens.screens.widgets.phone import Renderer
from guilens.screens.widgets.render import STATUS_STYLE

COLUMNS = ("run", "task", "attempt", "agent", "status", "steps", "$", "verdict")


def sort_key(row: EpisodeRow, column: str) -> tuple[Any, ...]:
    """What a column sorts by: numbers as numbers (`10` after `9`, `2/3` by attempt), text without case;
    ties keep the order the rows were read in (the sort is stable)."""
    if column == "steps":
        return (row.steps,)
    if column == "$":
        return (row.cost,)
    if column == "attempt":
        number, _, total = row.attempt.partition("/")
        return (int(number) if number.isdigit() else 0, int(total) if total.isdigit() else 0)
    return (row.fields()[column].casefold(),)


@dataclass
class EpisodeRow:
    path: Path
    run: str
    task: str
    attempt: str
    agent: str
    status: str
    steps: int
    cost: float
    verdict: str

    def fields(self) -> dict[str, str]:
        return {"run": self.run, "task": self.task, "attempt": self.attempt, "agent": self.agent,
                "status": self.status, "steps": str(self.steps), "$": f"{self.cost:.4f}", "verdict": self.verdict}


def read_rows(directory: Path) -> tuple[list[EpisodeRow], list[str]]:
    """One row per attempt directory; unreadable ones are reported, not fatal."""
    from guilens.episode import EpisodeError, EpisodeReader, find_episodes

    rows, problems = [], []
    for d in find_episodes(directory):
        try:
            r = EpisodeReader(d)
        except EpisodeError as err:
            problems.append(str(err))
            continue
        ep = r.episode
        verdict = r.verdict() or {}
        decision = verdict.get("decision", "")
        if decision and verdict.get("decided_by"):
            decision = f"{decision} ({verdict['decided_by']})"
        task = f"{ep.scenario}:{ep.task}" if ep.scenario else ep.task
        agent = ep.agent + (f" ({ep.model})" if ep.model else "")
        run = ep.run_id or (d.parent.parent.name if d.parent.parent != directory.parent else "")
        rows.append(EpisodeRow(d, run, task, f"{ep.attempt}/{ep.attempts}", agent, ep.status, ep.steps,
                               ep.cost_usd, decision))
    return rows, problems


def matches(row: EpisodeRow, query: str) -> bool:
    fields = row.fields()
    hay = " ".join(fields.values()).casefold()
    for word in query.casefold().split():
        name, sep, value = word.partition(":")
        if sep and name in fields:
            if value not in fields[name].casefold():
                return False
        elif word not in hay:
            return False
    return True


class RunsScreen(Screen[None]):
    HELP_TITLE = "runs browser"
    KEY_HELP = [
        ("Runs", [("/", "filter: words match anywhere, field:value one column (status:failure)"),
                  ("↑ ↓", "pick an episode"), ("Enter", "replay it"), ("R", "read the directory again"),
                  ("s / click a header", "sort by the next column / by that column (again: reverse)"),
                  ("S", "reverse the sort"),
                  ("Esc", "clear the filter; with none, back to home (when opened from it)"),
                  ("q", "back to home when opened from it, else quit")]),
        ("Everywhere", [("?", "this help"), ("ctrl+p", "command palette")]),
    ]
    BINDINGS = [
        Binding("slash", "filter", "Filter", key_display="/"),
        Binding("R", "reload", "Reload"),
        Binding("s", "sort_next", "Sort"),
        Binding("S", "sort_reverse", "Reverse sort", show=False),
        Binding("q", "back", "Back"),
        Binding("q", "quit", "Quit"),
        Binding("escape", "escape", "Clear filter / back", show=False),
    ]

    def __init__(self, directory: Path | str, *, renderer: Renderer = "halfcell", settings: Any = None) -> None:
        super().__init__()
        self.directory = Path(directory)
        self.renderer: Renderer = renderer
        self.settings = settings
        self.rows: list[EpisodeRow] = []
        self.shown: list[EpisodeRow] = []
        self.sort_column: str | None = None
        """The column the rows are sorted by (None: the order they were read in)."""
        self.sort_reverse = False

    def compose(self) -> ComposeResult:
        yield Input(placeholder="filter: words, or field:value (status:failure agent:human)", id="filter")
        table: DataTable[Any] = DataTable(id="runs-table", cursor_type="row", zebra_stripes=True)
        table.border_title = str(self.directory)
        yield table
        yield Static("reading…", id="runs-summary")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for col in COLUMNS:
            # Styled cells do not widen their column by themselves; give status room for the longest.
            table.add_column(col, key=col, width=11 if col == "status" else None)
        table.focus()

    def on_screen_resume(self) -> None:
        self.load()  # first shown, or back from a replay (which may have judged an episode)

    @work(thread=True, exclusive=True, group="runs-load")
    def load(self) -> None:
        rows, problems = read_rows(self.directory)
        self.app.call_from_thread(self._loaded, rows, problems)

    def _loaded(self, rows: list[EpisodeRow], problems: list[str]) -> None:
        self.rows = rows
        self._fill(self.query_one("#filter", Input).value)
        for p in problems[:3]:
            self.notify(p, title="Skipped an episode", severity="warning")

    def _fill(self, query: str) -> None:
        table = self.query_one(DataTable)
        keep = self.shown[table.cursor_row].path if 0 <= table.cursor_row < len(self.shown) else None
        table.clear()
        self.shown = [r for r in self.rows if matches(r, query)]
        if self.sort_column is not None:
            column = self.sort_column
            self.shown.sort(key=lambda r: sort_key(r, column), reverse=self.sort_reverse)
            table.border_subtitle = f"sorted by {column} {'▼' if self.sort_reverse else '▲'}"
        else:
            table.border_subtitle = ""
        for r in self.shown:
            f = r.fields()
            style = STATUS_STYLE.get(r.status, "$text")
            cells: list[Any] = [f[c] for c in COLUMNS]
            cells[COLUMNS.index("status")] = Content.from_markup(f"[{style}]$s[/]", s=r.status)
            table.add_row(*cells, key=str(r.path))
        ok = sum(1 for r in self.shown if r.status == "success")
        where = f" under {self.directory}" if self.rows else f": no episodes under {self.directory}"
        summary = f"{len(self.shown)} of {len(self.rows)} episodes{where}"
        if self.shown:
            summary += f" · {ok} succeeded · ${sum(r.cost for r in self.shown):.4f}"
        self.query_one("#runs-summary", Static).update(summary)
        row = next((i for i, r in enumerate(self.shown) if r.path == keep), None)
        if row is not None:
            table.move_cursor(row=row, animate=False)

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self._fill(event.value)

    @on(Input.Submitted, "#filter")
    def _filter_done(self) -> None:
        self.query_one(DataTable).focus()

    @on(DataTable.RowSelected)
    def _open(self, event: DataTable.RowSelected) -> None:
        from guilens.episode import EpisodeError
        from guilens.screens.replay_screen import ReplayScreen

        path = Path(str(event.row_key.value))
        try:
            screen = ReplayScreen(path, renderer=self.renderer, settings=self.settings)
        except EpisodeError as err:
            self.notify(str(err), title="Cannot open", severity="error")
            return
        self.app.push_screen(screen)  # coming back reads the folder again (`on_screen_resume`)

    # -- sorting --------------------------------------------------------------------------------------
    def sort_by(self, column: str, *, reverse: bool | None = None) -> None:
        """Sort by `column`; with `reverse` None, the same column again flips the order."""
        if reverse is None:
            reverse = not self.sort_reverse if column == self.sort_column else False
        self.sort_column, self.sort_reverse = column, reverse
        self._fill(self.query_one("#filter", Input).value)

    @on(DataTable.HeaderSelected)
    def _header_clicked(self, event: DataTable.HeaderSelected) -> None:
        event.stop()
        self.sort_by(str(event.column_key.value))

    def action_sort_next(self) -> None:
        at = COLUMNS.index(self.sort_column) + 1 if self.sort_column is not None else 0
        self.sort_by(COLUMNS[at % len(COLUMNS)], reverse=False)

    def action_sort_reverse(self) -> None:
        self.sort_by(self.sort_column or COLUMNS[0], reverse=not self.sort_reverse)

    def action_filter(self) -> None:
        self.query_one("#filter", Input).focus()

    def action_escape(self) -> None:
        box = self.query_one("#filter", Input)
        if box.value or box.has_focus:
            box.value = ""
            self.query_one(DataTable).focus()
        elif not is_first_screen(self):
            self.dismiss()

    def action_reload(self) -> None:
        self.load()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "back":
            return not is_first_screen(self)
        if action == "quit":
            return is_first_screen(self)
        return True

    def action_back(self) -> None:
        self.dismiss()

    async def action_quit(self) -> None:
        await self.app.action_quit()
