"""Real graphics terminals for the tests: a virtual X display, xterm (Sixel), kitty (Kitty graphics)
and mlterm (Sixel) running a command, screenshots of the display, and OCR of a region.

Each piece is a Debian package (xvfb, xterm, kitty, mlterm, imagemagick, tesseract-ocr,
xdotool, fonts-dejavu-core); a test skips only where one is missing.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from PIL import Image

FONT = "DejaVu Sans Mono"


def have(*tools: str) -> bool:
    return all(shutil.which(t) for t in tools)


@contextmanager
def xvfb(width: int = 1920, height: int = 1200) -> Iterator[str]:
    """A fresh X display (`:N`, N picked by Xvfb itself), torn down afterwards."""
    read, write = os.pipe()
    proc = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", f"{width}x{height}x24",
                             "-nolisten", "tcp"], pass_fds=(write,), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    os.close(write)
    try:
        number = b""
        deadline = time.monotonic() + 20
        while not number.endswith(b"\n") and time.monotonic() < deadline:
            chunk = os.read(read, 16)
            if not chunk:
                break
            number += chunk
        if not number.strip():
            raise RuntimeError("Xvfb did not start")
        yield f":{number.decode().strip()}"
    finally:
        os.close(read)
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()


def terminal_command(terminal: str, command: str, cols: int, rows: int) -> list[str]:
    """The command line that opens `terminal` at `cols x rows` cells, top-left, running `command`."""
    shell = ["sh", "-c", command]
    if terminal == "xterm":
        return ["xterm", "-ti", "vt340", "-fa", FONT, "-fs", "8", "-geometry", f"{cols}x{rows}+0+0", "-e", *shell]
    if terminal == "kitty":
        return ["kitty", "--config", "NONE", "-o", f"font_family={FONT}", "-o", "font_size=8",
                "-o", f"initial_window_width={cols}c", "-o", f"initial_window_height={rows}c",
                "-o", "remember_window_size=no", "-o", "placement_strategy=top-left", *shell]
    if terminal == "mlterm":
        return ["mlterm", "--geometry", f"{cols}x{rows}+0+0", "--fontsize", "13", "-e", *shell]
    raise ValueError(terminal)


class Terminal:
    """A terminal window on `display` running `command`; keys go in through XTEST (xdotool)."""

    def __init__(self, display: str, terminal: str, command: str, *, cols: int = 200, rows: int = 55,
                 env: dict[str, str] | None = None) -> None:
        self.display = display
        self.env = {**os.environ, **(env or {}), "DISPLAY": display}
        for name in ("TMUX", "COLUMNS", "LINES"):  # the terminal's own size and kind, not the caller's
            self.env.pop(name, None)
        self.log = tempfile.NamedTemporaryFile(prefix=f"{terminal}-", suffix=".log", delete=False)  # noqa: SIM115
        self.proc = subprocess.Popen(terminal_command(terminal, command, cols, rows), env=self.env,
                                     stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def keys(self, *keys: str) -> None:
        subprocess.run(["xdotool", "mousemove", "200", "200"], env=self.env, check=False)
        subprocess.run(["xdotool", "key", "--delay", "60", *keys], env=self.env, check=False)

    def screenshot(self, path: Path) -> Image.Image:
        subprocess.run(["import", "-display", self.display, "-window", "root", str(path)], env=self.env,
                       check=True, capture_output=True)
        return Image.open(path).convert("RGB")

    def close(self) -> None:
        if self.alive():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, 15)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, 9)
        self.log.close()

    def output(self) -> str:
        return Path(self.log.name).read_text(errors="replace")[-3000:]


def ocr_words(image: Image.Image, *, scale: float = 1.0, psm: int = 11) -> set[str]:
    """The words tesseract reads in `image` (lower case, letters and digits, 3 characters or more)."""
    if scale != 1.0:
        image = image.resize((round(image.width * scale), round(image.height * scale)), Image.Resampling.LANCZOS)
    with tempfile.NamedTemporaryFile(suffix=".png") as f:
        image.save(f.name)
        out = subprocess.run(["tesseract", f.name, "-", "--psm", str(psm)], capture_output=True, text=True,
                             check=True).stdout
    return {w for w in (re.sub(r"[^0-9a-z]", "", t.lower()) for t in out.split()) if len(w) >= 3}


def phone_box(shot: Image.Image, threshold: int = 200, density: float = 0.5) -> tuple[int, int, int, int] | None:
    """The bounding box of the phone: the columns, then the rows, that are mostly light (a phone
    screen is light; the dark terminal around it holds light text, but sparsely)."""
    import numpy as np

    light = np.asarray(shot.convert("L")) >= threshold
    per_col = light.sum(axis=0)
    cols = np.flatnonzero(per_col >= density * per_col.max())  # relative: the window may not fill the display
    if not len(cols):
        return None
    # the widest group of phone columns; a darker stripe inside the phone (a grey card, a photo) does not
    # split it, a wide dark gap (the panels beside the phone) does
    runs = np.split(cols, np.flatnonzero(np.diff(cols) > 80) + 1)
    run = max(runs, key=lambda r: int(r[-1]) - int(r[0]))
    x1, x2 = int(run[0]), int(run[-1]) + 1
    per_row = light[:, x1:x2].sum(axis=1)
    rows = np.flatnonzero(per_row >= density * per_row.max())
    if not len(rows):
        return None
    return x1, int(rows[0]), x2, int(rows[-1]) + 1


def shell_join(args: list[str]) -> str:
    return " ".join(shlex.quote(a) for a in args)
