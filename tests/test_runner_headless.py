"""The headless printer: plain lines when piped, rich with a progress bar on a terminal."""

from __future__ import annotations

import io
from pathlib import Path

from guilens.headless import HeadlessObserver
from tests.runner_helpers import run, write_scenarios


def test_plain_lines(tmp_path: Path):
    rt, _ = write_scenarios(tmp_path)
    buf = io.StringIO()
    run(rt, tmp_path / "runs", observers=[HeadlessObserver(buf, thoughts=True)], level="L1")
    text = buf.getvalue()
    assert "\x1b[" not in text  # no escape codes into a pipe
    lines = text.splitlines()
    assert lines[0].startswith(f"run {tmp_path / 'runs'}") and lines[0].endswith("(2 tasks)")
    assert "▶ rt:grocery L1 · oracle · sim · budget 10" in lines
    # steps are numbered as people count them, as the trace and the replay number them
    assert "    1 open notes  → opened Notes" in lines
    assert "    3 ask What should the note say?  ← 'milk' (oracle)" in lines
    assert "        tap 'New note'" in lines  # the thought, under its step
    assert lines[-1] == "done: 2 episodes: 2 success"


def test_terminal_output_has_a_progress_bar_for_several_tasks(tmp_path: Path):
    rt, _ = write_scenarios(tmp_path)
    buf = io.StringIO()
    obs = HeadlessObserver(buf, color=True, progress=True, parallel=True)
    run(rt, tmp_path / "runs", observers=[obs], devices=["sim", "sim"])
    text = buf.getvalue()
    assert "\x1b[" in text and "tasks" in text and "2/2" in text
    assert "rt:budget " in text and "success" in text  # parallel lines name their task
