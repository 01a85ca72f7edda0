"""Getting around: home has the focus at start (Enter starts) and one "all tasks" choice; a run or the
runs browser opened from home goes back to it on q/Esc; leaving or quitting while an episode runs asks
once and records the episode as aborted; the runs browser shows a verdict judged in the replay at once;
screenshots go to a folder that exists, and the notice says where (or why not)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import tui_helpers
from test_tui_run import run_screen, wait_for
from textual.widgets import Button, Select

from guilens.config import Settings
from guilens.episode import EpisodeReader
from guilens.screens.app import GuilensApp
from guilens.screens.home_screen import ALL_TASKS, HomeScreen
from guilens.screens.judge_screen import JudgeScreen
from guilens.screens.modals import ConfirmScreen, HelpScreen
from guilens.screens.replay_screen import ReplayScreen
from guilens.screens.run_screen import RunScreen
from guilens.screens.runs_screen import RunsScreen


def settings_in(tmp_path: Path, **kw: Any) -> Settings:
    return Settings(run_dir=tmp_path / "runs", cache_dir=tmp_path / "cache", **kw)


def home_app(tmp_path: Path, **kw: Any) -> GuilensApp:
    settings = settings_in(tmp_path, **kw)
    return GuilensApp(lambda: HomeScreen(settings), settings=settings)


def notices(app: GuilensApp) -> list[tuple[str, str]]:
    """Every notification from now on, as (severity, message)."""
    seen: list[tuple[str, str]] = []
    original = app.notify

    def notify(message: str, **kw: Any) -> None:
        seen.append((kw.get("severity", "information"), message))
        original(message, **kw)

    app.notify = notify  # type: ignore[method-assign]
    return seen


def confirms(app: GuilensApp) -> int:
    return sum(isinstance(s, ConfirmScreen) for s in app.screen_stack)


async def start_human_demo(app: GuilensApp, pilot: Any) -> RunScreen:
    """From home: the demo with a person as the agent, so the episode runs until someone acts."""
    home = app.screen
    assert isinstance(home, HomeScreen)
    home.query_one("#scenario", Select).value = "demo"
    home.query_one("#agent", Select).value = "human"
    await pilot.pause(0.2)
    home.query_one("#start", Button).focus()
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(app.screen, RunScreen), what="the run screen")
    screen = run_screen(app)
    await wait_for(pilot, lambda: any(r.kind == "action" for r in screen.pending.values()), what="the person's turn")
    return screen


async def test_home_has_the_focus_at_start_and_one_all_tasks_choice(tmp_path: Path) -> None:
    app = home_app(tmp_path)
    async with app.run_test(size=(160, 50)) as pilot:
        home = app.screen
        assert isinstance(home, HomeScreen)
        await pilot.pause(0.2)
        assert home.focused is home.query_one("#start", Button)  # Enter starts, no Tab needed
        tasks = home.query_one("#task", Select)
        scenario = home.scenarios[str(home.query_one("#scenario", Select).value)]
        labels = [str(prompt) for prompt, _ in tasks._options]
        values = [value for _, value in tasks._options]
        assert values.count(ALL_TASKS) == 1 and Select.BLANK not in values  # no blank "all tasks" prompt
        assert sum(label.startswith("all ") for label in labels) == 1
        assert tasks.value == ALL_TASKS and len(values) == len(scenario.tasks) + 1
        home.query_one("#scenario", Select).value = "demo"  # one task: no "all" entry at all
        await pilot.pause(0.2)
        assert [value for _, value in tasks._options] == [t.id for t in home.scenarios["demo"].tasks]
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(isinstance(s, RunScreen) for s in app.screen_stack),
                       what="Enter to start the run")
        screen = run_screen(app)
        screen.action_cancel()
        await wait_for(pilot, lambda: screen.finished)


async def test_home_run_q_goes_back_home_and_home_q_quits(tmp_path: Path) -> None:
    app = home_app(tmp_path)
    async with app.run_test(size=(160, 50)) as pilot:
        home = app.screen
        screen = await start_human_demo(app, pilot)
        assert "q Back" in str(screen.query_one("KeyBar").render())
        await pilot.press("colon", *"finish failure", "enter")
        await wait_for(pilot, lambda: screen.finished, what="the end of the episode")
        await pilot.press("q")  # nothing runs: no question
        await wait_for(pilot, lambda: app.screen is home, what="home again")
        assert confirms(app) == 0 and app.is_running
        await pilot.press("q")
        await wait_for(pilot, lambda: not app.is_running, what="the app to quit from home")


async def test_q_while_an_episode_runs_asks_once_and_goes_home(tmp_path: Path) -> None:
    app = home_app(tmp_path)
    async with app.run_test(size=(160, 50)) as pilot:
        home = app.screen
        screen = await start_human_demo(app, pilot)
        await pilot.press("escape")  # the element list lets go of the keys
        await pilot.press("escape")  # the screen's Esc: back, which asks
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is screen)
        assert screen.running
        await pilot.press("q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("q")
        await pilot.pause(0.2)
        assert confirms(app) == 1  # once
        await pilot.press("y")
        await wait_for(pilot, lambda: app.screen is home, what="home after cancelling")
        assert screen.finished and app.is_running
        where = screen.finished_dirs[-1]
    assert EpisodeReader(where).episode.status == "aborted"


async def test_quitting_the_app_while_an_episode_runs_asks_once_from_any_screen(tmp_path: Path) -> None:
    app = home_app(tmp_path)
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await start_human_demo(app, pilot)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("ctrl+q")
        await pilot.pause(0.2)
        assert confirms(app) == 1
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.is_running, what="the app to quit")
        where = screen.finished_dirs[-1]
    assert EpisodeReader(where).episode.status == "aborted"  # recorded before the app went


async def test_the_runs_browser_opened_from_home_goes_back_on_esc_and_q(tmp_path: Path) -> None:
    tui_helpers.make_episode(tmp_path / "runs")
    app = home_app(tmp_path)
    async with app.run_test(size=(160, 50)) as pilot:
        home = app.screen
        for key in ("escape", "q"):
            await pilot.press("r")
            await wait_for(pilot, lambda: isinstance(app.screen, RunsScreen))
            await wait_for(pilot, lambda: len(app.screen.rows) == 1)  # type: ignore[attr-defined]
            await pilot.press(key)
            await wait_for(pilot, lambda: app.screen is home, what=f"home after {key}")
        assert app.is_running


@pytest.fixture(scope="module")
def oracle_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The oracle on a built-in task, recorded with the real runner and not judged yet."""
    from guilens.run.engine import Runner
    from guilens.run.plan import plan_run
    from guilens.scenarios.loader import load_builtin

    root = tmp_path_factory.mktemp("runs")
    scenario = next(s for s in load_builtin() if s.device == "sim" and s.kind == "tasks")
    plan = plan_run(f"{scenario.id}:{scenario.tasks[0].id}", agent="oracle", devices=["sim"], user="oracle",
                    level="L0", out=root)
    Runner(plan).run()
    return root


async def test_the_runs_browser_shows_a_verdict_judged_in_the_replay(oracle_run: Path, tmp_path: Path) -> None:
    tui_helpers.make_episode(oracle_run)  # a second row, so the cursor has somewhere to be kept
    app = GuilensApp(lambda: RunsScreen(oracle_run), settings=settings_in(tmp_path))
    async with app.run_test(size=(160, 40)) as pilot:
        runs = app.screen
        assert isinstance(runs, RunsScreen)
        await wait_for(pilot, lambda: len(runs.rows) == 2)
        table = runs.query_one("#runs-table")
        row = next(i for i, r in enumerate(runs.shown) if r.run != "test-run")
        table.move_cursor(row=row)  # type: ignore[attr-defined]
        assert runs.shown[row].verdict == ""
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen))
        await pilot.press("j")
        await wait_for(pilot, lambda: isinstance(app.screen, JudgeScreen))
        judge = app.screen
        await wait_for(pilot, lambda: judge.verdict is not None, timeout=60, what="the verdict")  # type: ignore[attr-defined]
        await pilot.press("escape", "q")  # close the judge, leave the replay (no R pressed)
        await wait_for(pilot, lambda: app.screen is runs)
        await wait_for(pilot, lambda: runs.shown[row].verdict.startswith("success"), what="the verdict column")
        assert table.cursor_row == row  # type: ignore[attr-defined]


async def _screenshot_by_palette(app: GuilensApp, pilot: Any) -> None:
    await pilot.press("ctrl+p")
    await pilot.pause(0.3)
    await pilot.press(*"Screenshot")
    await pilot.pause(0.5)
    await pilot.press("enter")


async def test_a_screenshot_goes_beside_the_runs_and_says_where(tmp_path: Path) -> None:
    app = home_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        seen = notices(app)
        folder = tmp_path / "runs" / "screenshots"
        assert not folder.exists()
        await _screenshot_by_palette(app, pilot)
        await wait_for(pilot, lambda: any(m.startswith("Saved to") for _, m in seen), what=lambda: f"a notice: {seen}")  # type: ignore[arg-type]
    shots = list(folder.glob("*.svg"))
    assert len(shots) == 1 and "<svg" in shots[0].read_text()[:200]
    assert any(str(shots[0]) in m for _, m in seen), seen


async def test_a_screenshot_of_a_run_goes_into_that_run(tmp_path: Path) -> None:
    from guilens.run.plan import plan_run
    from guilens.screens.launch import make_run_screen

    plan = plan_run("demo", agent="oracle", devices=["sim"], out=tmp_path / "out", settings=settings_in(tmp_path))
    app = GuilensApp(lambda: make_run_screen(plan, paused=True), settings=plan.settings)
    async with app.run_test(size=(160, 50)) as pilot:
        screen = run_screen(app)
        await wait_for(pilot, lambda: screen.run_directory() is not None, what="the run directory")
        seen = notices(app)
        await _screenshot_by_palette(app, pilot)
        await wait_for(pilot, lambda: any(m.startswith("Saved to") for _, m in seen), what=lambda: f"a notice: {seen}")  # type: ignore[arg-type]
        run_dir = screen.run_directory()
        await pilot.press("c")
        await wait_for(pilot, lambda: screen.finished)
    assert run_dir is not None and len(list((run_dir / "screenshots").glob("*.svg"))) == 1


async def test_a_screenshot_that_cannot_be_saved_says_why(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the folder should be")
    app = home_app(tmp_path, screenshot_dir=blocker / "shots")
    async with app.run_test(size=(120, 40)) as pilot:
        seen = notices(app)
        await _screenshot_by_palette(app, pilot)
        await wait_for(pilot, lambda: any(sev == "error" for sev, _ in seen), what=lambda: f"an error notice: {seen}")  # type: ignore[arg-type]
    errors = [m for sev, m in seen if sev == "error"]
    assert errors == [f"Not saved: cannot create the folder {blocker / 'shots'}: Not a directory"]
