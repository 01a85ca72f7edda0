"""The milestone checklist: ordered milestones, unordered groups and alternatives, fixed or flexible,
each with the step it was reached at.

Rows come from the task definition when it is known (`rows_from_task`), so the
pending ones show too; otherwise from what the episode recorded. The next
milestone the agent should reach is highlighted.

An alternatives item (PSPA-Bench's "choose one path" node) is one row of the
checklist, ticked when every milestone of any one of its paths is reached,
with its paths grouped under it and the path taken marked. The count in the
header is the checklist's (AndroidLens' ATP: the item counts once, its paths'
milestones not at all); which path completed the item comes from
`guilens.scenarios.milestones.path_taken`, the tracker's own rule.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field, replace
from typing import Any

from textual.content import Content

from guilens.scenarios.milestones import SubTask, path_taken
from guilens.screens.widgets.headed import Headed
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
    """The step it was reached at (an alternatives item: the step its path completed)."""
    paths: dict[str, str] | None = None
    """An alternatives item: its path ids -> how each goes (`by search`); None for a milestone."""
    alternative: str | None = None
    """The alternatives item whose path this milestone lies on, None when it is the checklist's own."""
    path: str | None = None
    """Which path of that item."""
    taken: str | None = None
    """An alternatives item: the path that completed it."""
    members: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """An alternatives item: each path's milestone ids, in order."""


def rows_from_task(task: Any, values: dict[str, str] | None = None) -> list[MilestoneRow]:
    """The checklist of a `guilens.scenarios.model.Task` (duck-typed: milestones, unordered groups,
    alternatives with `any_of` paths), its texts filled as the tracker fills its checks: the user's
    L0 values and `values` (the episode's), so no `{recipient}` shows."""
    filled = getattr(task, "filled", None)
    env = {**(getattr(getattr(task, "user", None), "values", None) or {}), **(values or {})}
    if callable(filled) and env:
        with contextlib.suppress(Exception):  # a value that breaks the task's schema: the texts as written
            task = filled(env)
    rows: list[MilestoneRow] = []
    for gi, item in enumerate(getattr(task, "milestones", None) or []):
        members = getattr(item, "unordered", None)
        paths = getattr(item, "any_of", None)
        if members is not None:
            for ms in members:
                rows.append(MilestoneRow(ms.id, ms.text, getattr(ms, "kind", "fixed") or "fixed", group=gi))
        elif paths is not None:
            rows.append(MilestoneRow(item.id, item.text, getattr(item, "kind", "flexible") or "flexible",
                                     paths={p.id: getattr(p, "text", "") for p in paths},
                                     members={p.id: tuple(m.id for m in p.milestones) for p in paths}))
            for p in paths:
                for ms in p.milestones:
                    rows.append(MilestoneRow(ms.id, ms.text, getattr(ms, "kind", None) or "flexible",
                                             alternative=item.id, path=p.id))
        else:
            rows.append(MilestoneRow(item.id, item.text, getattr(item, "kind", "fixed") or "fixed"))
    return rows


def mark_reached(rows: list[MilestoneRow], reached: dict[str, int], texts: dict[str, str] | None = None) -> list[MilestoneRow]:
    """Rows with their steps set, an alternatives item ticked by the path that completed it;
    milestones the task did not list (annotations) are appended."""
    out = []
    known = set()
    for r in rows:
        known.add(r.id)
        if r.paths is not None:
            taken = path_taken(SubTask(r.id, r.members), reached)
            step = max((reached[m] for m in r.members[taken]), default=0) if taken is not None else None
            out.append(replace(r, step=step, taken=taken))
        else:
            out.append(replace(r, step=reached.get(r.id)))
    for mid, step in reached.items():
        if mid not in known:
            out.append(MilestoneRow(mid, (texts or {}).get(mid, ""), "fixed", None, step))
    return out


def checklist_counts(rows: list[MilestoneRow]) -> tuple[int, int]:
    """(reached, total) of the checklist: an alternatives item once, its paths' milestones not at all."""
    top = [r for r in rows if r.alternative is None]
    return sum(1 for r in top if r.step is not None), len(top)


def _path_lines(item: MilestoneRow, rows: list[MilestoneRow], is_next: bool, text_w: int) -> list[Content]:
    """An alternatives item's paths under it: each path, its milestones, the path taken marked."""
    lines = [Content.from_markup("[$text-muted]  ┌ any one path[/]")]
    for pi, (pid, how) in enumerate((item.paths or {}).items()):
        letter = chr(ord("a") + pi) if pi < 26 else str(pi + 1)
        label = f"{pid} · {how}" if how else pid
        values = {"letter": letter, "label": short(label, text_w - 12)}
        if item.taken == pid:
            lines.append(Content.from_markup("  │ [b $success]▸ $letter[/] [b]$label[/] [$success]taken[/]", **values))
        elif item.taken is not None:
            lines.append(Content.from_markup("  │ [$text-muted]· $letter $label[/]", **values))
        else:
            lines.append(Content.from_markup("  │ [b]· $letter[/] $label", **values))
        mine = [r for r in rows if r.alternative == item.id and r.path == pid]
        nxt = next((r.id for r in mine if r.step is None), None)
        for r in mine:
            flex = " ~" if r.kind == "flexible" else ""
            v = {"id": r.id, "flex": flex, "step": str(r.step + 1) if r.step is not None else "",
                 "text": short(r.text, text_w - 8)}
            if r.step is not None:
                head, body = "  │   [$success]✓[/] [b]$id[/]$flex [$success]@$step[/]", "  │       [$text-muted]$text[/]"
            elif is_next and item.taken is None and r.id == nxt:
                head, body = "  │   [b $accent]○[/] [b $accent]$id[/]$flex", "  │       $text"
            else:
                head, body = "  │   [$text-muted]○ $id$flex[/]", "  │       [$text-muted]$text[/]"
            lines.append(Content.from_markup(head, **v))
            if r.text:
                lines.append(Content.from_markup(body, **v))
    lines.append(Content.from_markup("[$text-muted]  └[/]"))
    return lines


def render_milestones(rows: list[MilestoneRow], *, width: int = 60) -> Content:
    if not rows:
        return Content.from_markup("[$text-muted]no milestones for this task[/]")
    done, total = checklist_counts(rows)
    lines = [Content.from_markup("[b]$d/$n[/] [$text-muted]reached · ~ flexible[/]", d=str(done), n=str(total))]
    top = [r for r in rows if r.alternative is None]
    nxt = next((i for i, r in enumerate(top) if r.step is None), None)
    text_w = max(10, width - 8)
    prev_group: int | None = None
    for i, r in enumerate(top):
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
        is_next = i == nxt or (r.group is not None and nxt is not None and top[nxt].group == r.group)
        if r.step is not None:
            head = f"{bar}[b $success]✓[/] $num [b]$id[/]$flex [$success]@$step[/]"
            body = f"{bar}    [$text-muted]$text[/]"
        elif is_next:
            head = f"{bar}[b $accent]○[/] $num [b $accent]$id[/]$flex"
            body = f"{bar}    $text"
        else:
            head = f"{bar}[$text-muted]○ $num $id$flex[/]"
            body = f"{bar}    [$text-muted]$text[/]"
        lines.append(Content.from_markup(head, **values))
        if r.text:
            lines.append(Content.from_markup(body, **values))
        if r.paths is not None:
            lines += _path_lines(r, rows, is_next, text_w)
    if prev_group is not None:
        lines.append(Content.from_markup("[$text-muted]  └[/]"))
    return Content("\n").join(lines)


class MilestoneView(Headed):
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
        """Checklist entries reached: an alternatives item once, when one of its paths is complete."""
        return checklist_counts(mark_reached(self.rows, self.reached))[0]

    @property
    def total(self) -> int:
        """Checklist entries (milestones reached outside the task's list, a person's marks, included)."""
        return checklist_counts(mark_reached(self.rows, self.reached))[1]

    @property
    def count_text(self) -> str | None:
        """`milestones 3/4` as the checklist counts (the panel's title, the attempt's last line), or
        None when there is no checklist."""
        done, total = checklist_counts(mark_reached(self.rows, self.reached))
        return f"milestones {done}/{total}" if total else None

    def _draw(self) -> None:
        rows = mark_reached(self.rows, self.reached, self.texts)
        self.show_content(render_milestones(rows, width=self.size.width or 60))

    def on_resize(self) -> None:
        self._draw()
