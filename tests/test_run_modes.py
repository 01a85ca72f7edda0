"""ScenDroid's modes: `--ask on|off`, `--max-questions N`, `--context episodic|augmented`, and AS.

The claude agent runs through the real runner and the real anthropic SDK against the loopback API
(tests/fakeapi.py), so what is asserted is what a model would have received: the `act` tool's
schema, the system prompt, the step text.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from guilens.judge.metrics import EpisodeRecord, average_steps, compute
from guilens.run.modes import RunModes
from tests import fakeapi
from tests.calculator_task import SCENARIO
from tests.fakeapi import Request, tool_use
from tests.test_claude_sim import calculator_model

pytest.importorskip("guilens.device.sim.device")
fake_api = fakeapi.fake_api

HEADER = ("You are working in a multi-task scenario where tasks may be related. Pay attention to information "
          "from previous tasks, as it may help with the current task.")


def _act(action: dict[str, Any], description: str = "") -> dict[str, Any]:
    return tool_use("act", {"thought": "", "action_result": "", "action": action,
                            "description": description or action["type"]})


def _steps(run_dir: Path, task: str) -> list[dict[str, Any]]:
    path = run_dir / task / "attempt-1" / "steps.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line]


def _run(tmp_path: Path, target: str, **options: Any) -> Any:
    from guilens.run.engine import Runner
    from guilens.run.plan import plan_run

    plan = plan_run(target, agent="claude", devices=["sim"], user="oracle", out=tmp_path / "runs",
                    model="claude-sonnet-4-6", options=options)
    return Runner(plan).run()


def _calc(tmp_path: Path) -> str:
    path = tmp_path / "calc.yaml"
    path.write_text(SCENARIO)
    return str(path)


def _act_action_schema(req: Request) -> dict[str, Any]:
    (act,) = [t for t in req.get("tools") or [] if t.get("name") == "act"]
    schema: dict[str, Any] = act["input_schema"]["properties"]["action"]
    return schema


# -- --ask off -------------------------------------------------------------------------------------
def test_ask_off_leaves_ask_user_out_and_refuses_one_emitted_anyway(fake_api, tmp_path):
    def model(req: Request) -> dict[str, Any]:
        if len(fake_api.served) == 0:  # the model asks although it was not offered the action
            return _act({"type": "ask_user", "question": "Which numbers?"})
        return calculator_model(req)

    fake_api.handler = model
    result = _run(tmp_path, _calc(tmp_path), ask="off")

    (ep,) = result.episodes
    assert ep.status == "success" and ep.final_answer == "42"
    for req in fake_api.served:  # what the model was offered and told, every step
        action = _act_action_schema(req)
        assert "ask_user" not in action["properties"]["type"]["enum"]
        assert "question" not in action["properties"] and "ask_user" not in action["description"]
        assert "tap" in action["properties"]["type"]["enum"]
        assert "ask_user" not in req.system_text()
    first, second = _steps(result.run_dir, "add")[:2]
    assert first["action"]["type"] == "ask_user" and first["ask"] is None  # never reached the user
    assert first["error"] == "ask_user is off in this run (--ask off)"
    assert "REJECTED, not performed: ask_user is off in this run (--ask off)" in fake_api.served[1].last_user_text()
    assert second["error"] is None and ep.user_turns == 0
    run = json.loads((result.run_dir / "run.json").read_text())
    assert (run["ask"], run["max_questions"], run["context"]) == ("off", None, "episodic")
    fake_api.assert_clean()


def test_ask_on_offers_ask_user_and_records_the_default_modes(fake_api, tmp_path):
    fake_api.handler = calculator_model
    result = _run(tmp_path, _calc(tmp_path))
    action = _act_action_schema(fake_api.served[0])
    assert "ask_user" in action["properties"]["type"]["enum"] and "question" in action["properties"]
    assert "`ask_user`" in fake_api.served[0].system_text()
    assert "Questions to the user" not in fake_api.served[0].last_user_text()  # no budget, nothing said
    run = json.loads((result.run_dir / "run.json").read_text())
    assert (run["ask"], run["max_questions"], run["context"]) == ("on", None, "episodic")


# -- --max-questions -------------------------------------------------------------------------------
def test_max_questions_1_refuses_the_second_question(fake_api, tmp_path):
    def model(req: Request) -> dict[str, Any]:
        if len(fake_api.served) < 2:
            return _act({"type": "ask_user", "question": f"Question {len(fake_api.served) + 1}?"})
        return calculator_model(req)

    fake_api.handler = model
    result = _run(tmp_path, _calc(tmp_path), max_questions=1)

    first, second = _steps(result.run_dir, "add")[:2]
    assert first["ask"]["question"] == "Question 1?" and first["error"] is None
    assert second["ask"] is None and second["error"] == "the question budget of 1 is spent"
    told = [r.last_user_text() for r in fake_api.served[:3]]
    assert "Questions to the user left: 1 of 1." in told[0]
    assert "your budget of 1 is spent" in told[1] and "your budget of 1 is spent" in told[2]
    (ep,) = result.episodes
    assert ep.status == "success" and ep.user_turns == 1
    assert json.loads((result.run_dir / "run.json").read_text())["max_questions"] == 1


def test_modes_refusal_and_budget_left():
    assert RunModes().refusal(10) is None and RunModes().questions_left(3) is None
    assert RunModes(ask=False).refusal(0) == "ask_user is off in this run (--ask off)"
    two = RunModes(max_questions=2)
    assert [two.refusal(n) for n in range(3)] == [None, None, "the question budget of 2 is spent"]
    assert [two.questions_left(n) for n in range(4)] == [2, 1, 0, 0]
    assert RunModes.of_record({}) == RunModes()  # a run recorded before the modes ran with the defaults


# -- --context -------------------------------------------------------------------------------------
def _give_up(req: Request) -> dict[str, Any]:
    return _act({"type": "finish", "status": "failure"}, "give up")


def test_context_augmented_gives_the_agent_the_days_earlier_tasks(fake_api, tmp_path):
    fake_api.handler = _give_up
    result = _run(tmp_path, "day", context="augmented")

    from guilens.scenarios.loader import find_task

    day, _ = find_task("day")
    ran = [t for t in day.tasks if result.tasks[t.id].status != "blocked"]
    assert len(ran) >= 3 and len(fake_api.served) == len(ran)  # one step each: finish failure
    first, second, third = fake_api.served[:3]
    assert HEADER not in first.system_text()  # the day's first task has nothing before it
    pack = second.system_text()
    assert HEADER in pack
    assert day.tasks[0].instruction_at("L0", day.tasks[0].user.values) in pack
    assert "## Task 1 (at 08:00): " in pack and "Outcome: failure." in pack and "1. give up" in pack
    later = third.system_text()
    index = {t.id: i for i, t in enumerate(day.tasks)}
    earlier = day.tasks[: index[ran[2].id]]
    assert later.count("Outcome: ") == len(earlier)  # every earlier task, blocked ones with their 0 steps
    if any(result.tasks[t.id].status == "blocked" for t in earlier):
        assert "Outcome: blocked." in later and "not run: prerequisite failed" in later
    # the pack sits between the act prompt and the task block, within the cached prefix
    assert second.cache_breakpoints() == ["system[0]", "system[2]"]
    run = json.loads((result.run_dir / "run.json").read_text())
    assert run["context"] == "augmented"


def test_context_episodic_gives_no_earlier_tasks(fake_api, tmp_path):
    fake_api.handler = _give_up
    _run(tmp_path, "day")
    assert len(fake_api.served) >= 3
    assert not any(HEADER in r.text() or "Outcome: " in r.text() for r in fake_api.served)


def test_context_pack_in_a_text_formats_first_turn(fake_api, tmp_path):
    """A text format (Qwen mobile_use) gets the pack at the head of its first user turn."""
    fake_api.handler = lambda req: fakeapi.text(
        'Thought: stop.\nAction: Give up.\n<tool_call>\n{"name": "mobile_use", "arguments": '
        '{"action": "terminate", "status": "failure"}}\n</tool_call>')
    _run(tmp_path, "day", context="augmented", agent_format="qwen", ask="off")
    second = fake_api.served[1]
    assert HEADER in second.last_user_text() and "Outcome: failure." in second.last_user_text()
    assert '"ask_user"' not in second.system_text() and "ask_user" not in second.system_text()


# -- the oracle ------------------------------------------------------------------------------------
def test_the_oracle_with_ask_off_fills_the_slot_from_what_it_knows(tmp_path):
    from guilens.run.engine import Runner
    from guilens.run.plan import plan_run

    plan = plan_run("day:house-rules", agent="oracle", devices=["sim"], level="L2", out=tmp_path / "runs",
                    options={"ask": "off"})
    result = Runner(plan).run()
    (ep,) = result.episodes
    steps = _steps(result.run_dir, "house-rules")
    assert ep.status == "success" and ep.user_turns == 0
    assert not any(s["action"]["type"] == "ask_user" for s in steps)
    assert "asking is off in this run" in steps[0]["thought"] and "rules = Gifts cost under $100" in steps[0]["thought"]


# -- AS --------------------------------------------------------------------------------------------
def test_average_steps_on_hand_made_records():
    records = [
        EpisodeRecord(task="a", attempt=1, success=True, steps=10, status="success"),
        EpisodeRecord(task="a", attempt=2, success=True, steps=99, status="success"),  # not a first attempt
        EpisodeRecord(task="b", attempt=1, success=False, steps=6, status="failure"),
        EpisodeRecord(task="c", attempt=1, success=False, steps=0, status="blocked"),  # counts with 0 steps
        EpisodeRecord(task="d", attempt=1, success=None, steps=0, status="blocked"),  # blocked, undecided: 0 too
        EpisodeRecord(task="e", attempt=1, success=None, steps=4, status="aborted"),  # nobody decided: left out
    ]
    got = average_steps(records)
    assert got.n == 4 and got.value == pytest.approx((10 + 6 + 0 + 0) / 4)
    assert compute(records)["as"] == {"value": 4.0, "n": 4, "note": "tasks"}
    assert average_steps([]).value is None


def test_report_shows_as_and_the_modes(tmp_path):
    from rich.console import Console

    from guilens.judge.report import load_report
    from guilens.judge.report_text import print_report
    from guilens.run.engine import Runner
    from guilens.run.plan import plan_run

    plan = plan_run("day", agent="oracle", devices=["sim"], out=tmp_path / "runs",
                    options={"ask": "off", "max_questions": 2, "context": "augmented"})
    result = Runner(plan).run()
    console = Console(width=200, record=True)
    print_report(load_report(result.run_dir), console)
    out = console.export_text()
    assert "ask: off  max_questions: 2  context: augmented" in out
    assert "AS (steps / task)" in out


# -- the command line ------------------------------------------------------------------------------
@pytest.mark.parametrize("args, option", [
    (["--ask", "maybe"], "--ask"),
    (["--max-questions", "-1"], "--max-questions"),
    (["--context", "x"], "--context"),
    (["--context", "augmented"], "--context augmented"),  # memory is not a day
])
def test_bad_mode_values_are_one_line_naming_the_option(args, option, tmp_path, monkeypatch):
    from guilens.cli import app

    monkeypatch.setenv("GUILENS_CONFIG_FILE", str(tmp_path / "none.toml"))
    got = CliRunner().invoke(app, ["run", "memory", "--headless", "--out", str(tmp_path / "runs"), *args])
    assert got.exit_code == 2
    lines = [ln for ln in got.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"error: {option}"), got.stderr
    assert not (tmp_path / "runs").exists()


def test_the_headless_start_line_names_modes_that_are_not_the_defaults(tmp_path):
    import io

    from guilens.config import Settings
    from guilens.headless import HeadlessObserver
    from guilens.run.modes import RunModes

    lines = []
    for modes in ({"ask": "off", "max_questions": 1, "context": "augmented"}, {"ask": "on", "context": "episodic"}):
        out = io.StringIO()
        described = RunModes.of_settings(Settings(**modes)).describe()
        HeadlessObserver(out, color=False, progress=False, modes=described).on_run_started(tmp_path, 3)
        lines.append(out.getvalue().strip())
    assert lines[0] == f"run {tmp_path}  (3 tasks)  · ask off · max-questions 1 · context augmented"
    assert lines[1] == f"run {tmp_path}  (3 tasks)"
