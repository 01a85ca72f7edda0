"""The memory panel: what the agent carries, and what changed at this step.

For the LLM agents' memory strategies (`--memory`) it says which one ran and
what it kept: the history lines sent (actions, action-thought), the steps whose
screenshots a multi-turn request carried, Chain-of-Memory's STM and LTM, and
the ScreenInfo when it was asked for.

For any agent: short-term memory oldest to newest, the new entry marked and the evicted one
shown struck through; long-term memory entries with their app, marked
appended (a new app) or replaced (a new fact for an app it already had, the
old one shown); lessons carried from earlier attempts. Chain-of-Memory's
rules (STM a FIFO, LTM replaced within an app and appended across apps) are
what the marks follow, but the diff is computed, not assumed, so any agent's
memory shows correctly.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from textual.content import Content

from guilens.episode import LTMEntry, Memory
from guilens.screens.widgets.headed import Headed
from guilens.screens.widgets.render import short


@dataclass
class MemoryDiff:
    stm: list[tuple[str, bool]] = field(default_factory=list)
    """(entry, is new), oldest first."""
    evicted: list[str] = field(default_factory=list)
    ltm: list[tuple[LTMEntry, str, str | None]] = field(default_factory=list)
    """(entry, mark, replaced content): mark is `appended`, `replaced` or ``."""
    dropped: list[LTMEntry] = field(default_factory=list)
    """LTM entries gone without a replacement for their app."""
    lessons: list[str] = field(default_factory=list)


def diff_memory(cur: Memory, prev: Memory | None) -> MemoryDiff:
    prev = prev or Memory()
    out = MemoryDiff(lessons=list(cur.lessons))
    before = Counter(prev.stm)
    for entry in cur.stm:
        if before[entry] > 0:
            before[entry] -= 1
            out.stm.append((entry, False))
        else:
            out.stm.append((entry, True))
    now = Counter(cur.stm)
    for entry in prev.stm:
        if now[entry] > 0:
            now[entry] -= 1
        else:
            out.evicted.append(entry)
    old = {(e.app, e.content) for e in prev.ltm}
    cur_keys = {(e.app, e.content) for e in cur.ltm}
    gone_by_app: dict[str, list[LTMEntry]] = {}
    for e in prev.ltm:
        if (e.app, e.content) not in cur_keys:
            gone_by_app.setdefault(e.app, []).append(e)
    for e in cur.ltm:
        if (e.app, e.content) in old:
            out.ltm.append((e, "", None))
        elif gone_by_app.get(e.app):
            out.ltm.append((e, "replaced", gone_by_app[e.app].pop(0).content))
        else:
            out.ltm.append((e, "appended", None))
    out.dropped = [e for gone in gone_by_app.values() for e in gone]
    return out


STRATEGY_NOTES = {
    "none": "no history: the instruction and this screen only",
    "actions": "a rule-built list of the earlier actions",
    "action-thought": "the earlier actions with their thoughts",
    "multiturn": "the task as one chat: earlier replies, the last screenshots",
    "com": "Chain-of-Memory: action results (STM) and app-tagged facts (LTM)",
}


def _strategy_lines(cur: Memory, prev: Memory | None, n: int) -> list[Content]:
    """What a memory strategy other than CoM keeps: its name, the history lines (the line new at this
    step marked), the screenshots a multi-turn request carried, the ScreenInfo."""
    lines: list[Content] = []
    if cur.strategy:
        lines.append(Content.from_markup("[b]Memory[/] $s [$text-muted]· $note[/]", s=cur.strategy,
                                         note=STRATEGY_NOTES.get(cur.strategy, "")))
    if cur.history or cur.strategy in ("actions", "action-thought"):
        lines.append(Content.from_markup("[b]History[/] [$text-muted]$c lines sent · oldest → newest[/]",
                                         c=str(len(cur.history))))
        before = len(prev.history) if prev is not None else 0
        for i, entry in enumerate(cur.history, 1):
            if i > before:
                lines.append(Content.from_markup("  [b $success]+ $e[/]", e=short(entry, 2 * n)))
            else:
                lines.append(Content.from_markup("  [$text-muted]$i[/] $e", i=str(i), e=short(entry, 2 * n)))
        if not cur.history:
            lines.append(Content.from_markup("  [$text-muted]empty: the first step[/]"))
    if cur.images:
        shown = ", ".join(str(i + 1) for i in cur.images)
        lines.append(Content.from_markup("[b]Images[/] [$text-muted]$c sent, of steps[/] $s",
                                         c=str(len(cur.images)), s=shown))
    if cur.screen_info:
        lines.append(Content.from_markup("[b]Screen info[/] [$text-muted]task-relevant, read this step[/]"))
        lines.append(Content.from_markup("  $t", t=short(cur.screen_info, 4 * n)))
    return lines


def render_memory(cur: Memory, prev: Memory | None = None, *, width: int = 200) -> Content:
    n = max(16, width - 6)
    lines = _strategy_lines(cur, prev, n)
    if cur.strategy in ("", "com") or cur.stm or cur.ltm or (prev is not None and (prev.stm or prev.ltm)):
        lines += _com_lines(cur, prev, n)
    elif cur.lessons:
        lines += _lesson_lines(cur.lessons, n)
    return Content("\n").join(lines)


def _lesson_lines(lessons: list[str], n: int) -> list[Content]:
    lines = [Content.from_markup("[b]Lessons[/] [$text-muted]$c from earlier attempts[/]", c=str(len(lessons)))]
    lines += [Content.from_markup("  • $l", l=short(lesson, 3 * n)) for lesson in lessons]
    return lines


def _com_lines(cur: Memory, prev: Memory | None, n: int) -> list[Content]:
    d = diff_memory(cur, prev)
    lines: list[Content] = []
    lines.append(Content.from_markup("[b]STM[/] [$text-muted]$c · oldest → newest[/]", c=str(len(d.stm))))
    for entry in d.evicted:
        lines.append(Content.from_markup("  [$text-muted strike]− $e[/]", e=short(entry, n)))
    for i, (entry, new) in enumerate(d.stm, 1):
        if new:
            lines.append(Content.from_markup("  [b $success]+ $e[/]", e=short(entry, n)))
        else:
            lines.append(Content.from_markup("  [$text-muted]$i[/] $e", i=str(i), e=short(entry, n)))
    if not d.stm and not d.evicted:
        lines.append(Content.from_markup("  [$text-muted]empty[/]"))
    lines.append(Content.from_markup("[b]LTM[/] [$text-muted]$c[/]", c=str(len(d.ltm))))
    for e, mark, replaced in d.ltm:
        tag = f"[{e.app}]"
        if mark == "appended":
            lines.append(Content.from_markup("  [b $success]+ $tag[/] $c [$text-muted]appended @$s[/]",
                                             tag=tag, c=short(e.content, n), s=str(e.step + 1)))
        elif mark == "replaced":
            lines.append(Content.from_markup("  [b $warning]↻ $tag[/] $c [$text-muted]replaced @$s[/]",
                                             tag=tag, c=short(e.content, n), s=str(e.step + 1)))
            lines.append(Content.from_markup("    [$text-muted strike]$o[/]", o=short(replaced, n)))
        else:
            lines.append(Content.from_markup("  [$accent]$tag[/] $c", tag=tag, c=short(e.content, n)))
    for e in d.dropped:
        lines.append(Content.from_markup("  [$text-muted strike]− $tag $c[/]", tag=f"[{e.app}]", c=short(e.content, n)))
    if not d.ltm and not d.dropped:
        lines.append(Content.from_markup("  [$text-muted]empty[/]"))
    if d.lessons:
        lines += _lesson_lines(d.lessons, n)
    return lines


class MemoryView(Headed):
    """Shows one step's memory against the step before."""

    DEFAULT_CSS = """
    MemoryView { height: auto; padding: 0 1; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.memory = Memory()
        self.previous: Memory | None = None

    def on_mount(self) -> None:
        self.show(self.memory, self.previous)

    def show(self, memory: Memory, previous: Memory | None = None) -> None:
        self.memory, self.previous = memory, previous
        self.show_content(render_memory(memory, previous, width=self.size.width or 200))

    def on_resize(self) -> None:
        self.show(self.memory, self.previous)

    def reset(self, lessons: list[str] | None = None) -> None:
        self.show(Memory(lessons=list(lessons or [])), None)
