"""The run screen against a scripted run on the real simulated phone: panels, pause and step,
answering, taking over, marking, cancelling, quitting, zoom, help and the command palette."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import tui_helpers

from guilens.episode import EpisodeReader
from guilens.screens.app import GuilensApp
from guilens.screens.modals import AskUserScreen, ConfirmScreen, HelpScreen, PromptScreen
from guilens.screens.run_screen import RunScreen
from guilens.screens.widgets.human import HumanPanel
from guilens.screens.widgets.memory import MemoryView
from guilens.screens.widgets.milestones import MilestoneView
from guilens.screens.widgets.phone import HalfcellView, PhoneView
from guilens.screens.widgets.status import StatusLine
from guilens.screens.widgets.trace import TraceView


def make_app(tmp_path: Path, **kw: Any) -> tuple[GuilensApp, Any]:
    paused = kw.pop("paused", False)
    factory = tui_helpers.scripted_factory(tmp_path, **kw)

    def dir_lookup(ep: Any) -> Path:
        return tmp_path / ep.run_id / ep.task / f"attempt-{ep.attempt}"

    app = GuilensApp(lambda: RunScreen(factory, task_lookup=lambda ep: tui_helpers.FakeTask(),
                                       dir_lookup=dir_lookup, paused=paused))
    return app, factory


async def wait_for(pilot: Any, cond: Callable[[], Any], timeout: float = 20.0, what: str = "") -> None:
    for _ in range(int(timeout / 0.05)):
        if cond():
            return
        await pilot.pause(0.05)
    raise AssertionError(f"timed out waiting for {what() if callable(what) else (what or cond)}")


def run_screen(app: GuilensApp) -> RunScreen:
    return next(s for s in app.screen_stack if isinstance(s, RunScreen))


async def test_a_scripted_run_fills_every_panel_and_ends_in_success(tmp_path: Path) -> None:
    app, factory = make_app(tmp_path)
    async with app.run_test(size=(200, 60)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, AskUserScreen), what="the question modal")
        modal = app.screen
        assert modal.question == "What should the note say?" and modal.suggestion == "Buy milk"  # type: ignore[attr-defined]
        screen = run_screen(app)
        assert screen.state == "waiting" and screen.query_one(StatusLine).state == "waiting"
        await pilot.press("enter")  # accept the suggestion
        await wait_for(pilot, lambda: screen.finished, what="the end of the run")
        await pilot.pause(0.3)
        trace = screen.query_one(TraceView)
        steps = [c.event for c in trace.children if type(c.event).__name__ == "Step"]  # type: ignore[attr-defined]
        assert [s.index for s in steps] == [0, 1, 2, 3, 4]
        assert steps[2].ask.answer == "Buy milk"
        memory = screen.query_one(MemoryView).render().plain  # type: ignore[union-attr]
        assert "+ done" in memory and "note: Buy milk" in memory
        milestones = screen.query_one(MilestoneView)
        assert milestones.reached == {"open_notes": 0, "write_note": 3} and milestones.done == 2
        status = screen.query_one(StatusLine)
        assert status.state == "finished" and status.outcome == "success"
        assert (status.step, status.budget, status.tokens) == (5, 10, 5 * 1280)
        assert "finished: success" in status.render().plain
        phone = screen.query_one(PhoneView)
        assert phone.canvas is not None and phone.canvas.frame is not None
        assert phone.shown.action == {"type": "finish", "status": "success"}
        episode = EpisodeReader(factory.made[0].dir)
        assert episode.episode.status == "success" and episode.steps[2].ask.answer == "Buy milk"


async def test_typing_an_answer_records_the_persons_answer(tmp_path: Path) -> None:
    app, factory = make_app(tmp_path)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, AskUserScreen))
        await pilot.press(*"Buy eggs", "enter")
        screen = run_screen(app)
        await wait_for(pilot, lambda: screen.finished)
    ask = EpisodeReader(factory.made[0].dir).steps[2].ask
    assert (ask.answer, ask.answered_by, ask.suggested) == ("Buy eggs", "human", "Buy milk")


async def test_escape_leaves_the_question_open_and_a_answers_it(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, AskUserScreen))
        await pilot.press("escape")
        screen = run_screen(app)
        await pilot.pause(0.3)
        assert app.screen is screen and screen.state == "waiting"
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, AskUserScreen))
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.finished)


async def test_pause_holds_the_run_and_n_runs_exactly_one_step(tmp_path: Path) -> None:
    script = [*tui_helpers.NOTE_SCRIPT[:4], *[tui_helpers.ScriptStep("wait 0.1")] * 3, tui_helpers.NOTE_SCRIPT[4]]
    app, factory = make_app(tmp_path, paused=True, delay=0.3, script=script)
    async with app.run_test(size=(160, 50)) as pilot:
        screen = run_screen(app)
        await wait_for(pilot, lambda: screen.episode is not None)
        await pilot.pause(0.5)
        assert screen.steps == [] and screen.state == "paused"
        await pilot.press("n")
        await wait_for(pilot, lambda: len(screen.steps) == 1)
        await pilot.pause(0.5)
        assert len(screen.steps) == 1 and screen.state == "paused"
        await pilot.press("space")
        await wait_for(pilot, lambda: isinstance(app.screen, AskUserScreen))
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is screen)
        await pilot.press("space")  # pause: the step in flight ends, no other starts
        await wait_for(pilot, lambda: screen.control.paused, timeout=3, what="the pause")
        recorded = factory.made[0].recorder.steps  # the runner's own count: the screen's may lag
        at_press = len(recorded)
        await pilot.pause(1.0)
        held = len(recorded)
        await pilot.pause(1.0)
        assert len(recorded) == held <= at_press + 1 and held < len(script)
        assert len(screen.steps) == held and screen.state == "paused"
        await pilot.press("space")
        await wait_for(pilot, lambda: screen.finished)
    assert EpisodeReader(factory.made[0].dir).episode.status == "success"


async def test_taking_over_records_the_persons_actions_as_human_steps(tmp_path: Path) -> None:
    app, factory = make_app(tmp_path, paused=True)
    async with app.run_test(size=(200, 60)) as pilot:
        screen = run_screen(app)
        await wait_for(pilot, lambda: screen.episode is not None)
        await pilot.press("t", "space")
        await wait_for(pilot, lambda: any(r.kind == "action" for r in screen.pending.values()), what="an action request")
        assert screen.state == "human" and screen.has_class("-human")
        assert screen.query_one(HumanPanel).display
        # a click on the phone taps the device pixel under the cursor
        phone = screen.query_one(PhoneView)
        await wait_for(pilot, lambda: phone.fit is not None)
        fit = phone.fit
        await pilot.click(HalfcellView, offset=(fit.left + fit.cols // 2, fit.top + fit.rows // 2))  # type: ignore[union-attr]
        await wait_for(pilot, lambda: len(screen.steps) == 1, what="the tap step")
        # the command line
        await wait_for(pilot, lambda: any(r.kind == "action" for r in screen.pending.values()))
        await pilot.press("colon", *"open notes", "enter")
        await wait_for(pilot, lambda: len(screen.steps) == 2, what="the open step")
        # the element list: New note is on the Notes screen
        await wait_for(pilot, lambda: any(r.kind == "action" for r in screen.pending.values()))
        panel = screen.query_one(HumanPanel)
        await wait_for(pilot, lambda: any("New note" in e.label for e in panel.elements))
        target = next(e for e in panel.elements if "New note" in e.label)
        panel.query_one("#elements").focus()
        await pilot.press(*["down"] * target.number, "enter")
        await wait_for(pilot, lambda: len(screen.steps) == 3, what="the element tap")
        # a device key
        await wait_for(pilot, lambda: any(r.kind == "action" for r in screen.pending.values()))
        await pilot.press("b")
        await wait_for(pilot, lambda: len(screen.steps) == 4, what="the back key")
        await pilot.press("t")  # hand back: the agent resumes after the person's pending turn
        await wait_for(pilot, lambda: any(r.kind == "action" for r in screen.pending.values()))
        await pilot.press("colon", *"wait 0.1", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, AskUserScreen) or screen.finished, what="the agent")
        if isinstance(app.screen, AskUserScreen):
            await pilot.press("enter")
        await wait_for(pilot, lambda: screen.finished)
    steps = EpisodeReader(factory.made[0].dir).steps
    human = [s for s in steps if s.by == "human"]
    assert [s.action["type"] for s in human] == ["tap", "open_app", "tap", "key", "wait"]
    assert human[2].target["label"] == "New note" and human[2].device_result == "started a new note"
    assert all(s.ended_at >= s.started_at for s in human)
    assert [s.by for s in steps[len(human):]] == ["agent"] * (len(steps) - len(human))


async def test_mark_annotates_the_current_step(tmp_path: Path) -> None:
    app, factory = make_app(tmp_path, paused=True)
    async with app.run_test(size=(160, 50)) as pilot:
        screen = run_screen(app)
        await wait_for(pilot, lambda: screen.episode is not None)
        await pilot.press("n")
        await wait_for(pilot, lambda: len(screen.steps) == 1)
        await pilot.press("m")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        await pilot.press(*"notes open", "enter")
        await pilot.pause(0.3)
        await pilot.press("c")
        await wait_for(pilot, lambda: screen.finished)
    marked = EpisodeReader(factory.made[0].dir).steps[0].annotations
    assert marked == ["notes open"]


async def test_cancel_aborts_the_episode_not_the_app(tmp_path: Path) -> None:
    app, factory = make_app(tmp_path)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, AskUserScreen))
        await pilot.press("escape", "c")
        screen = run_screen(app)
        await wait_for(pilot, lambda: screen.finished)
        assert app.is_running and screen.query_one(StatusLine).outcome == "aborted"
        assert "finished: aborted" in screen.query_one(StatusLine).render().plain
    assert EpisodeReader(factory.made[0].dir).episode.status == "aborted"


async def test_quit_asks_first_while_an_episode_runs(tmp_path: Path) -> None:
    app, factory = make_app(tmp_path, paused=True)
    async with app.run_test(size=(160, 50)) as pilot:
        screen = run_screen(app)
        await wait_for(pilot, lambda: screen.episode is not None)
        await pilot.press("q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")
        await pilot.pause(0.2)
        assert app.screen is screen and app.is_running
        await pilot.press("q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.is_running, what="the app to exit")
    assert EpisodeReader(factory.made[0].dir).episode.status == "aborted"


async def test_zoom_help_and_palette(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, paused=True)
    async with app.run_test(size=(160, 50)) as pilot:
        screen = run_screen(app)
        await wait_for(pilot, lambda: screen.episode is not None)
        phone = screen.query_one(PhoneView)
        normal = phone.size.width
        await pilot.press("z")
        await pilot.pause(0.2)
        assert screen.has_class("-zoomed") and phone.size.width > 2 * normal
        assert not screen.query_one("#trace").display or screen.query_one("#middle").size.width == 0
        await pilot.press("z")
        await pilot.pause(0.2)
        assert phone.size.width == normal
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        text = " ".join(str(s.render()) for s in app.screen.query(".help-keys"))
        for key in ("space", "take", "answer", "zoom", "drag"):
            assert key in text.lower(), key
        await pilot.press("escape")
        titles = [c.title for c in app.get_system_commands(screen)]
        for title in ("Pause", "Step", "Cancel", "Take over", "Zoom", "Quit"):
            assert title in titles, title
        assert "Judge" not in titles  # nothing finished yet
        await pilot.press("c")
        await wait_for(pilot, lambda: screen.finished)


async def test_the_real_runner_drives_the_run_screen(tmp_path: Path) -> None:
    """`launch.make_run_screen` with the real `Runner`: the oracle on the first built-in sim task,
    every question confirmed in the modal, recorded as the simulated user's answer."""
    from guilens.run.plan import plan_run
    from guilens.scenarios.loader import load_builtin
    from guilens.screens.launch import make_run_screen

    scenario = next(s for s in load_builtin() if s.device == "sim" and s.kind == "tasks")
    task = next(t for t in scenario.tasks if "L1" in t.levels)
    plan = plan_run(f"{scenario.id}:{task.id}", agent="oracle", devices=["sim"], user="oracle", level="L1",
                    out=tmp_path)
    app = GuilensApp(lambda: make_run_screen(plan))
    asked = 0
    async with app.run_test(size=(200, 60)) as pilot:
        screen = run_screen(app)
        for _ in range(1200):
            if isinstance(app.screen, AskUserScreen):
                asked += 1
                await pilot.press("enter")
            if screen.finished:
                break
            await pilot.pause(0.05)
        assert screen.finished and screen.query_one(StatusLine).outcome == "success"
        assert screen.finished_dirs and app.run_result is not None
        path = screen.finished_dirs[-1]
    reader = EpisodeReader(path)
    asks = [s.ask for s in reader.steps if s.ask is not None]
    assert reader.episode.status == "success" and len(asks) == asked
    assert all(a.answered_by == "oracle" for a in asks)
    milestones = json.loads((path / "episode.json").read_text())["milestones"]
    assert len(milestones) == reader.episode.milestones_total
