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
    """Append-only; follows the newest entry unless the person scrolled up to read.

    Following is Textual's anchor: the view stays pinned to its end through new
    entries *and* through changes of its own height (the at-the-controls panel
    opening under it, a resize, a zoom), is released when the person scrolls up
    (keys, wheel, scrollbar), and holds again once they scroll back to the end.
    Judging "at the end" from the scroll position when an entry arrives, as this
    view once did, stopped following whenever the view had just been made
    shorter: it was no longer at the end, though nobody had scrolled.

    The anchor is set only while the entries overflow the view: an anchored view
    whose entries fit pins them to its bottom edge, leaving the top blank.
    """

    DEFAULT_CSS = """
    TraceView { height: 1fr; scrollbar-size-vertical: 1; }
    """

    def __init__(self, *, milestone_text: dict[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.milestone_text: dict[str, str] = milestone_text or {}
        self.count = 0
        self._interim: list[TraceEntry] = []
        """Question and reply entries shown while a step is in flight; its step entry replaces them."""

    @property
    def following(self) -> bool:
        """Whether the newest entry is kept in view (false while the person reads further up)."""
        return not self.is_anchored or not self._anchor_released

    def _sync_anchor(self) -> None:
        """Anchored exactly while the entries overflow the view (see the class docstring)."""
        overflows = self.virtual_size.height > self.scrollable_content_region.height
        if overflows and not self.is_anchored:
            self.anchor()
        elif not overflows and self.is_anchored:
            self.anchor(False)
            self.scroll_home(animate=False, immediate=True)

    def on_resize(self) -> None:
        self.call_after_refresh(self._sync_anchor)

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
        self.mount(entry)
        self.count += 1
        self.call_after_refresh(self._sync_anchor)
        return entry

    def _render_step(self, step: Step) -> Any:
        from guilens.screens.widgets.render import render_step

        return render_step(step, self.milestone_text)

    def clear(self) -> None:
        self.remove_children()
        self._interim.clear()
        self.count = 0
