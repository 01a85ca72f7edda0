"""The key bar: the screen's keys at the bottom, on as many rows as the terminal's width needs.

Textual's `Footer` is one row that scrolls sideways: at 100 columns the run
screen's keys at the controls were cut after `b`, and the keys a person needs
then (home, enter, the command line, help) were out of sight. This bar reads
the same bindings the footer reads (`Screen.active_bindings`: the focused
widget's, the screen's, the app's, with `check_action` applied, so keys that
do not apply now are not shown), and wraps between keys, never inside one.
A key can be clicked, as in the footer. Written here rather than by styling
`Footer`, because Textual has no wrapping layout for a row of widgets.
"""

from __future__ import annotations

from typing import Any

from textual.binding import Binding
from textual.content import Content
from textual.geometry import Size
from textual.widget import Widget

GAP = 2
"""Spaces between two keys on a row."""


class KeyBar(Widget):
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom; height: auto; padding: 0 1;
        background: $footer-background; color: $footer-foreground;
        link-style: none; link-color: $footer-foreground; link-background: $footer-background;
        link-style-hover: reverse;
    }
    """

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Any) -> None:
        self.refresh(layout=True)

    def entries(self) -> list[tuple[str, str, str, bool]]:
        """(key as shown, what it does, key to simulate on a click, enabled) for each key shown now,
        one per action, the command palette last."""
        out: list[tuple[str, str, str, bool]] = []
        seen: set[str] = set()
        palette: tuple[str, str, str, bool] | None = None
        app = self.app
        for key, active in self.screen.active_bindings.items():
            binding: Binding = active.binding
            if key == app.COMMAND_PALETTE_BINDING and app.ENABLE_COMMAND_PALETTE:
                palette = (app.get_key_display(binding), binding.description or "palette", key, active.enabled)
                continue
            if not binding.show or binding.action in seen:
                continue
            seen.add(binding.action)
            out.append((app.get_key_display(binding), binding.description, key, active.enabled))
        if palette is not None:
            out.append(palette)
        return out

    @staticmethod
    def _item(key: str, what: str, press: str, enabled: bool) -> Content:
        style = "" if enabled else "dim "
        return Content.from_markup(
            f"[{style}@click=app.simulate_key('{press}')][b $footer-key-foreground]$k[/] $w[/]", k=key, w=what)

    def lines(self, width: int) -> list[Content]:
        """The keys packed into rows of `width` cells."""
        rows: list[list[Content]] = [[]]
        used = 0
        for entry in self.entries():
            item = self._item(*entry)
            need = item.cell_length + (GAP if rows[-1] else 0)
            if rows[-1] and used + need > width:
                rows.append([])
                used, need = 0, item.cell_length
            rows[-1].append(item)
            used += need
        return [Content(" " * GAP).join(row) for row in rows]

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return max(1, len(self.lines(width)))

    def render(self) -> Content:
        return Content("\n").join(self.lines(self.content_region.width or self.size.width or 80))
