"""The trace: one entry per step (thought, action, what the previous action did, user turns,
errors, milestones), plus attempt headers, questions, marks and outcomes, oldest first.

Entries are widgets rather than lines of a log so they re-wrap when the panel
changes width (zoom, terminal resize) and keep their theme colours.
"""

from __future__ import annotations

from typing import Any

from textual.containers import VerticalScroll
from textual.widgets import Static

from guilens.episode import Step
from guilens.screens.widgets.render import Question, Reply, render


class TraceEntry(Static):
    DEFAULT_CSS = """
    TraceEntry { padding: 0 1; margin: 0 0 1 0; }
    TraceEntry.-step { border-left: outer $primary 40%; }
    TraceEntry.-human { border-left: outer $warning; }
    TraceEntry.-error { border-left: outer $error; }
    TraceEntry.-question { border-left: outer $secondary; background: $secondary 10%; }
    """

    def __init__(self, event: Any, **kwargs: Any) -> None:
        self.event = event
        super().__init__(render(event), **kwargs)


class TraceView(VerticalScroll):
    """Append-only; follows the newest entry unless the person scrolled up to read."""

    DEFAULT_CSS = """
    TraceView { height: 1fr; scrollbar-size-vertical: 1; }
    """

    def __init__(self, *, milestone_text: dict[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.milestone_text: dict[str, str] = milestone_text or {}
        self.count = 0
        self._interim: list[TraceEntry] = []
        """Question and reply entries shown while a step is in flight; its step entry replaces them."""
        self._follow = True
        """Keep the newest entry in view: false once the person scrolls up to read."""

    def add(self, event: Any) -> TraceEntry | None:
        if not self.is_mounted or not self.is_attached:
            return None  # the app is closing while the runner still reports (a cancelled run)
        classes = []
        if isinstance(event, Step):
            if event.ask is not None:
                for old in self._interim:
                    old.remove()
                self._interim.clear()
            classes.append("-step")
            if event.by == "human":
                classes.append("-human")
            if event.error:
                classes.append("-error")
            entry = TraceEntry(event, classes=" ".join(classes))
            entry.update(self._render_step(event))
        else:
            if isinstance(event, Question):
                classes.append("-question")
            entry = TraceEntry(event, classes=" ".join(classes))
            if isinstance(event, Question | Reply):
                self._interim.append(entry)
        if self.size.height:  # a hidden trace (another device's tab) has no scroll position to judge by
            self._follow = self.is_vertical_scroll_end or self.max_scroll_y == 0
        self.mount(entry)
        self.count += 1
        if self._follow:
            self.call_after_refresh(self.scroll_end, animate=False)
        return entry

    def on_show(self) -> None:
        """Shown again (its device's tab): catch up with what was added while hidden."""
        if self._follow:
            self.call_after_refresh(self.scroll_end, animate=False)

    def _render_step(self, step: Step) -> Any:
        from guilens.screens.widgets.render import render_step

        return render_step(step, self.milestone_text)

    def clear(self) -> None:
        self.remove_children()
        self._interim.clear()
        self.count = 0
