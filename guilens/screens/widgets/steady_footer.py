"""`SteadyFooter`: Textual's `Footer`, rebuilt only when the keys it shows change.

`Footer` removes and mounts all its keys (a widget each) whenever its screen's
bindings may have changed, which Textual announces on every focus change. In
the replay, closing the `g` prompt gives the step list its focus back: the keys
shown are the same, but the footer was rebuilt (nine widgets mounted, laid out
and drawn) inside the very paint that shows the step gone to: about 5 ms of
drawing alone (measured on a loaded 2-core machine), besides the mounting.
This one compares what it would show with what it shows and keeps its keys when
they are the same. A subclass, not a footer of its own: the look, the clicks and
the command palette's key stay Textual's (it overrides `Footer.bindings_changed`,
the method the footer subscribes to its screen's announcements with).
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer


class SteadyFooter(Footer):
    """A `Footer` that recomposes only when the keys it would show differ from those it shows."""

    _shown: tuple[Any, ...] | None = None
    """What the keys were composed from (None: not composed from bindings yet)."""

    def _keys(self) -> tuple[Any, ...]:
        """What the footer's keys are made of: each shown binding, how it is displayed, whether it is on."""
        app = self.app
        return tuple((key, b.action, b.description, app.get_key_display(b), b.group, enabled, tooltip)
                     for key, (_, b, enabled, tooltip) in self.screen.active_bindings.items() if b.show)

    def compose(self) -> ComposeResult:
        # `Footer` composes nothing until its screen has announced its bindings once (`_bindings_ready`).
        self._shown = self._keys() if getattr(self, "_bindings_ready", True) else None
        yield from super().compose()

    def bindings_changed(self, screen: Screen[Any]) -> None:
        if (self._shown is not None and self.is_attached and screen is self.screen
                and self._keys() == self._shown):
            return  # the same keys: nothing to rebuild
        super().bindings_changed(screen)
