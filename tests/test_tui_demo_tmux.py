"""The real `guilens demo` binary in a real terminal (tmux, 200x60, truecolor), driven by keys:
the panels appear, `space` shows paused and holds the run, the ask_user modal appears and
accepting the suggestion continues, the episode ends with success, and `q` quits."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

TMUX = shutil.which("tmux")
pytestmark = pytest.mark.skipif(TMUX is None, reason="needs tmux")


def guilens_binary() -> str:
    here = Path(sys.executable).parent / "guilens"
    return str(here) if here.exists() else (shutil.which("guilens") or "guilens")


class Pane:
    def __init__(self, name: str) -> None:
        self.name = name

    def text(self) -> str:
        return subprocess.run([TMUX, "capture-pane", "-p", "-t", self.name], capture_output=True, text=True,  # type: ignore[list-item]
                              check=False).stdout

    def keys(self, *keys: str) -> None:
        subprocess.run([TMUX, "send-keys", "-t", self.name, *keys], check=True)  # type: ignore[list-item]

    def wait(self, pattern: str, timeout: float = 30.0) -> str:
        return self.until(lambda text: re.search(pattern, text) is not None, f"{pattern!r} did not appear", timeout)

    def until(self, done: Callable[[str], bool], failure: str, timeout: float) -> str:
        """The screen once `done` holds for it, polled every 0.2 s; else `failure`, with the screen."""
        deadline = time.monotonic() + timeout
        text = ""
        while time.monotonic() < deadline:
            text = self.text()
            if done(text):
                return text
            time.sleep(0.2)
        raise AssertionError(f"{failure} within {timeout:g} s; the screen:\n{text}")


def status_line(text: str) -> str:
    lines = [ln for ln in text.splitlines() if re.search(r"\d+/\d+ steps done", ln)]
    return lines[-1] if lines else ""


def step_of(text: str) -> int:
    """The status line's count of steps done."""
    m = re.search(r"(\d+)/\d+ steps done", status_line(text))
    return int(m.group(1)) if m else -1


@contextlib.contextmanager
def demo_in_tmux(tmp_path: Path, prefix: str, cols: int, rows: int) -> Iterator[tuple[Pane, Path]]:
    """`guilens demo --out <tmp_path>/runs` in a fresh tmux session of `cols` x `rows` (truecolor, no config
    file, its own cache); the pane ends with `EXITED <status>` once the app exits. Killed afterwards."""
    name = f"guilens-{prefix}-{uuid.uuid4().hex[:8]}"
    out = tmp_path / "runs"
    env = {"COLORTERM": "truecolor", "GUILENS_CONFIG_FILE": str(tmp_path / "none.toml"),
           "GUILENS_CACHE_DIR": str(tmp_path / "cache"), "TERM": "xterm-256color"}
    # The size from the terminal, not from COLUMNS/LINES: a tmux server started from a process without one
    # carries COLUMNS=80 LINES=24 in its global environment, which Textual (through shutil) would take instead.
    command = f"env -u COLUMNS -u LINES {guilens_binary()} demo --out {out}; echo EXITED $?; sleep 60"
    args = [TMUX, "new-session", "-d", "-s", name, "-x", str(cols), "-y", str(rows), "-c", str(tmp_path)]
    for k, v in env.items():
        args += ["-e", f"{k}={v}"]
    subprocess.run([*args, command], check=True, env={**os.environ, **env})  # type: ignore[list-item]
    try:
        yield Pane(name), out
    finally:
        subprocess.run([TMUX, "kill-session", "-t", name], check=False, capture_output=True)  # type: ignore[list-item]


@pytest.fixture
def pane(tmp_path: Path):  # type: ignore[no-untyped-def]
    with demo_in_tmux(tmp_path, "test", 200, 60) as p:
        yield p


def test_the_demo_runs_to_success_under_a_persons_keys(pane) -> None:  # type: ignore[no-untyped-def]
    p, out = pane
    # every panel drawn (the first frames may be partial)
    p.wait(r"(?s)(?=.*─ phone · sim)(?=.*─ trace)(?=.*─ milestones)(?=.*─ memory)(?=.*\d+/\d+ steps done)", timeout=60)

    # The first question: put it off (Esc), pause (space), reopen it (a) and accept it (Enter):
    # the answered step ends and the run holds, showing paused, until space again.
    text = p.wait(r"The agent asks", timeout=60)
    assert "Simulated user's answer:" in text
    p.keys("Escape")
    p.wait(r"(?s)^(?!.*The agent asks).*waiting for an answer", timeout=10)
    p.keys("Space")
    p.keys("a")
    asking = step_of(p.wait(r"The agent asks", timeout=10))
    assert asking >= 0, "no status line beside the question"
    p.keys("Enter")
    # "paused" shows as soon as the answer is in; the answered step is counted done a moment later.
    text = p.until(lambda t: "❚❚ paused" in status_line(t) and step_of(t) > asking,
                   "the answered step did not end with the run paused", timeout=15)
    held = step_of(text)
    time.sleep(2.0)
    text = p.text()
    assert "paused" in status_line(text) and step_of(text) == held, f"the run moved while paused:\n{text}"
    p.keys("Space")
    answered = 1

    # The rest: accept every suggestion; each time the run goes on.
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        text = p.text()
        if "finished: success" in status_line(text):
            break
        assert "finished:" not in status_line(text), f"the demo did not succeed:\n{text}"
        if "The agent asks" in text:
            before = step_of(text)
            p.keys("Enter")  # accept the simulated user's suggestion
            answered += 1
            p.until(lambda t, before=before: step_of(t) > before or "finished:" in status_line(t),
                    "accepting the answer did not continue the run", timeout=15)
            continue
        time.sleep(0.2)
    text = p.text()
    assert "finished: success" in status_line(text), f"no success:\n{text}"
    p.wait(r"■ success", timeout=10)  # the outcome closes the trace

    p.keys("q")
    p.wait(r"EXITED 0", timeout=20)
    episodes = list(out.rglob("episode.json"))
    assert episodes and all('"status": "success"' in e.read_text() for e in episodes)
