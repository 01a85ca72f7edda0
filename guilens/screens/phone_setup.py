"""How the phone is shown in this terminal: the pixel renderer, the view, the cell geometry.

Decided once, before the app starts (`choose`), from what the person asked for
(`--renderer`, `GUILENS_RENDERER`, the `renderer` setting) and what the
terminal said it draws (`graphics.probe`). Every screen builds its phone views
from the one `PhoneSetup` the app holds. No Textual here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from guilens.screens.graphics.probe import DEFAULT_CELL, FULL_RESOLUTION, RENDERERS, Terminal

PixelRenderer = Literal["halfcell", "sixel", "tgp", "iterm"]
View = Literal["pixels", "text", "both"]
VIEWS: tuple[View, ...] = ("pixels", "text", "both")


class RendererError(ValueError):
    """An unknown renderer name; the message lists the choices."""


@dataclass(frozen=True)
class PhoneSetup:
    renderer: PixelRenderer = "halfcell"
    """What draws the phone's pixels: half cells anywhere, Sixel, Kitty graphics (`tgp`) or iTerm2 images."""
    view: View = "pixels"
    """What the phone pane shows first (`v` cycles): the pixels, the text of the UI tree, or both side by side."""
    cell: tuple[int, int] = DEFAULT_CELL
    sixel_colors: int | None = None
    sixel_max: tuple[int, int] | None = None
    terminal: str = ""
    """What the terminal said it is, for the help screen and error reports."""
    note: str = ""
    """Why the phone is not drawn at full resolution, or a doubt about the renderer asked for;
    the app shows it once at start."""

    @property
    def full_resolution(self) -> bool:
        return self.renderer in FULL_RESOLUTION


def check_renderer(name: str | None) -> str:
    """`name` if it is a renderer guilens knows, else a `RendererError` naming the choices."""
    value = (name or "auto").strip().lower()
    if value not in RENDERERS:
        raise RendererError(f"unknown renderer {name!r}: choose {', '.join(RENDERERS)}")
    return value


def choose(requested: str | None, terminal: Terminal) -> PhoneSetup:
    """The setup for `requested` (a renderer name or `auto`) in `terminal`.

    `auto` takes the best the terminal draws. Where that is only half cells, the
    phone's text cannot be read from its pixels, so the view starts as both
    side by side: the half-cell picture for the layout, the UI tree's text to
    read. `text` starts with the text view alone.
    """
    name = check_renderer(requested)
    renderer: PixelRenderer
    if name == "auto":
        renderer = terminal.best()  # type: ignore[assignment]
    elif name == "text":
        renderer = "halfcell"
    else:
        renderer = name  # type: ignore[assignment]
    if name == "text":
        view: View = "text"
    elif renderer in FULL_RESOLUTION:
        view = "pixels"
    else:
        view = "both"
    return PhoneSetup(renderer=renderer, view=view, cell=terminal.cell, sixel_colors=terminal.sixel_colors,
                      sixel_max=terminal.sixel_max, terminal=terminal.describe(), note=_note(name, renderer, terminal))


def _note(asked: str, renderer: str, terminal: Terminal) -> str:
    if asked == "auto" and renderer == "halfcell":
        if terminal.multiplexer:
            why = f"{terminal.multiplexer} passes no images through"
        elif terminal.notes:
            why = terminal.notes[0]
        else:
            why = f"{terminal.name or 'this terminal'} said it draws neither Sixel nor Kitty graphics"
        return (f"The phone is drawn in half cells, with the UI tree's text beside it: {why}. "
                "v switches the view; --renderer sixel|tgp|iterm forces a protocol.")
    claimed = {"sixel": terminal.sixel, "tgp": terminal.kitty, "iterm": terminal.iterm}
    if renderer in claimed and not claimed[renderer] and terminal.answered:
        return (f"{terminal.name or 'This terminal'} did not say it draws {renderer} images; if the phone "
                "stays blank, use --renderer auto.")
    return ""


def fixed(renderer: str = "halfcell", view: View | None = None,
          cell: tuple[int, int] = DEFAULT_CELL) -> PhoneSetup:
    """A setup that asks the terminal nothing (tests, snapshots, the browser)."""
    name = check_renderer(renderer)
    if name == "auto":
        name = "halfcell"
    pixel: PixelRenderer = "halfcell" if name == "text" else name  # type: ignore[assignment]
    return PhoneSetup(renderer=pixel, view=view or ("text" if name == "text" else "pixels"), cell=cell)
