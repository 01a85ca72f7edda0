"""The milestone checklist: ordered milestones and unordered groups, fixed or flexible, each
with the step it was reached at.

Rows come from the task definition when it is known (`rows_from_task`), so the
pending ones show too; otherwise from what the episode recorded. The next
milestone the agent should reach is highlighted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.content import Content
from textual.widgets import Static

from guilens.screens.widgets.render import short


@dataclass
class MilestoneRow:
    id: str
    text: str = ""
    kind: str = "fixed"
    """`fixed` or `flexible` (PSPA)."""
    group: int | None = None
    """Index of the unordered group this milestone belongs to, None when ordered."""
    step: int | None = None
    """The step it was reached at."""


def rows_from_task(task: Any) -> list[MilestoneRow]:
    """The checklist of a `guilens.scenarios.model.Task` (duck-typed: milestones or unordered groups)."""
    rows: list[MilestoneRow] = []
    for gi, item in enumerate(getattr(task, "milestones", None) or []):
        members = getattr(item, "unordered", None)
        if members is not None:
            for ms in members:
                rows.append(MilestoneRow(ms.id, ms.text, getattr(ms, "kind", "fixed"), group=gi))
        else:
            rows.append(MilestoneRow(item.id, item.text, getattr(item, "kind", "fixed")))
    return rows


def mark_reached(rows: list[MilestoneRow], reached: dict[str, int], texts: dict[str, str] | None = None) -> list[MilestoneRow]:
    """Rows with their steps set; milestones the task did not list (annotations) are appended."""
    out = []
    known = set()
    for r in rows:
        known.add(r.id)
        out.append(MilestoneRow(r.id, r.text, r.kind, r.group, reached.get(r.id)))
    for mid, step in reached.items():
        if mid not in known:
            out.append(MilestoneRow(mid, (texts or {}).get(mid, ""), "fixed", None, step))
    return out


def render_milestones(rows: list[MilestoneRow], *, width: int = 60) -> Content:
    if not rows:
        return Content.from_markup("[$text-muted]no milestones for this task[/]")
    done = sum(1 for r in rows if r.step is not None)
    lines = [Content.from_markup("[b]$d/$n[/] [$text-muted]reached · ~ flexible[/]", d=str(done), n=str(len(rows)))]
    nxt = next((i for i, r in enumerate(rows) if r.step is None), None)
    text_w = max(10, width - 8)
    prev_group: int | None = None
    for i, r in enumerate(rows):
        if r.group != prev_group:
            if prev_group is not None:
                lines.append(Content.from_markup("[$text-muted]  └[/]"))
            if r.group is not None:
                lines.append(Content.from_markup("[$text-muted]  ┌ any order[/]"))
            prev_group = r.group
        bar = "  │ " if r.group is not None else " "
        flex = " ~" if r.kind == "flexible" else ""
        values = {"num": str(i + 1), "flex": flex, "id": r.id, "step": str(r.step + 1) if r.step is not None else "",
                  "text": short(r.text, text_w - len(bar))}
        if r.step is not None:
            head = f"{bar}[b $success]✓[/] $num [b]$id[/]$flex [$success]@$step[/]"
            body = f"{bar}    [$text-muted]$text[/]"
        elif i == nxt or (r.group is not None and nxt is not None and rows[nxt].group == r.group):
            head = f"{bar}[b $accent]○[/] $num [b $accent]$id[/]$flex"
            body = f"{bar}    $text"
        else:
            head = f"{bar}[$text-muted]○ $num $id$flex[/]"
            body = f"{bar}    [$text-muted]$text[/]"
        lines.append(Content.from_markup(head, **values))
        if r.text:
            lines.append(Content.from_markup(body, **values))
    if prev_group is not None:
        lines.append(Content.from_markup("[$text-muted]  └[/]"))
    return Content("\n").join(lines)


class MilestoneView(Static):
    DEFAULT_CSS = """
    MilestoneView { height: auto; padding: 0 1; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rows: list[MilestoneRow] = []
        self.reached: dict[str, int] = {}
        self.texts: dict[str, str] = {}

    def on_mount(self) -> None:
        self._draw()

    def set_rows(self, rows: list[MilestoneRow]) -> None:
        self.rows = rows
        self.reached = {}
        self._draw()

    def set_reached(self, reached: dict[str, int], texts: dict[str, str] | None = None) -> None:
        self.reached = dict(reached)
        if texts:
            self.texts.update(texts)
        self._draw()

    def reach(self, milestone_id: str, step: int, text: str = "") -> None:
        self.reached.setdefault(milestone_id, step)
        if text:
            self.texts.setdefault(milestone_id, text)
        self._draw()

    @property
    def done(self) -> int:
        return sum(1 for r in mark_reached(self.rows, self.reached) if r.step is not None)

    def _draw(self) -> None:
        rows = mark_reached(self.rows, self.reached, self.texts)
        self.update(render_milestones(rows, width=self.size.width or 60))

    def on_resize(self) -> None:
        self._draw()
