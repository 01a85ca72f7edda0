"""`guilens export RUN --format memgui`: MemGUI-Bench's leaderboard JSON, checked against a JSON Schema
(tests/schemas/memgui_leaderboard.json) and against guilens' own metrics, on real oracle runs of a few
built-in memory tasks judged by rules: one that succeeds at pass@1, one that times out in all 3 attempts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from export_formats_helpers import TASKS, judged_run
from typer.testing import CliRunner

from guilens.cli import app
from guilens.judge import metrics as m
from guilens.judge.report import load_report

SCHEMA = json.loads((Path(__file__).parent / "schemas" / "memgui_leaderboard.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("memgui")
    return {"pass1": judged_run(tmp, "ok"), "fail3": judged_run(tmp, "fail", attempts=3, max_steps=4)}


def _entry(run_dir: Path, out: Path) -> dict[str, Any]:
    result = CliRunner().invoke(app, ["export", str(run_dir), "--format", "memgui", "--out", str(out)])
    assert result.exit_code == 0, (result.output, result.exception)
    data: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return data


def _nulls(value: Any, path: str = "") -> list[str]:
    if value is None:
        return [path]
    if isinstance(value, dict):
        return [p for k, v in value.items() if k != "guilens" for p in _nulls(v, f"{path}.{k}" if path else k)]
    return []


def test_the_schema_is_a_valid_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("which", ["pass1", "fail3"])
def test_the_entry_validates_and_every_null_says_why(runs: dict[str, Path], tmp_path: Path, which: str) -> None:
    entry = _entry(runs[which], tmp_path / "agent.json")
    jsonschema.Draft202012Validator(SCHEMA).validate(entry)
    assert sorted(_nulls(entry)) == sorted(entry["guilens"]["null_because"])


def test_a_successful_pass1_run(runs: dict[str, Path], tmp_path: Path) -> None:
    entry = _entry(runs["pass1"], tmp_path / "agent.json")
    g = entry["guilens"]
    assert (g["tasks"], g["episodes"], g["memory_tasks"], g["standard_tasks"], g["attempts_per_task"]) == (
        len(TASKS), len(TASKS), 4, 1, 1)
    assert entry["avg"] == {"p1": 100.0, "p3": None}  # one attempt a task: pass@3 is not known, not 100
    assert [entry["crossApp"][f"app{n}"]["p1"] for n in (1, 2, 3, 4)] == [100.0] * 4
    assert entry["crossApp"]["app3"]["irr"] == 100.0  # a success's IRR is 100 by the analyzer's rule 1
    assert entry["difficulty"]["hard"] == {"p1": None, "p3": None, "irr": None}  # no hard task in the run
    short = entry["metrics"]["shortTerm"]
    assert short["irr"] == 100.0 and short["mtpr"] == 1.0 and short["stepRatio"] is not None
    assert all(v is None for v in entry["metrics"]["longTerm"].values())
    assert entry["name"] == "oracle" and entry["backbone"] is None
    assert "pass@3" in g["null_because"]["avg.p3"]


def test_a_run_that_fails_every_attempt(runs: dict[str, Path], tmp_path: Path) -> None:
    entry = _entry(runs["fail3"], tmp_path / "agent.json")
    assert entry["guilens"]["attempts_per_task"] == 3 and entry["guilens"]["episodes"] == 3 * len(TASKS)
    assert entry["avg"] == {"p1": 0.0, "p3": 0.0}
    assert entry["metrics"]["longTerm"]["frr"] == 0.0  # every task failed attempt 1 and none recovered
    assert entry["metrics"]["shortTerm"]["mtpr"] is None  # SR 0 on standard tasks: no ratio
    assert entry["metrics"]["shortTerm"]["irr"] is None  # failures the IRR analyzer never saw: unknown, not 0
    assert "unanalysed" in entry["guilens"]["null_because"]["metrics.shortTerm.irr"]


@pytest.mark.parametrize("which", ["pass1", "fail3"])
def test_the_numbers_are_guilens_own_metrics(runs: dict[str, Path], tmp_path: Path, which: str) -> None:
    entry = _entry(runs[which], tmp_path / "agent.json")
    records = load_report(runs[which]).records

    def pct(metric: m.Metric) -> float | None:
        return None if metric.value is None else round(metric.value * 100, 1)

    assert entry["avg"]["p1"] == pct(m.success_rate(records))
    tps = m.time_per_step(records, 1).value
    assert entry["metrics"]["shortTerm"]["timePerStep"] == (None if tps is None else round(tps, 1))
    for n in (1, 2, 3, 4):
        group = [r for r in records if r.apps == n]
        assert entry["crossApp"][f"app{n}"]["p1"] == pct(m.success_rate(group))
    easy = [r for r in records if r.difficulty == 1]
    assert entry["difficulty"]["easy"]["p1"] == pct(m.success_rate(easy))
    if entry["guilens"]["attempts_per_task"] >= 3:
        assert entry["avg"]["p3"] == pct(m.pass_at_k(records, 3))
