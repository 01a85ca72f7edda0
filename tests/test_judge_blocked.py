"""Blocked tasks of a day are failures (ScenDroid's failure policy), shown as blocked.

A real `day` run on the simulated phone: the oracle plays every task, except
that it gives up at once on `order-table`. Its dependents `log-table` and
`tell-mom-table` are then recorded blocked (0 steps). The phone keeps its state
(ScenDroid does not repair it), so `mom-gift`, whose order goes wrong without
the morning's, fails too and blocks `log-gift`; `day-spending` needs both
logs. The judge decides each blocked task a failure naming what blocked it; the
metrics count them (hand counts below); the report shows the word.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from guilens.judge.pipeline import judge_path
from guilens.judge.report import load_report, row_json
from tests.judge_helpers import OracleWrapper, guilens_cli, unjudged_copy

GIVE_UP = "order-table"
BLOCKED = {  # task: what blocked it, as the verdict must say
    "log-table": "failed: blocked by order-table (failure)",
    "tell-mom-table": "failed: blocked by order-table (failure)",
    "log-gift": "failed: blocked by mom-gift (failure)",
    "day-spending": "failed: blocked by log-table (blocked), log-gift (blocked)",
}


class GivesUp(OracleWrapper):
    """The oracle, except on one task, where it claims success before doing anything."""

    name = "gives-up"

    def step(self, inp: Any) -> Any:
        from guilens.actions import Finish
        from guilens.agents.base import AgentStep

        if self.task == GIVE_UP:
            return AgentStep(action=Finish(status="success"), thought="Done, I think.", description="finish")
        return self.inner.step(inp)

    def lessons(self, episode: Any, steps: list[Any]) -> list[str]:
        return []


@pytest.fixture(scope="module")
def day(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from guilens.config import load_settings
    from guilens.run.engine import Runner
    from guilens.run.plan import plan_run

    settings = load_settings(screen_width=540, screen_height=1200)
    plan = plan_run("day", agent=lambda settings=None: GivesUp(settings), out=tmp_path_factory.mktemp("day"),
                    settings=settings, check_agent=False, seed=7)
    run = Runner(plan).run().run_dir
    status = {p.parent.parent.name: json.loads(p.read_text())["status"] for p in run.rglob("episode.json")}
    assert status[GIVE_UP] == status["mom-gift"] == "failure"
    assert {t for t, s in status.items() if s == "blocked"} == set(BLOCKED)
    return run


def _no_model(model: str) -> Any:
    raise AssertionError(f"no model may be asked about a blocked task ({model})")


def test_a_blocked_task_is_decided_failed_by_rules_naming_what_blocked_it(day: Path) -> None:
    verdicts = judge_path(day, stages=["rules", "irr"], client_factory=_no_model, llm=False)
    judged = {d.parent.name: v for d, v in verdicts}
    for task, reason in BLOCKED.items():
        v = judged[task]
        assert (v.decision, v.decided_by, v.reason) == ("failure", "rules", reason)
        rules = next(s for s in v.stages if s.stage == "rules")
        assert rules.details["blocked"] is True
        assert all(m.reached is False for m in v.milestones) and v.progress == 0
    assert judged["log-table"].stages[0].details["blocked_by"] == [{"task": "order-table", "outcome": "failure"}]
    # The memory tasks among them get IRR 0 (an early failure), method "blocked"; no model was asked.
    irr = next(s for s in judged["tell-mom-table"].stages if s.stage == "irr")
    assert (judged["tell-mom-table"].irr, irr.details["method"]) == (0.0, "blocked")


def test_the_metrics_count_blocked_tasks_as_failures(day: Path) -> None:
    judge_path(day, stages=["rules", "irr"], client_factory=_no_model, llm=False)
    report = load_report(day)
    m = report.metrics()
    assert all(r.user_turns == 0 for r in report.records)  # the oracle asks nothing at L0: CAS = SR
    # Hand count: 10 tasks; order-table, mom-gift and the 4 blocked fail; house-rules, run-alarm,
    # dinner-event and drive-time succeed: 4 of 10.
    assert (m["sr"]["value"], m["sr"]["n"], m["undecided"]) == (pytest.approx(0.4), 10, 0)
    assert m["pass_at_k"]["1"]["value"] == pytest.approx(0.4) and m["cas"]["value"] == pytest.approx(0.4)
    # Memory tasks: log-table, tell-mom-table, mom-gift, log-gift, dinner-event, day-spending: 1 of 6.
    assert m["by_memory"]["memory"]["tasks"] == 6 and m["by_memory"]["memory"]["sr"]["value"] == pytest.approx(1 / 6, abs=1e-6)
    assert m["by_memory"]["standard"]["sr"]["value"] == pytest.approx(3 / 4, abs=1e-6)
    # IRR: dinner-event 100%, mom-gift 0% (an implicit decision gone wrong, by rules), 4 blocked at 0%.
    assert m["irr"]["value"] == pytest.approx(1 / 6, abs=1e-6) and m["irr"]["n"] == 6
    assert m["irr"]["note"] == "memory tasks; 1 succeeded, 1 by rules, 4 blocked (0)"
    rows = {r.record.task: row_json(r) for r in report.rows}
    for task in BLOCKED:
        assert (rows[task]["success"], rows[task]["status"], rows[task]["reason"]) == (False, "blocked", BLOCKED[task])


def test_unjudged_blocked_tasks_count_as_failed_with_irr_0(day: Path, tmp_path: Path) -> None:
    run = unjudged_copy(day, tmp_path)
    rows = {r.record.task: r.record for r in load_report(run).rows}
    assert {t: (rows[t].success, rows[t].irr, rows[t].irr_method) for t in BLOCKED} == dict.fromkeys(
        BLOCKED, (False, 0.0, "blocked"))


def test_guilens_report_shows_the_word_blocked_and_counts_it_failed(day: Path, tmp_path: Path) -> None:
    run = unjudged_copy(day, tmp_path)
    judged = guilens_cli("judge", str(run), "--rules-only", home=tmp_path)
    assert judged.returncode == 0, judged.stderr
    assert "undecided" not in judged.stdout
    out = guilens_cli("report", str(run), home=tmp_path)
    assert out.returncode == 0, out.stderr
    rows = {line.split("│")[1].strip(): line for line in out.stdout.splitlines() if line.count("│") > 5}
    for task in BLOCKED:
        cells = [c.strip() for c in rows[task].split("│")]
        assert cells[3:5] == ["blocked", "rules"] and cells[5] == "0/" + cells[5].split("/")[1]
    assert [c.strip() for c in rows[GIVE_UP].split("│")][3] == "failure"
    sr = next(line for line in out.stdout.splitlines() if "SR (pass@1)" in line)
    assert [c.strip() for c in sr.split("│")][2:4] == ["40.0%", "10"]
