"""The headless summary, its task header and `guilens judge`'s counts for the new scenario features:
milestones counted as AndroidLens' ATP counts them (an alternatives item once, the path not taken
left out), and a task of a multi-day sequence headed with its day and date."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from pathlib import Path

from typer.testing import CliRunner

from guilens.cli import app
from guilens.config import Settings
from guilens.headless import HeadlessObserver, day_text, milestones_text
from guilens.run.engine import Runner
from guilens.run.plan import plan_run
from guilens.scenarios.loader import find_task, load_builtin


def _run(tmp_path: Path, target: str) -> tuple[str, Path]:
    out = io.StringIO()
    settings = Settings(run_dir=tmp_path / "runs", cache_dir=tmp_path / "cache")
    plan = plan_run(target, agent="oracle", devices=["sim"], out=tmp_path / "runs", settings=settings)
    runner = Runner(plan, observers=[HeadlessObserver(out, color=False)])
    result = runner.run()
    assert [e.status for e in result.episodes][-1] == "success"
    assert runner.run_dir is not None
    return out.getvalue(), runner.run_dir


def test_the_summary_counts_an_alternatives_item_once(tmp_path: Path) -> None:
    text, _ = _run(tmp_path, "hard:shoe-shortlist-share")
    done = next(line for line in text.splitlines() if line.startswith("■"))
    assert "milestones 8/8" in done, done  # flat it was 9/11: every path's milestones, the unused note path too


def test_judge_prints_the_checklist_count(tmp_path: Path) -> None:
    _, run_dir = _run(tmp_path, "hard:shoe-shortlist-share")
    res = CliRunner().invoke(app, ["judge", str(run_dir), "--rules-only"])
    assert res.exit_code == 0, res.output
    assert "success" in res.output and "milestones 8/8" in res.output, res.output


def test_judge_counts_flat_when_the_task_has_no_alternatives(tmp_path: Path) -> None:
    _, run_dir = _run(tmp_path, "demo:headphones-to-mom")
    res = CliRunner().invoke(app, ["judge", str(run_dir), "--rules-only"])
    task = find_task("demo:headphones-to-mom")[1]
    assert task is not None
    n = len(task.all_milestones())
    assert res.exit_code == 0 and f"milestones {n}/{n}" in res.output, res.output


def test_the_header_of_a_multi_day_task_names_its_day_and_date(tmp_path: Path) -> None:
    text, _ = _run(tmp_path, "week:mon-rules")
    header = next(line for line in text.splitlines() if line.startswith("▶"))
    assert header.endswith("· day 1 of 5 · Mon 23 Nov 08:00"), header


def test_day_text_counts_the_days_of_the_week_and_only_for_dated_tasks() -> None:
    week = next(s for s in load_builtin() if s.id == "week")
    last = week.tasks[-1]
    assert day_text(week, last).startswith("day 5 of 5 · ")
    assert day_text(week, last).split(" · ")[1].startswith(f"{week.when(last):%a %d %b}")
    day = next(s for s in load_builtin() if s.id == "day")
    assert day_text(day, day.tasks[0]) == ""  # one day: weekday and time say it all


def test_milestones_text_without_the_untaken_path() -> None:
    from guilens.episode_model import Episode, MilestoneHit, Timings

    task = find_task("hard:shoe-shortlist-share")[1]
    assert task is not None
    hits = [MilestoneHit(id=m, step=0) for m in ("chat-open",)]
    ep = Episode(task=task.id, milestones=hits, milestones_total=11, timings=Timings(started_at=datetime(2026, 1, 1, tzinfo=UTC)))
    assert milestones_text(task, ep) == "milestones 0/8"
