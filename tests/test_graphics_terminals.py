"""The phone in real graphics terminals, read back from real pixels.

`guilens demo` runs in Debian's xterm (`-ti vt340`: Sixel), kitty (Kitty graphics, direct placement:
kitty 0.26 predates Unicode placeholders) and mlterm (Sixel) on a virtual X display, at 200x55 cells.
When the agent asks its second question the phone shows the product page; a screenshot of the whole
display is taken, and tesseract reads the phone's part of it. It must recover at least 80% of the
words tesseract reads in the device's own PNG of that screen (`screens/0006.png`).
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

import pytest
import terminal_helpers as th

pytestmark = [pytest.mark.slow]

NEEDS = ("Xvfb", "import", "tesseract", "xdotool")
TERMINALS = ["xterm", "kitty", "mlterm"]
ASK_STEP = 6
"""The demo asks its second question at step 6, on the product page: a screen full of words."""


def guilens_binary() -> str:
    return str(Path(sys.executable).parent / "guilens")


def _steps(out: Path) -> tuple[Path | None, int]:
    for ep in out.glob("*/*/attempt-1"):
        lines = (ep / "steps.jsonl").read_text().splitlines() if (ep / "steps.jsonl").exists() else []
        return ep, len(lines)
    return None, 0


def _wait(cond, timeout: float, what: str, term: th.Terminal) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return
        if not term.alive():
            raise AssertionError(f"the terminal exited before {what}:\n{term.output()}")
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}:\n{term.output()}")


@pytest.mark.parametrize("terminal", TERMINALS)
def test_the_phone_is_readable_in_a_graphics_terminal(terminal: str, tmp_path: Path) -> None:
    if not th.have(*NEEDS, terminal):
        pytest.skip(f"needs {', '.join(NEEDS)} and {terminal}")
    out = tmp_path / "runs"
    env = {"COLORTERM": "truecolor", "GUILENS_CONFIG_FILE": str(tmp_path / "none.toml"),
           "GUILENS_CACHE_DIR": str(tmp_path / "cache"), "LANG": "C.UTF-8"}
    command = f"{th.shell_join([guilens_binary(), 'demo', '--out', str(out)])}; sleep 30"
    with th.xvfb() as display:
        term = th.Terminal(display, terminal, command, env=env)
        try:
            _wait(lambda: _steps(out)[0] is not None, 60, "the run to start", term)
            # the first question comes at step 0: accept the suggested answer until it is taken
            deadline = time.monotonic() + 60
            while _steps(out)[1] < 1 and time.monotonic() < deadline:
                term.keys("Return")
                time.sleep(1.5)
            _wait(lambda: _steps(out)[1] >= ASK_STEP, 60, f"step {ASK_STEP}", term)
            time.sleep(3)  # the question's modal is open; let the phone be drawn
            shot = term.screenshot(tmp_path / f"{terminal}.png")
            while _steps(out)[1] <= ASK_STEP and time.monotonic() < deadline + 60:
                term.keys("Return")
                time.sleep(1.5)
            ep, _n = _steps(out)
            assert ep is not None
            _wait(lambda: json.loads((ep / "episode.json").read_text())["status"] != "running", 60,
                  "the episode to end", term)
            term.keys("q")
        finally:
            term.close()
    device_png = ep / "screens" / f"{ASK_STEP:04d}.png"
    # The words to find: those OCR reads in the device's own PNG that are really on the screen (in its UI
    # tree): OCR also "reads" words in the product photo, which no rendering could reproduce.
    ui_text = (ep / "ui" / f"{ASK_STEP:04d}.xml").read_text()
    screen_words = {w for w in (re.sub(r"[^0-9a-z]", "", t.lower()) for t in re.split(r"[\s\"=<>/]+", ui_text))
                    if len(w) >= 3}
    want = th.ocr_words(th.Image.open(device_png).convert("RGB")) & screen_words
    box = th.phone_box(shot)
    assert box is not None, f"no phone on the screen in {terminal}"
    phone = shot.crop(box)
    phone.save(tmp_path / f"{terminal}-phone.png")
    got = th.ocr_words(phone, scale=3.0)
    found = want & got
    recall = len(found) / max(1, len(want))
    print(f"{terminal}: phone {phone.width}x{phone.height} px, OCR recovered {len(found)}/{len(want)} "
          f"words of the device's screen ({recall:.0%}); missing: {sorted(want - got)}")
    assert len(want) >= 15, f"the device's own screen gave too few words to compare: {sorted(want)}"
    assert recall >= 0.8, f"{terminal}: only {recall:.0%} of the screen's words: missing {sorted(want - got)}"
