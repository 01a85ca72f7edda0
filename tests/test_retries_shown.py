"""Faults the client survived are shown where people read steps, not only kept in the record."""

from __future__ import annotations

from datetime import UTC, datetime

from guilens.episode_model import Retry, Step, Usage
from guilens.headless import step_line

T = datetime(2026, 1, 1, tzinfo=UTC)


def test_a_step_line_says_its_retries_and_repairs() -> None:
    retries = [Retry(kind="api", cause="HTTP 529 overloaded_error: Overloaded", role="agent"),
               Retry(kind="api", cause="HTTP 200 but the body was cut short", role="agent"),
               Retry(kind="repair", cause="no act tool call in the reply", role="agent")]
    step = Step(index=2, started_at=T, ended_at=T, action={"type": "key", "key": "back"},
                usage=Usage(retries=retries))
    line = step_line(step)
    assert "↻ 2 API retries (HTTP 529" in line and "cut short" in line
    assert "1 repair (no act tool call" in line
    plain = Step(index=2, started_at=T, ended_at=T, action={"type": "key", "key": "back"})
    assert "↻" not in step_line(plain)
