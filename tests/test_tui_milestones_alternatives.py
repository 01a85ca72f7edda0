"""The milestone panel and the run screen's status for the new scenario features: an alternatives
item (PSPA-Bench's "choose one path" node) is one checklist row, ticked by any one path, with its
paths grouped under it and the path taken marked; a task of a multi-day sequence shows its date."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tui_helpers  # noqa: F401
from test_tui_panels import Host
from test_tui_run import run_screen, wait_for

from guilens.config import Settings
from guilens.scenarios.loader import find_task
from guilens.scenarios.milestones import SubTask, checklist_progress, path_taken
from guilens.screens.app import GuilensApp
from guilens.screens.modals import AskUserScreen
from guilens.screens.widgets.milestones import (
    MilestoneView,
    checklist_counts,
    mark_reached,
    render_milestones,
    rows_from_task,
)
from guilens.screens.widgets.status import StatusLine

HARD = "hard:shoe-shortlist-share"


def _hard() -> Any:
    return find_task(HARD)[1]


def _by_message_reached(task: Any) -> dict[str, int]:
    """Every milestone the oracle reaches: all but the note path's."""
    note = {m.id for m in task.alternatives()[0].path("by-note").milestones}
    return {m.id: i for i, m in enumerate(task.all_milestones()) if m.id not in note}


def test_an_alternatives_item_is_one_row_ticked_by_the_path_taken_with_its_paths_under_it() -> None:
    task = _hard()
    rows = mark_reached(rows_from_task(task), _by_message_reached(task))
    text = render_milestones(rows, width=80).plain
    lines = text.splitlines()
    assert lines[0].startswith("8/8 reached")  # 7 milestones and the item, not 9/11: the unused path is not counted
    item = next(i for i, line in enumerate(lines) if " shared " in f"{line} ")
    assert lines[item].lstrip().startswith("✓ 8 shared")  # the item itself ticks, numbered as one milestone
    assert "┌ any one path" in lines[item + 2]
    taken = next(line for line in lines if "by-message" in line)
    other = next(line for line in lines if "by-note" in line)
    assert "▸ a" in taken and "taken" in taken and "taken" not in other
    # the paths' milestones sit under their path, inside the item, not as loose rows at the end
    assert lines.index(taken) < next(i for i, x in enumerate(lines) if "chat-open" in x) < lines.index(other)
    assert "✓ message-sent" in text and "○ note-saved" in text
    assert [r.id for r in rows] == [r.id for r in rows_from_task(task)]


def test_an_alternatives_item_waits_until_one_whole_path_is_done() -> None:
    task = _hard()
    reached = _by_message_reached(task)
    reached.pop("message-sent")
    rows = mark_reached(rows_from_task(task), reached)
    assert checklist_counts(rows) == (7, 8)
    text = render_milestones(rows, width=80).plain
    assert "○ 8 shared" in text and "taken" not in text and "✓ chat-open" in text


def test_the_path_taken_is_the_first_to_complete_as_the_tracker_settles_it() -> None:
    sub = SubTask("x", {"a": ("a1", "a2"), "b": ("b1",)})
    assert path_taken(sub, {"a1": 1}) is None
    assert path_taken(sub, {"a1": 1, "a2": 5, "b1": 3}) == "b"
    assert path_taken(sub, {"a1": 1, "a2": 3, "b1": 3}) == "a"  # a tie: the first listed
    task = _hard()
    reached = set(_by_message_reached(task))
    assert checklist_progress(task, lambda m: m in reached) == (8, 8)


async def test_the_view_counts_the_checklist_for_the_panel_title() -> None:
    task = _hard()
    view = MilestoneView()
    async with Host(view).run_test(size=(80, 60)) as pilot:
        view.set_rows(rows_from_task(task))
        for mid, step in _by_message_reached(task).items():
            view.reach(mid, step)
        await pilot.pause()
        assert (view.done, view.total) == (8, 8)


def _app(tmp_path: Path, target: str) -> GuilensApp:
    from guilens.run.plan import plan_run
    from guilens.screens.launch import make_run_screen

    settings = Settings(run_dir=tmp_path / "runs", cache_dir=tmp_path / "cache")
    plan = plan_run(target, agent="oracle", devices=["sim"], out=tmp_path / "runs", settings=settings)
    return GuilensApp(lambda: make_run_screen(plan))


async def _finish(pilot: Any, app: GuilensApp) -> Any:
    await wait_for(pilot, lambda: any(s.__class__.__name__ == "RunScreen" for s in app.screen_stack), what="run screen")
    screen = run_screen(app)
    for _ in range(1200):
        if isinstance(app.screen, AskUserScreen):
            await pilot.press("enter")
        if screen.finished:
            break
        await pilot.pause(0.05)
    assert screen.finished
    await pilot.pause(0.2)
    return screen


async def test_the_run_screen_ticks_the_alternatives_item_live(tmp_path: Path) -> None:
    app = _app(tmp_path, HARD)
    async with app.run_test(size=(200, 60)) as pilot:
        screen = await _finish(pilot, app)
        assert screen.status.outcome == "success"
        assert screen.query_one("#milestones-box").border_title == "milestones 8/8"
        text = str(screen.query_one(MilestoneView).render())
        assert "✓ 8 shared" in text and "taken" in text
        assert "{recipient}" not in text and "A new message to Mom" in text  # texts filled as the checks are
        from guilens.screens.widgets.render import Outcome, render
        from guilens.screens.widgets.trace import TraceEntry

        ends = [e.event for e in screen.query(TraceEntry) if isinstance(e.event, Outcome)]
        assert ends and "milestones 8/8" in render(ends[-1]).plain  # the trace's last line counts the checklist too
        assert ends[-1].episode.milestones_total == 11  # the episode itself: every milestone of every path


async def test_a_task_of_a_multi_day_sequence_shows_its_date_in_the_status(tmp_path: Path) -> None:
    app = _app(tmp_path, "week:mon-rules")
    async with app.run_test(size=(200, 60)) as pilot:
        screen = await _finish(pilot, app)
        assert screen.status.clock.startswith("Mon 23 Nov ")
        assert "Mon 23 Nov" in str(screen.query_one(StatusLine).render())


async def test_a_task_of_a_one_day_scenario_keeps_weekday_and_time(tmp_path: Path) -> None:
    app = _app(tmp_path, "demo")
    async with app.run_test(size=(200, 60)) as pilot:
        screen = await _finish(pilot, app)
        clock = screen.status.clock
        assert len(clock.split()) == 2, clock  # `Mon 09:41`
