"""The replay list's row for a step (`replay_steps.step_row`): its text and where each style falls."""

from __future__ import annotations

from datetime import datetime

from textual.content import Span

from guilens.episode import Step
from guilens.screens.replay_steps import step_row


def test_a_row_has_the_number_who_acted_the_action_and_the_marks_each_styled() -> None:
    t = datetime(2026, 11, 21, 9, 0)
    step = Step(index=11, started_at=t, ended_at=t, app="com.guilens.notes", by="human",
                action={"type": "tap", "x": 540, "y": 637}, milestones=["saved"], error="no such element")
    row = step_row(step, {11: ["final answer"]})
    assert row.plain == " 12 H tap 540 637 ★ ✗ ◆"
    assert list(row.spans) == [Span(0, 3, "$text-muted"), Span(4, 5, "$warning"), Span(17, 23, "$accent")]
    agent = step_row(step.model_copy(update={"by": "agent", "milestones": [], "error": None}), {})
    assert agent.plain == " 12 tap 540 637" and list(agent.spans) == [Span(0, 3, "$text-muted")]
