"""`Headed`: a `Static` whose text may open with a bold heading line of its own.

For a panel that shows several views one under the other (the replay's step panel: the step,
its memory, its milestones), so each section's heading is part of its view rather than a widget
of its own: every widget is one more to mount, style and paint before the replay's first step.
A view in a panel of its own (the run screen's memory and milestone boxes) is titled by its
box's border and has no heading.
"""

from __future__ import annotations

from typing import Any

from textual.content import Content
from textual.widgets import Static


class Headed(Static):
    """A `Static` that shows `heading`, in bold on a line of its own, above whatever it is given."""

    def __init__(self, *, heading: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.heading = heading

    def show_content(self, content: Content) -> None:
        """`content` under the heading (if there is one)."""
        if self.heading:
            content = Content.from_markup("[b]$heading[/]\n", heading=self.heading) + content
        self.update(content)
