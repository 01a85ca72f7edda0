"""Take-over in a real terminal: the `guilens demo` binary in tmux at 100x30 (half cells and the UI tree's
text, as tmux shows the phone), driven by keys and read back with `tmux capture-pane -p`.

The first question is put aside (Esc), the run paused (space) and taken over (t); the question is then
answered (a, Enter), and the paused run hands the person the next step. The element list has the keys:
↓↓↓ picks Notes on the launcher, Enter taps it, and the phone pane (its own columns of the capture)
shows the Notes app's words, while the run stays paused for the agent. Leaving asks once, and the
episode is recorded with the person's tap in it.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from pathlib import Path

import pytest
from test_tui_demo_tmux import TMUX, Pane, demo_in_tmux
from test_tui_textview_tmux import phone_pane

pytestmark = [pytest.mark.slow, pytest.mark.skipif(TMUX is None, reason="needs tmux")]


def on_phone(p: Pane, pattern: str, timeout: float = 20.0) -> str:
    """The capture once `pattern` shows inside the phone pane (not in the trace or the element list)."""
    deadline = time.monotonic() + timeout
    text = ""
    while time.monotonic() < deadline:
        text = p.text()
        with contextlib.suppress(StopIteration, ValueError):  # the pane is not drawn yet
            if re.search(pattern, phone_pane(text)):
                return text
        time.sleep(0.2)
    raise AssertionError(f"{pattern!r} did not appear on the phone within {timeout:g} s; the screen:\n{text}")


def test_pause_take_over_and_tap_an_element_by_keys_in_tmux(tmp_path: Path) -> None:
    with demo_in_tmux(tmp_path, "takeover", 100, 30) as (p, out):
        p.wait(r"The agent asks · step 1\b", timeout=60)
        p.keys("Escape")  # answer later
        p.wait(r"(?s)^(?!.*The agent asks).*waiting for an answer", timeout=10)
        p.keys("Space")  # pause
        p.wait(r"Paused", timeout=10)
        p.keys("t")  # take over: the person's turn comes once the question is answered
        p.keys("a")
        p.wait(r"The agent asks · step 1\b", timeout=10)
        p.keys("Enter")  # accept the suggestion
        p.wait(r"(?s)you are at the controls.*#3 Notes", timeout=20)
        text = on_phone(p, r"3›Notes")  # the launcher, in the phone's own columns
        assert "No notes yet" not in phone_pane(text)
        p.keys("Down", "Down", "Down")  # Shop, Search, Calculator, Notes: the list has the keys
        p.keys("Enter")
        text = on_phone(p, r"No notes yet")  # the tap's result, on the phone
        assert "#1 New note" in text, f"the element list is not the new screen's:\n{text}"
        # still the person's turn, with every key of the controls in view (once the notices have gone)
        p.wait(r"(?s)human at the controls.*b Back\s+h Home\s+e Enter\s+: Command\s+\? Help", timeout=15)
        p.keys("q")  # the demo's run screen is the first: quitting asks once
        p.wait(r"Cancel and quit", timeout=10)
        p.keys("y")
        p.wait(r"EXITED 0", timeout=30)
    episode = next(out.glob("*/*/attempt-1"))
    assert json.loads((episode / "episode.json").read_text())["status"] == "aborted"
    steps = [json.loads(line) for line in (episode / "steps.jsonl").read_text().splitlines()]
    assert steps[0]["action"]["type"] == "ask_user"
    assert steps[1]["by"] == "human" and steps[1]["target"]["label"] == "Notes"
