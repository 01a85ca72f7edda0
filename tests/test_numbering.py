"""One step numbering for people, from 1, everywhere a step number is read: the headless lines,
the console's questions, the trace, the replay and the status line. Files keep 0-based indices."""

from __future__ import annotations

import io
import re
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import tui_helpers
from test_tui_run import make_app, run_screen, wait_for

from guilens.control import QuestionChannel
from guilens.episode import Episode, EpisodeReader, Step, StepTimings, Timings
from guilens.headless import ConsoleResponder, HeadlessObserver
from guilens.screens.app import GuilensApp
from guilens.screens.modals import AskUserScreen, PromptScreen
from guilens.screens.replay_screen import ReplayScreen
from guilens.screens.widgets.render import Mark, render, render_step
from guilens.screens.widgets.status import StatusLine
from guilens.screens.widgets.trace import TraceEntry, TraceView

T0 = datetime(2025, 1, 20, 9, 0, tzinfo=UTC)


def step(i: int, **kw: Any) -> Step:
    return Step.model_validate({"index": i, "started_at": T0, "ended_at": T0,
                                "action": {"type": "tap", "x": 5, "y": 6}, **kw})


def test_headless_lines_count_from_one() -> None:
    buf = io.StringIO()
    obs = HeadlessObserver(buf, color=False)
    ep = Episode(task="t", timings=Timings(started_at=T0))
    obs.on_step(ep, step(0))
    obs.on_step(ep, step(9, by="human", timings=StepTimings(person_s=3.4)))
    assert buf.getvalue().splitlines() == ["    1 tap 5 6", "   10 tap 5 6  (human, 3.4s)"]


def test_the_console_names_the_step_that_asks() -> None:
    channel = QuestionChannel()
    out = io.StringIO()
    ConsoleResponder(channel, stdin=io.StringIO("milk\n"), stdout=out, echo=False)
    answer: list[str] = []
    t = threading.Thread(target=lambda: answer.append(channel.ask("question", "What item?", context={"step": 2})))
    t.start()
    t.join(5)
    assert answer == ["milk"] and "? the agent asks (step 3): What item?" in out.getvalue()


def test_the_trace_counts_steps_and_marks_from_one() -> None:
    assert render_step(step(0)).plain.startswith("step 1 · 0.00s")  # recorded before the split: its wall time
    assert render_step(step(0, timings=StepTimings(agent_s=1.2, device_s=0.1))).plain.splitlines()[0] == \
        "step 1 · agent 1.2s · device 0.1s"
    assert "marked at step 5: cart open" in render(Mark("cart open", 4)).plain


async def test_the_replay_counts_from_one_and_shows_time_by_who_spent_it(tmp_path: Path) -> None:
    path = tui_helpers.make_fixed_episode(tmp_path)  # 5 steps: the agent's, one question the oracle answered
    reader = EpisodeReader(path)
    app = GuilensApp(lambda: ReplayScreen(path))
    async with app.run_test(size=(200, 60)) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        await pilot.pause(0.2)
        options = screen.query_one("#step-list")
        labels = [str(options.get_option_at_index(i).prompt) for i in range(len(reader.steps))]  # type: ignore[attr-defined]
        assert [int(label.split()[0]) for label in labels] == [1, 2, 3, 4, 5]
        assert screen.query_one("#steps").border_title == "5 steps"
        summary = str(screen.query_one("#summary").render())
        assert "5 steps" in summary and "10.0s (agent 4.0s, user 0.5s, device 0.9s)" in summary

        def shown() -> tuple[str, str]:
            detail = str(screen.query_one("#step-detail").render())
            return str(screen.query_one("#detail-box").border_title), detail.splitlines()[0]

        assert shown() == ("step 1 of 5", "step 1 · agent 0.8s · device 0.2s · com.guilens.launcher · 09:00")
        await pilot.press("right", "right")
        await wait_for(pilot, lambda: screen.index == 2)
        title, header = shown()
        assert title == "step 3 of 5" and header.startswith("step 3 · agent 0.8s")  # no device: it asked
        assert "oracle answered in 0.5s" in str(screen.query_one("#step-detail").render())
        await pilot.press("g")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        await pilot.press("0", "enter")  # there is no step 0 for people
        await pilot.pause(0.1)
        assert isinstance(app.screen, PromptScreen) and "from 1 to 5" in str(app.screen.query_one("#prompt-error").render())
        await pilot.press("backspace", "5", "enter")
        await wait_for(pilot, lambda: screen.index == 4)
        assert shown()[0] == "step 5 of 5"
        assert screen.query_one("#after").border_title == "after · step 5 · final screen"


def _last_trace_step(screen: Any) -> int:
    """The number the trace's newest step entry shows (0 before the first)."""
    entries = [e for e in screen.query_one(TraceView).query(TraceEntry) if isinstance(e.event, Step)]
    if not entries:
        return 0
    m = re.match(r"step (\d+)", str(entries[-1].render()))
    assert m is not None
    return int(m[1])


def _status_done(screen: Any) -> int | None:
    """The status line's count of steps done; None before the attempt starts (no budget yet)."""
    m = re.search(r"(\d+)/10 steps done", screen.query_one(StatusLine).render().plain)
    return None if m is None else int(m[1])


async def test_the_status_and_the_trace_agree_at_every_moment(tmp_path: Path) -> None:
    """Sampled all through a run whose steps take a while (and one waits for an answer): the status
    line's count of steps done is the number of the trace's last step, every time. Each step takes
    0.4 s, many times the sampling interval, so that a loaded machine still samples every step: at
    0.15 s a step, a full run of the suite once saw only 3 of the 5."""
    app, _ = make_app(tmp_path, delay=0.4)
    async with app.run_test(size=(200, 60)) as pilot:
        screen = run_screen(app)
        seen: set[tuple[int, int]] = set()
        for _ in range(200):
            if isinstance(app.screen, AskUserScreen):
                assert (_status_done(screen), _last_trace_step(screen)) == (2, 2)  # step 3 asks; 2 are done
                await pilot.press("enter")
            if screen.finished:
                break
            done = _status_done(screen)
            if done is not None:
                pair = (done, _last_trace_step(screen))
                assert pair[0] == pair[1], pair
                seen.add(pair)
            await pilot.pause(0.03)
        await wait_for(pilot, lambda: screen.finished)
        await pilot.pause(0.2)
        assert (_status_done(screen), _last_trace_step(screen)) == (5, 5)
        assert len(seen) >= 4  # it was sampled while the run went, not only at the end
