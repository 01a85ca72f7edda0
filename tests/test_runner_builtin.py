"""The oracle agent with the oracle user solves every built-in task at every level, through the runner."""

from __future__ import annotations

from pathlib import Path

import pytest

from guilens.scenarios.loader import load_builtin
from tests.runner_helpers import SMALL, run

CASES = [(s.id, level) for s in load_builtin() if s.device == "sim" for level in s.levels]


@pytest.mark.slow
@pytest.mark.parametrize(("scenario", "level"), CASES)
def test_oracle_solves_every_builtin_task(scenario: str, level: str, tmp_path: Path):
    result = run(scenario, tmp_path / "runs", agent="oracle", user="oracle", level=level, screen=SMALL)
    failed = {t: (r.status, r.attempts[-1].error or getattr(r.attempts[-1], "outcome_reason", ""))
              for t, r in result.tasks.items() if r.status != "success"}
    assert not failed, failed
    for r in result.tasks.values():
        ep = r.attempts[0]
        assert len(ep.milestones) == ep.milestones_total
        assert ep.steps <= ep.budget


def test_demo_headless(tmp_path: Path, monkeypatch):
    from typer.testing import CliRunner

    from guilens.cli import app

    monkeypatch.setenv("GUILENS_CONFIG_FILE", str(tmp_path / "none.toml"))
    result = CliRunner().invoke(app, ["demo", "--headless", "--out", str(tmp_path / "runs")])
    assert result.exit_code == 0, result.output
    assert "■ demo:headphones-to-mom success" in result.stdout and "L2" in result.stdout
    (attempt,) = (tmp_path / "runs").glob("*/headphones-to-mom/attempt-1")
    assert (attempt / "episode.json").is_file() and (attempt / "screens" / "0000.png").is_file()
