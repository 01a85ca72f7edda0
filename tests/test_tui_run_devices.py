"""The run screen with the real runner: the phone shows what the device shows now (after `n`,
during a paused take-over, at the end), and a run over several devices gets a pane each."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageChops
from test_tui_run import run_screen, wait_for
from textual.widgets import TabbedContent

from guilens.config import Settings
from guilens.episode import EpisodeReader
from guilens.run.plan import plan_run
from guilens.screens.app import GuilensApp
from guilens.screens.human_mixin import DeviceAskScreen
from guilens.screens.launch import make_run_screen
from guilens.screens.modals import AskUserScreen, HelpScreen
from guilens.screens.run_screen import RunScreen
from guilens.screens.widgets.milestones import MilestoneView, rows_from_task
from guilens.screens.widgets.trace import TraceView
from tests.runner_helpers import write_scenarios


def same(a: Image.Image | None, b: Image.Image | None) -> bool:
    if a is None or b is None or a.size != b.size:
        return False
    return ImageChops.difference(a.convert("RGB"), b.convert("RGB")).getbbox() is None


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    return write_scenarios(tmp_path)[0]


def _app(target: str, out: Path, *, paused: bool = False, devices: list[str] | None = None,
         tasks: list[Any] | None = None, **kw: Any) -> GuilensApp:
    plan = plan_run(target, agent="oracle", devices=devices or ["sim"], out=out, settings=Settings(), **kw)
    if tasks is not None:
        plan.tasks = tasks
    return GuilensApp(lambda: make_run_screen(plan, paused=paused))


def _now(screen: RunScreen, label: str = "sim") -> Image.Image:
    """What the device shows at this moment (the runner is held at its gate, so asking is safe)."""
    return screen.runner.devices[label].observe().screenshot


async def test_after_n_the_phone_shows_the_screen_the_step_left(pack: Path, tmp_path: Path) -> None:
    app = _app(f"{pack}:budget", tmp_path / "runs", paused=True)
    async with app.run_test(size=(200, 60)) as pilot:
        screen = run_screen(app)
        phone = screen.pane.phone
        await wait_for(pilot, lambda: phone.shown.image is not None, what="the first screen, while paused")
        assert screen.state == "paused" and screen.steps == []
        assert same(phone.shown.image, _now(screen))  # a run started paused shows its phone
        assert screen.query_one("#devices").has_class("-single")  # one device: no tab bar
        first = phone.shown.image
        await pilot.press("n")
        await wait_for(pilot, lambda: len(screen.steps) == 1, what="one step")
        await wait_for(pilot, lambda: not same(phone.shown.image, first), what="the screen after the step")
        await pilot.pause(0.5)
        assert len(screen.steps) == 1 and screen.state == "paused"  # held again
        assert same(phone.shown.image, _now(screen)) and "Budget" in (screen.ui_xml or "")
        assert phone.shown.action == screen.steps[0].action
        await pilot.press("space")
        await wait_for(pilot, lambda: screen.finished, what="the end of the run")
        final = EpisodeReader(screen.finished_dirs[-1])
        assert final.episode.status == "success"
        assert same(phone.shown.image, final.screen(len(final)))  # the end: the final screen


async def test_a_paused_take_over_acts_at_once_and_the_run_stays_paused(pack: Path, tmp_path: Path) -> None:
    app = _app(f"{pack}:budget", tmp_path / "runs", paused=True)
    async with app.run_test(size=(200, 60)) as pilot:
        screen = run_screen(app)
        pane = screen.pane
        await wait_for(pilot, lambda: pane.phone.shown.image is not None)
        await pilot.press("t")
        await wait_for(pilot, lambda: any(r.kind == "action" for r in screen.pending.values()),
                       what="the person's turn, though the run is paused")
        assert screen.state == "human" and screen.control.paused
        panel = pane.human
        await wait_for(pilot, lambda: any(e.label == "Notes" for e in panel.elements), what="the launcher's elements")
        notes = next(e for e in panel.elements if e.label == "Notes")
        panel.query_one("#elements").focus()
        await pilot.press(*["down"] * notes.number, "enter")
        await wait_for(pilot, lambda: len(screen.steps) == 1, what="the person's tap")
        await wait_for(pilot, lambda: "Budget" in (screen.ui_xml or ""), what="the tap's result on the phone")
        assert same(pane.phone.shown.image, _now(screen))
        assert screen.steps[0].by == "human" and screen.control.paused
        await wait_for(pilot, lambda: any(r.kind == "action" for r in screen.pending.values()), what="the next turn")
        await pilot.press("escape", "t")  # hand back: the agent stays held, the run stays paused
        await wait_for(pilot, lambda: screen.state == "paused", what="paused again")
        await pilot.pause(0.8)
        assert len(screen.steps) == 1 and not screen.pending
        await pilot.press("space")
        await wait_for(pilot, lambda: screen.finished)
        reader = EpisodeReader(screen.finished_dirs[-1])
    assert [s.by for s in reader.steps][:2] == ["human", "agent"] and reader.episode.status == "success"
    assert all(s.by == "agent" for s in reader.steps[1:])


def _trace_runs(trace: TraceView) -> list[tuple[str, list[Any]]]:
    """The trace read back as (task, steps) per attempt header, in order."""
    out: list[tuple[str, list[Any]]] = []
    for entry in trace.children:
        event = entry.event  # type: ignore[attr-defined]
        kind = type(event).__name__
        if kind == "AttemptHeader":
            out.append((event.episode.task, []))
        elif kind == "Step":
            out[-1][1].append(event)
    return out


async def test_two_devices_get_a_pane_each_and_never_mix_tasks(tmp_path: Path) -> None:
    from guilens.scenarios.loader import load_builtin

    scenario = next(s for s in load_builtin() if s.id == "memory")
    tasks = sorted(scenario.tasks, key=lambda t: t.golden_steps)[:3]
    by_id = {t.id: t for t in tasks}
    app = _app("memory", tmp_path / "runs", devices=["sim", "sim"], tasks=tasks)
    async with app.run_test(size=(200, 60)) as pilot:
        screen = run_screen(app)
        await wait_for(pilot, lambda: screen.finished, timeout=60, what="the end of the batch")
        await pilot.pause(0.3)
        panes = screen.panes
        assert [p.label for p in panes] == ["sim-1", "sim-2"]
        assert not screen.query_one("#devices").has_class("-single")
        records = [EpisodeReader(d) for d in screen.finished_dirs]
        assert sorted(r.episode.task for r in records) == sorted(by_id)
        for pane in panes:
            mine = [r for r in records if r.episode.device == pane.label]
            assert mine, pane.label
            runs = _trace_runs(pane.trace)
            assert [task for task, _ in runs] == [r.episode.task for r in mine]  # only its own tasks
            for (task, steps), record in zip(runs, mine, strict=True):
                assert [s.action for s in steps] == [s.action for s in record.steps]
                texts = {m.id: m.text for m in by_id[task].all_milestones()}
                for s in steps:
                    for mid in s.milestones:  # each step names its own task's milestones
                        assert mid in texts
            last = by_id[mine[-1].episode.task]
            view = pane.query_one(MilestoneView)
            assert [r.id for r in view.rows] == [r.id for r in rows_from_task(last)]
            assert view.reached == {h.id: h.step for h in mine[-1].episode.milestones}
            assert pane.status.task_id == last.id and pane.status.outcome == "success"
            assert same(pane.phone.shown.image, mine[-1].screen(len(mine[-1])))
        # keys switch the device in view; the help lists them
        tabs = screen.query_one("#devices", TabbedContent)
        await pilot.press("2")
        await pilot.pause(0.2)
        assert tabs.active == panes[1].id and screen.pane is panes[1]
        await pilot.press("left_square_bracket")
        await pilot.pause(0.2)
        assert screen.pane is panes[0]
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        text = " ".join(str(s.render()) for s in app.screen.query(".help-keys"))
        assert "show device N" in text and "the device in view" in text
        await pilot.press("escape")


async def test_a_question_from_another_device_names_it_and_shows_its_pane(pack: Path, tmp_path: Path) -> None:
    app = _app(str(pack), tmp_path / "runs", devices=["sim", "sim"], level="L1")
    async with app.run_test(size=(200, 60)) as pilot:
        screen = run_screen(app)
        await wait_for(pilot, lambda: isinstance(app.screen, AskUserScreen), timeout=30, what="the question")
        modal = app.screen
        assert isinstance(modal, DeviceAskScreen)
        asking = next(p for p in screen.panes if p.episode is not None and p.episode.task == "grocery")
        assert modal.device == asking.label and screen.pane is asking
        await wait_for(pilot, lambda: modal.is_mounted and str(modal.query_one("#dialog").border_title).startswith(
            f"The agent on {asking.label} asks"), what="the modal naming the device")
        assert asking.state == "waiting"
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.finished, timeout=30)
    grocery = EpisodeReader(next(d for d in screen.finished_dirs if d.parent.name == "grocery"))
    assert grocery.episode.device == asking.label and grocery.episode.status == "success"

