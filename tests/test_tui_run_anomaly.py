"""The run screen's `i` key: a chooser of four anomalies; the choice reaches the phone through the run's
control, between steps, and the step that sees it records it (the real runner, the oracle, the sim)."""

from __future__ import annotations

from pathlib import Path

from test_tui_run import run_screen, wait_for

from guilens.screens.anomaly_chooser import AnomalyChooser
from guilens.screens.app import GuilensApp
from guilens.screens.modals import HelpScreen
from tests.runner_helpers import read_steps


async def test_i_injects_a_chosen_anomaly_live_and_the_oracle_clears_it(tmp_path: Path) -> None:
    from guilens.run.plan import plan_run
    from guilens.screens.launch import make_run_screen

    plan = plan_run("anomalies:alarm-ad-before-save", agent="oracle", devices=["sim"], out=tmp_path)
    app = GuilensApp(lambda: make_run_screen(plan, paused=True))
    async with app.run_test(size=(180, 50)) as pilot:
        screen = run_screen(app)
        await wait_for(pilot, lambda: screen.episode is not None, what="the attempt")
        await pilot.press("n")  # one step: open clock
        await wait_for(pilot, lambda: len(screen.steps) == 1, what="the first step")
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, AnomalyChooser), what="the chooser")
        await pilot.press("3")  # low battery
        await wait_for(pilot, lambda: app.screen is screen, what="the chooser to close")
        assert screen.control.paused  # asking for one does not run the agent
        await pilot.press("n")  # the step loop shows it, then the agent's step sees it
        await wait_for(pilot, lambda: len(screen.steps) == 2, what="the second step")
        await pilot.press("space")
        await wait_for(pilot, lambda: screen.finished, timeout=60, what="the end")
        path = screen.finished_dirs[-1]
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help")
        assert any("anomaly" in text for _, rows in app.screen.sections for _, text in rows)
    steps = read_steps(path)
    assert steps[1]["action_description"] == "clear the battery: tap 'Close'"
    assert [(a["kind"], a["event"], a["source"]) for a in steps[1]["anomalies"]] == [
        ("battery", "appeared", "injected"), ("battery", "resolved", "injected")]
    assert [s for s in steps if s["anomalies"] and s["anomalies"][0]["kind"] == "ad"]  # the task's own, too
    assert read_steps(path)[-1]["action_description"] == "finish"


async def test_escape_closes_the_chooser_without_asking(tmp_path: Path) -> None:
    from guilens.run.plan import plan_run
    from guilens.screens.launch import make_run_screen

    plan = plan_run("anomalies:alarm-ad-before-save", agent="oracle", devices=["sim"], out=tmp_path)
    app = GuilensApp(lambda: make_run_screen(plan, paused=True))
    async with app.run_test(size=(180, 50)) as pilot:
        screen = run_screen(app)
        await wait_for(pilot, lambda: screen.episode is not None, what="the attempt")
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, AnomalyChooser), what="the chooser")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, what="the chooser to close")
        assert screen.control.take_injections(None) == []
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, AnomalyChooser), what="the chooser")
        await pilot.click("#anomaly-crash")
        await wait_for(pilot, lambda: app.screen is screen, what="the chooser to close")
        assert screen.control.take_injections(screen.pane.label) == ["crash"]
        await screen.stop()
