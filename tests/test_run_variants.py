"""`guilens run PACK --variants N --seed S`: plans, run directories, and judging a variant from the run alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from guilens.cli import app
from guilens.run.plan import PlanError, plan_run

pytest.importorskip("guilens.device.sim.device")


@pytest.fixture
def cli(tmp_path, monkeypatch) -> CliRunner:
    monkeypatch.setenv("GUILENS_CONFIG_FILE", str(tmp_path / "none.toml"))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    return CliRunner()


def _err(result) -> str:
    return (result.stderr if result.stderr_bytes is not None else "") or result.output


def test_the_plan_draws_variants_through_the_run_options(tmp_path) -> None:
    plan = plan_run("variants", options={"variants": 3}, seed=4, out=tmp_path, check_agent=False)
    assert len(plan.tasks) == 30 and plan.tasks[0].id == "two-prices-note~s4.0"
    assert plan.scenario.tasks == plan.tasks  # the scenario copied into the run holds every variant
    plan = plan_run("variants:open-cheaper", options={"variants": 2}, seed=4, out=tmp_path, check_agent=False)
    assert [t.id for t in plan.tasks] == ["open-cheaper~s4.0", "open-cheaper~s4.1"]
    one = plan_run("variants:open-cheaper~s4.1", out=tmp_path, check_agent=False)
    assert [t.id for t in one.tasks] == ["open-cheaper~s4.1"] and one.tasks[0] == plan.tasks[1]
    default = plan_run("variants", out=tmp_path, check_agent=False)
    assert [t.id for t in default.tasks][:2] == ["two-prices-note~s0.0", "budget-prices-note~s0.0"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["variants", "--variants", "0"], "--variants 0: Input should be greater than or equal to 1"),
        (["variants", "--variants", "2", "--seed", "-4"], "--seed -4: task templates are drawn with a seed from 0"),
        (["demo", "--variants", "2"], "--variants 2: 'demo' has no task templates"),
    ],
)
def test_bad_variant_options_are_one_line_errors(cli, tmp_path, args, message) -> None:
    result = cli.invoke(app, ["run", *args, "--headless", "--out", str(tmp_path / "runs")])
    assert result.exit_code == 2, result.output
    err = _err(result)
    assert err.startswith("error: ") and message in err and "Traceback" not in err
    assert not (tmp_path / "runs").exists()


def test_plan_error_names_a_bad_draw(tmp_path) -> None:
    text = (Path(__file__).parent.parent / "guilens/scenarios/builtin/variants.yaml").read_text()
    path = tmp_path / "v.yaml"
    path.write_text(text.replace("second: {type: product, distinct_from: [first], same: {category: first}}",
                                 "second: {type: product, distinct_from: [first], same: {id: first}}"))
    with pytest.raises(PlanError, match="parameter 'second': no draw in 200 tries"):
        plan_run(str(path), out=tmp_path, check_agent=False)


def _run(cli: CliRunner, out: Path, *args: str) -> Path:
    result = cli.invoke(app, ["run", "variants:fact-to-contact", "--variants", "3", "--seed", "9", "--headless",
                              "--out", str(out), *args])
    runs = [p for p in out.iterdir() if p.is_dir()]
    assert len(runs) == 1, result.output
    return runs[0]


def test_oracle_solves_variants_and_the_run_alone_judges_them(cli, tmp_path, monkeypatch) -> None:
    run = _run(cli, tmp_path / "runs", "--agent", "oracle")
    record = json.loads((run / "run.json").read_text())
    assert record["variants"] == {"count": 3, "seed": 9, "templates": ["fact-to-contact"]}
    assert record["tasks"] == [f"fact-to-contact~s9.{i}" for i in range(3)]
    live = {k: v["status"] for k, v in record["results"].items()}
    assert live == {f"fact-to-contact~s9.{i}": "success" for i in range(3)}

    # The judge reads each variant's filled task from the run's scenario.json: no pack, no draw.
    import guilens.scenarios.loader as loader
    import guilens.scenarios.params as params

    def gone(*_a, **_k):
        raise AssertionError("the judge went back to the pack")

    monkeypatch.setattr(loader, "find_task", gone)
    monkeypatch.setattr(params, "draw_values", gone)
    from guilens.episode import EpisodeReader
    from guilens.judge.inputs import resolve_task

    for i in range(3):
        reader = EpisodeReader(run / f"fact-to-contact~s9.{i}" / "attempt-1")
        _, task, values, origin = resolve_task(reader)
        assert origin.endswith("scenario.json") and task.id == f"fact-to-contact~s9.{i}"
        phone = task.meta["params"]["friend_phone"]
        sent = task.milestone("sent").check
        assert sent.where == {"number": phone} and values["recipient"] == task.meta["params"]["friend"]
    result = cli.invoke(app, ["judge", str(run), "--rules-only"])
    assert result.exit_code == 0, result.output
    verdicts = {p.parent.parent.name: json.loads(p.read_text())["decision"] for p in run.glob("*/attempt-1/verdict.json")}
    assert verdicts == live
    result = cli.invoke(app, ["report", str(run), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["metrics"]["sr"]["value"] == 1.0
    assert {e["task"]: e["status"] for e in report["episodes"]} == live
    assert all(e["outcome_source"] == "judge:rules" for e in report["episodes"])


def test_the_random_agent_solves_almost_none(cli, tmp_path) -> None:
    result = cli.invoke(app, ["run", "variants", "--variants", "1", "--seed", "2", "--agent", "random", "--headless",
                              "--out", str(tmp_path / "runs")])
    run = next((tmp_path / "runs").iterdir())
    results = json.loads((run / "run.json").read_text())["results"]
    assert len(results) == 10, result.output
    assert sum(r["status"] == "success" for r in results.values()) <= 1
