"""The oracle agent with the oracle user solves every built-in task at every level, through the runner."""

from __future__ import annotations

from pathlib import Path

import pytest

from guilens.agents.base import AgentContext
from guilens.agents.oracle import OracleAgent
from guilens.scenarios.loader import load_builtin
from guilens.scenarios.model import TEMPLATE
from tests.runner_helpers import SMALL, run

CASES = [(s.id, level) for s in load_builtin() if s.device == "sim" for level in s.levels]


class SeeingOracle(OracleAgent):
    """The oracle, keeping the instruction each attempt gave it."""

    told: dict[str, str] = {}

    def reset(self, context: AgentContext) -> None:
        SeeingOracle.told[context.task.id] = context.instruction
        super().reset(context)


@pytest.mark.slow
@pytest.mark.parametrize(("scenario", "level"), CASES)
def test_oracle_solves_every_builtin_task(scenario: str, level: str, tmp_path: Path):
    SeeingOracle.told = {}
    result = run(scenario, tmp_path / "runs", agent=SeeingOracle, user="oracle", level=level, screen=SMALL)
    failed = {t: (r.status, r.attempts[-1].error or getattr(r.attempts[-1], "outcome_reason", ""))
              for t, r in result.tasks.items() if r.status != "success"}
    assert not failed, failed
    scenario_tasks = {t.id: t for s in load_builtin() if s.id == scenario for t in s.tasks}
    for r in result.tasks.values():
        ep = r.attempts[0]
        # every milestone, but those of the paths an alternatives node did not take
        hit = {h.id for h in ep.milestones}
        task = scenario_tasks.get(r.task)
        untaken = sum(len(p.milestones) for a in (task.alternatives() if task else [])
                      for p in a.any_of if not {m.id for m in p.milestones} <= hit)
        assert len(ep.milestones) == ep.milestones_total - untaken
        assert ep.steps <= ep.budget
        # what the agent was told and what the episode says it was told: no `{slot}` left (L0 states the slots)
        assert not TEMPLATE.search(ep.instruction), (r.task, ep.instruction)
        assert SeeingOracle.told[r.task] == ep.instruction


def test_demo_headless(tmp_path: Path, monkeypatch):
    from typer.testing import CliRunner

    from guilens.cli import app

    monkeypatch.setenv("GUILENS_CONFIG_FILE", str(tmp_path / "none.toml"))
    result = CliRunner().invoke(app, ["demo", "--headless", "--out", str(tmp_path / "runs")])
    assert result.exit_code == 0, result.output
    assert "■ demo:headphones-to-mom success" in result.stdout and "L2" in result.stdout
    (attempt,) = (tmp_path / "runs").glob("*/headphones-to-mom/attempt-1")
    assert (attempt / "episode.json").is_file() and (attempt / "screens" / "0000.png").is_file()
