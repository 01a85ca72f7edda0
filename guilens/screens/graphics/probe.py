"""Ask the terminal, once and before Textual starts, which image protocols it draws.

Textual owns stdin once it runs, so every question is asked here, all in one
write, and the answers are read until the reply to Primary Device Attributes
(`CSI c`), which every terminal answers and which answers last: no fixed
waits, no lost keystrokes. The questions:

- `CSI > q` (XTVERSION): the terminal's name and version (`XTerm(379)`, `kitty(0.26.5)`, `WezTerm ...`);
- a Kitty graphics query (`a=q`): `OK` means the terminal draws Kitty graphics;
- `CSI ? 1 ; 1 ; 0 S` and `CSI ? 2 ; 1 ; 0 S` (XTSMGRAPHICS): Sixel colour registers and the largest image;
- `CSI 16 t`: the cell size in pixels, where the pty does not say it (`TIOCGWINSZ`);
- `CSI c`: DA1, whose attribute 4 means Sixel.

textual-image asks the same at import time, but with a blocking read that hangs
when Textual already runs, and it cannot say which Kitty version it met (direct
placement versus Unicode placeholders) or how large a Sixel image may be; this
module is small enough to own. Nothing here imports Textual.
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import sys
import time
from dataclasses import dataclass, field, replace
from typing import Literal

Renderer = Literal["halfcell", "sixel", "tgp", "iterm", "text"]
RENDERERS: tuple[str, ...] = ("auto", "halfcell", "sixel", "tgp", "iterm", "text")
"""What `--renderer` and the `renderer` setting accept. `tgp` is the Kitty graphics protocol."""

FULL_RESOLUTION: frozenset[str] = frozenset({"sixel", "tgp", "iterm"})

DEFAULT_CELL = (10, 20)
"""Cell size in pixels when the terminal does not say: the VT340's."""

QUERY = (
    "\x1b[>q"  # XTVERSION
    "\x1b_Gi=4231,s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\"  # Kitty graphics: a 1x1 image, query only
    "\x1b[16t"  # cell size in pixels
    "\x1b[c"  # DA1: answered by every terminal, and last
)
SIXEL_QUERY = (
    "\x1b[?1;1;0S"  # XTSMGRAPHICS: number of Sixel colour registers
    "\x1b[?2;1;0S"  # XTSMGRAPHICS: largest Sixel image
    "\x1b[c"
)
"""Asked only of a terminal whose DA1 says Sixel: others (kitty) log XTSMGRAPHICS as a parse error."""

_XTVERSION = re.compile(r"\x1bP>\|([^\x1b]*)\x1b\\")
_KITTY = re.compile(r"\x1b_Gi=4231;([^\x1b]*)\x1b\\")
_SMGRAPHICS = re.compile(r"\x1b\[\?([12]);(\d+);(\d+)(?:;(\d+))?S")
_CELL = re.compile(r"\x1b\[6;(\d+);(\d+)t")
_DA1 = re.compile(r"\x1b\[\?([\d;]*)c")


@dataclass(frozen=True)
class Terminal:
    """What the terminal said about itself (or what the environment says, where it was not asked)."""

    name: str = ""
    """From XTVERSION, else `TERM_PROGRAM`: `XTerm`, `kitty`, `WezTerm`, `foot`, `ghostty`, `iTerm.app`, ..."""
    version: str = ""
    sixel: bool = False
    kitty: bool = False
    iterm: bool = False
    """iTerm2's inline images (OSC 1337): known from the environment only, nothing answers a query."""
    cell: tuple[int, int] = DEFAULT_CELL
    sixel_colors: int | None = None
    sixel_max: tuple[int, int] | None = None
    """The largest Sixel image the terminal draws (xterm: 1000x1000 unless configured)."""
    multiplexer: str = ""
    """`tmux` or `screen` when guilens runs inside one: images do not pass through by default."""
    answered: bool = False
    """False when nothing was asked (no terminal, the browser) or nothing answered in time."""
    notes: list[str] = field(default_factory=list)

    def best(self) -> Renderer:
        """The renderer that shows the phone best here: full resolution where the terminal draws
        images, else the half-cell picture (the phone view adds the text view beside it)."""
        if self.multiplexer:
            return "halfcell"
        name = self.name.lower()
        if "wezterm" in name and (self.iterm or self.sixel):
            return "iterm"  # WezTerm's own protocol; its Kitty support is partial
        if self.kitty:
            return "tgp"
        if self.sixel:
            return "sixel"
        if self.iterm:
            return "iterm"
        return "halfcell"

    def describe(self) -> str:
        what = [f"{self.name} {self.version}".strip() or "unknown terminal"]
        what += [p for p, on in (("sixel", self.sixel), ("kitty graphics", self.kitty), ("iterm2 images", self.iterm))
                 if on]
        if self.multiplexer:
            what.append(f"inside {self.multiplexer}")
        return ", ".join(what) + f"; cell {self.cell[0]}x{self.cell[1]} px"


def parse_replies(text: str, *, env: dict[str, str] | None = None) -> Terminal:
    """Read the answers to `QUERY` (and the environment) into a `Terminal`."""
    env = dict(os.environ) if env is None else env
    name, version = "", ""
    m = _XTVERSION.search(text)
    if m:
        found = re.match(r"\s*([A-Za-z][\w.+-]*?)(?:[ (](.*?)\)?)?\s*$", m.group(1))
        if found:
            name, version = found.group(1), (found.group(2) or "").strip()
    if not name:
        name = env.get("TERM_PROGRAM", "")
        version = env.get("TERM_PROGRAM_VERSION", "")
    kitty = bool((k := _KITTY.search(text)) and k.group(1).strip() == "OK")
    da1 = _DA1.search(text)
    attrs = set(da1.group(1).split(";")) if da1 else set()
    sixel_colors = sixel_max = None
    for sm in _SMGRAPHICS.finditer(text):
        item, status = sm.group(1), sm.group(2)
        if status != "0":
            continue
        if item == "1":
            sixel_colors = int(sm.group(3))
        elif sm.group(4) is not None:
            sixel_max = (int(sm.group(3)), int(sm.group(4)))
    cell = DEFAULT_CELL
    c = _CELL.search(text)
    if c and int(c.group(1)) > 0 and int(c.group(2)) > 0:
        cell = (int(c.group(2)), int(c.group(1)))
    iterm = (env.get("TERM_PROGRAM") in ("iTerm.app", "WezTerm") or env.get("LC_TERMINAL") == "iTerm2"
             or "wezterm" in name.lower())
    multiplexer = ""
    if env.get("TMUX") or name.lower() == "tmux":
        multiplexer = "tmux"
    elif env.get("STY") or env.get("TERM", "").startswith("screen"):
        multiplexer = "screen"
    return Terminal(name=name, version=version, sixel="4" in attrs, kitty=kitty, iterm=iterm, cell=cell,
                    sixel_colors=sixel_colors, sixel_max=sixel_max, multiplexer=multiplexer,
                    answered=da1 is not None)


def _pty_cell(fd: int) -> tuple[int, int] | None:
    """The cell size from the pty's pixel size, where the terminal sets it (xterm, kitty and most do)."""
    try:
        import fcntl
        import struct
        import termios

        rows, cols, width, height = struct.unpack("HHHH", fcntl.ioctl(fd, termios.TIOCGWINSZ, b"\0" * 8))
    except (OSError, ImportError):
        return None
    if rows and cols and width and height:
        return width // cols, height // rows
    return None


def _ask(fin: int, fout: int, query: str, deadline: float) -> str:
    """Write `query` and read until the DA1 reply that ends it (or the deadline)."""
    os.write(fout, query.encode())
    chunks: list[bytes] = []
    reply = ""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fin], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        chunks.append(os.read(fin, 4096))
        reply = b"".join(chunks).decode("utf-8", "replace")
        if _DA1.search(reply):
            break
    return reply


def under_web_driver(env: dict[str, str] | None = None) -> bool:
    """True when textual-serve runs this process for a browser (no terminal to ask)."""
    env = dict(os.environ) if env is None else env
    return "web_driver" in env.get("TEXTUAL_DRIVER", "").lower()


def probe(timeout: float = 1.0) -> Terminal:
    """Ask the terminal on stdin/stderr (Textual draws on stderr) what it can draw.

    Returns a `Terminal` built from the environment alone when there is no terminal
    to ask (a pipe, the browser) or it does not answer within `timeout` seconds.
    """
    env = dict(os.environ)
    if under_web_driver(env):
        return replace(parse_replies("", env=env), notes=["running in the browser (textual-serve)"])
    try:
        fin = sys.__stdin__.fileno() if sys.__stdin__ else -1
        fout = sys.__stderr__.fileno() if sys.__stderr__ else -1
    except (OSError, ValueError):
        fin = fout = -1
    if fin < 0 or fout < 0 or not os.isatty(fin) or not os.isatty(fout):
        return replace(parse_replies("", env=env), notes=["not a terminal"])
    try:
        import termios
        import tty
    except ImportError:  # Windows: Textual asks nothing either; the environment is all we know
        return parse_replies("", env=env)
    try:
        saved = termios.tcgetattr(fin)
    except termios.error:
        return replace(parse_replies("", env=env), notes=["the terminal's modes cannot be read"])
    reply = ""
    try:
        tty.setcbreak(fin, termios.TCSANOW)
        deadline = time.monotonic() + timeout
        reply = _ask(fin, fout, QUERY, deadline)
        da1 = _DA1.search(reply)
        if da1 and "4" in da1.group(1).split(";"):
            reply += _ask(fin, fout, SIXEL_QUERY, deadline)
    except OSError:
        pass
    finally:
        with contextlib.suppress(termios.error):
            termios.tcsetattr(fin, termios.TCSANOW, saved)
    found = parse_replies(reply, env=env)
    cell = _pty_cell(fout)
    if cell is not None and cell[0] >= 2 and cell[1] >= 4:
        found = replace(found, cell=cell)
    if not found.answered:
        found = replace(found, notes=[f"the terminal did not answer within {timeout:g} s"])
    return found
