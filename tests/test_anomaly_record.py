"""Anomalies on the record: which step a step line says saw one appear or resolved it, and how the
replay's step detail, its step list, the HTML report and `guilens schema step` show it."""

from __future__ import annotations

import json
from datetime import datetime
from types import SimpleNamespace
from typing import Any

from typer.testing import CliRunner

from guilens.episode import Step
from guilens.episode_model import StepAnomaly
from guilens.run.anomaly_log import AnomalyNotes, anomaly_seed


def _obs(*shown: dict[str, Any]) -> Any:
    return SimpleNamespace(extra={"screen": "x", "anomalies": list(shown)} if shown else {"screen": "x"})


def _a(i: int, kind: str, resolved: str | None = None) -> dict[str, Any]:
    return {"index": i, "kind": kind, "app": "notes", "source": "rate", "resolved": resolved}


def test_an_anomaly_is_noted_on_the_step_that_saw_it_and_on_the_step_that_cleared_it() -> None:
    notes = AnomalyNotes()
    assert notes.note(_obs(), _obs()) == []
    # it appears after step 0's action: step 0 records nothing, step 1 sees it and clears it
    assert notes.note(_obs(), _obs(_a(0, "ad"))) == []
    step1 = notes.note(_obs(_a(0, "ad")), _obs(_a(0, "ad", "closed")))
    assert [(a.kind, a.event, a.how) for a in step1] == [("ad", "appeared", None), ("ad", "resolved", "closed")]
    # one that stays over several steps (an agent tapping beside it) appears once, is resolved once
    assert [a.event for a in notes.note(_obs(_a(0, "ad", "closed"), _a(1, "crash")),
                                        _obs(_a(0, "ad", "closed"), _a(1, "crash")))] == ["appeared"]
    assert notes.note(_obs(_a(0, "ad", "closed"), _a(1, "crash")), _obs(_a(0, "ad", "closed"), _a(1, "crash"))) == []
    last = notes.note(_obs(_a(1, "crash")), _obs(_a(1, "crash", "closed_app")))
    assert [(a.kind, a.event, a.how) for a in last] == [("crash", "resolved", "closed_app")]


def test_the_draw_seed_is_the_runs_seed_with_task_and_attempt() -> None:
    assert anomaly_seed(None, "t", 2) == "t:2" and anomaly_seed(7, "t", 2) == "7:t:2"


def _step() -> Step:
    t = datetime(2026, 11, 21, 9, 0)
    return Step(index=3, started_at=t, ended_at=t, app="com.guilens.notes", action={"type": "tap", "x": 1, "y": 2},
                action_description="clear the ad: tap '×'",
                anomalies=[StepAnomaly(kind="ad", event="appeared", app="notes", source="setup"),
                           StepAnomaly(kind="ad", event="resolved", app="notes", source="setup", how="closed")])


def test_the_replay_and_the_html_report_show_it() -> None:
    from guilens.judge.html_trajectory import step_card
    from guilens.screens.replay_steps import step_row
    from guilens.screens.widgets.render import render_step

    step = _step()
    detail = render_step(step).plain
    assert "⚠ ad anomaly appeared over notes (setup)" in detail and "⚠ ad anomaly resolved: closed" in detail
    assert "⚠" in step_row(step, {}).plain
    html = step_card("e1", step, None, {}, None)
    assert "anomaly: ad anomaly appeared over notes (setup)" in html and "anomaly: ad anomaly resolved: closed" in html
    plain = _step().model_copy(update={"anomalies": []})
    assert "⚠" not in render_step(plain).plain and "anomaly:" not in step_card("e1", plain, None, {}, None)


def test_the_step_schema_has_the_field() -> None:
    from guilens.cli import app

    out = CliRunner().invoke(app, ["schema", "step"])
    assert out.exit_code == 0
    schema = json.loads(out.stdout)
    assert schema["properties"]["anomalies"]["items"] == {"$ref": "#/$defs/StepAnomaly"}
    assert schema["$defs"]["StepAnomaly"]["properties"]["event"]["enum"] == ["appeared", "resolved"]
