"""The step loop on the real sim: layout on disk, asks, errors, budgets, observers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from guilens.episode import EpisodeReader
from tests.runner_helpers import Events, read_steps, run, write_scenarios


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    return write_scenarios(tmp_path)


@pytest.mark.parametrize("level", ["L0", "L1", "L2"])
def test_oracle_solves_the_pack_at_every_level(files, tmp_path, level):
    result = run(files[0], tmp_path / "runs", level=level)
    assert {t: r.status for t, r in result.tasks.items()} == {"grocery": "success", "budget": "success"}
    grocery = result.tasks["grocery"].attempts[0]
    assert grocery.user_turns == (0 if level == "L0" else 1)
    assert grocery.milestones_total == 2 and [m.id for m in grocery.milestones] == ["editor", "saved"]
    assert result.tasks["budget"].attempts[0].final_answer == "42 dollars"


def test_run_directory_layout(files, tmp_path):
    result = run(files[0], tmp_path / "runs", level="L2")
    rd = result.run_dir
    assert rd.parent == tmp_path / "runs"
    meta = json.loads((rd / "run.json").read_text())
    assert meta["status"] == "completed" and meta["agent"] == "oracle" and meta["level"] == "L2" and meta["k"] == 1
    assert meta["devices"] == ["sim"] and meta["ended_at"] and meta["results"]["grocery"]["status"] == "success"
    attempt = rd / "grocery" / "attempt-1"
    ep = json.loads((attempt / "episode.json").read_text())
    steps = read_steps(attempt)
    assert ep["steps"] == len(steps) == 8
    for i, s in enumerate(steps):
        assert s["index"] == i
        assert (attempt / s["screen"]).is_file() and s["screen"] == f"screens/{i:04d}.png"
        assert (attempt / s["ui"]).read_text().startswith("<?xml")
        for key in ("started_at", "ended_at", "app", "clock", "thought", "action", "action_description",
                    "action_result", "memory", "ask", "milestones", "usage", "by", "error"):
            assert key in s
    # the final screen, one more than the steps, and the final state for the rules judge
    assert ep["final_screen"] == "screens/0008.png" and (attempt / "screens/0008.png").is_file()
    state = json.loads((attempt / ep["final_state"]).read_text())
    assert any(n["title"] == "Groceries" for n in state["apps"]["notes"]["notes"])
    ask = steps[2]["ask"]
    assert ask == {"question": "What should the note say?", "answer": "milk", "answered_by": "oracle",
                   "suggested": None, "usage": None, "llm_calls": []}  # an oracle user calls no model
    assert steps[6]["milestones"] == ["saved"]
    # element targets are resolved to pixels and recorded with what they meant
    assert steps[1]["action"]["type"] == "tap" and "x" in steps[1]["action"] and "target" not in steps[1]["action"]
    assert steps[1]["target"]["selector"] == "New note"
    # STM: what the previous action did; LTM from the reference's remember step
    assert steps[3]["memory"]["stm"][-1].startswith("ask 'What should the note say?'")
    budget_steps = read_steps(rd / "budget" / "attempt-1")
    assert budget_steps[-1]["memory"]["ltm"] == [{"app": "notes", "content": "Lunch money is 42 dollars a week", "step": 2}]
    ltm = json.loads((rd / "ltm" / "budget.json").read_text())
    assert ltm["ltm"][0]["content"].startswith("Lunch money")
    reader = EpisodeReader(attempt)
    assert reader.episode.status == "success" and len(reader) == 8 and reader.screen(8) is not None


def test_invalid_actions_are_error_steps_the_agent_is_told_of(files, tmp_path):
    result = run(files[0] , tmp_path / "runs", agent="tests.runner_helpers:BadActionAgent")
    ep = result.tasks["grocery"].attempts[0]
    assert ep.status == "success"
    steps = read_steps(result.run_dir / "grocery" / "attempt-1")
    assert "unrecognised action" in steps[0]["error"] and steps[0]["action"] is None
    assert steps[0]["action_raw"] == "launch the rockets"
    assert "element 999 does not exist" in steps[1]["error"]
    assert steps[2]["error"] is None
    assert ep.steps == 9  # two error steps cost two steps of the budget


def test_budget_runs_out_as_timeout(files, tmp_path):
    result = run(files[0], tmp_path / "runs", max_steps=3)
    ep = result.tasks["grocery"].attempts[0]
    assert ep.status == "timeout" and ep.steps == 3 and ep.budget == 3
    assert ep.outcome_reason.startswith("milestones not reached")


def test_default_budget_is_the_task_budget(files, tmp_path):
    result = run(files[0], tmp_path / "runs")
    assert result.tasks["grocery"].attempts[0].budget == 10  # floor(1.4 x 7 + 1)


def test_observers_hear_the_run_in_order(files, tmp_path):
    ev = Events()
    result = run(f"{files[0]}:budget", tmp_path / "runs", observers=[ev])
    names = ev.names()
    assert names[0] == "on_run_started" and names[-1] == "on_run_finished"
    assert ev.of("on_devices") == [(["sim"],)]
    # the phone is shown as soon as it is seen: before the first step, and after each action
    assert names.index("on_attempt_started") < names.index("on_screen") < names.index("on_step_started")
    assert names.index("on_step_started") < names.index("on_step") < names.index("on_attempt_finished")
    assert [a[1].index for a in ev.of("on_step")] == [0, 1, 2]
    assert ev.of("on_milestone")[0][1:] == ("opened", 0)
    assert ev.of("on_task_finished") == [("budget", "success")]
    assert result.tasks["budget"].status == "success"


def test_answer_that_misses_the_expectation_fails(files, tmp_path):
    bad = files[0].read_text().replace('- answer: "42 dollars"', '- answer: "41 dollars"')
    path = tmp_path / "bad.yaml"
    path.write_text(bad)
    result = run(f"{path}:budget", tmp_path / "runs")
    ep = result.tasks["budget"].attempts[0]
    assert ep.status == "failure" and ep.final_answer == "41 dollars"
    assert "no number within" in ep.outcome_reason and ep.decided_by == "rules"


def test_batch_spreads_tasks_over_devices(files, tmp_path):
    ev = Events()
    result = run(files[0], tmp_path / "runs", devices=["sim", "sim"], observers=[ev])
    assert {t: r.status for t, r in result.tasks.items()} == {"grocery": "success", "budget": "success"}
    assert {a[0].task for a in ev.of("on_attempt_started")} == {"grocery", "budget"}
    assert ev.threads["on_attempt_started"] == {"run-1-sim", "run-2-sim"}  # one task per device, at once
    # each device runs under its own label, recorded as the episode's device
    assert ev.of("on_devices") == [(["sim-1", "sim-2"],)]
    assert sorted(a[0].device for a in ev.of("on_attempt_started")) == ["sim-1", "sim-2"]
    for task in ("grocery", "budget"):
        device = json.loads((result.run_dir / task / "attempt-1" / "episode.json").read_text())["device"]
        assert device in ("sim-1", "sim-2")
    meta = json.loads((result.run_dir / "run.json").read_text())
    assert meta["devices"] == ["sim", "sim"] and set(meta["results"]) == {"grocery", "budget"}


def test_sequence_needs_one_device(files, tmp_path):
    from guilens.run.plan import PlanError

    with pytest.raises(PlanError, match="is a sequence .* give one --device"):
        run(files[1], tmp_path / "runs", devices=["sim", "sim"])
