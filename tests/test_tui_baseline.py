"""`guilens scenarios from-episode` on something that is not an episode: one clear line. (A person's
run in the run screen, exported and verified, is in tests/test_export_tui.py.)"""

from __future__ import annotations

from pathlib import Path

import tui_helpers  # noqa: F401
from typer.testing import CliRunner


def test_from_episode_explains_an_episode_without_actions(tmp_path: Path) -> None:
    from guilens.cli import app

    res = CliRunner().invoke(app, ["scenarios", "from-episode", str(tmp_path), "--out", str(tmp_path / "x.yaml")])
    assert res.exit_code == 2 and "episode.json" in res.output


async def test_the_pause_screen_between_tasks_starts_skips_and_ends_a_session(tmp_path: Path) -> None:
    """`guilens baseline` in the TUI: before each task a modal shows it; s skips it, q ends the session,
    Enter starts it (and the person's turn comes)."""
    from test_tui_run import run_screen, wait_for

    from guilens.run.plan import plan_run
    from guilens.screens.app import GuilensApp
    from guilens.screens.launch import make_run_screen
    from guilens.screens.modals import NextTaskScreen

    plan = plan_run("memory", agent="human", devices=["sim"], user="oracle", level="L0", out=tmp_path)
    plan.tasks = plan.tasks[:3]
    plan.intermission = True
    app = GuilensApp(lambda: make_run_screen(plan))
    async with app.run_test(size=(200, 60)) as pilot:
        screen = run_screen(app)
        await wait_for(pilot, lambda: isinstance(app.screen, NextTaskScreen), what="the first pause screen")
        modal: NextTaskScreen = app.screen  # type: ignore[assignment]
        assert modal.context["task"] == plan.tasks[0].id and modal.context["index"] == 1
        assert screen.state == "waiting"
        await pilot.press("s")  # skip the first task
        await wait_for(pilot, lambda: isinstance(app.screen, NextTaskScreen)
                       and app.screen.context.get("index") == 2, what="the second pause screen")  # type: ignore[attr-defined]
        await pilot.press("enter")  # start it: the person's turn comes
        await wait_for(pilot, lambda: any(r.kind == "action" for r in screen.pending.values()), what="my turn")
        await pilot.press("colon", *"finish failure", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, NextTaskScreen)
                       and app.screen.context.get("index") == 3, what="the third pause screen")  # type: ignore[attr-defined]
        await pilot.press("q")  # end the session
        await wait_for(pilot, lambda: screen.finished, what="the end of the session")
    run_dir = next(tmp_path.iterdir())
    assert not (run_dir / plan.tasks[0].id).exists() and (run_dir / plan.tasks[1].id / "attempt-1").is_dir()
    assert not (run_dir / plan.tasks[2].id).exists()
