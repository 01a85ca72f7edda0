"""IRR by rules (#16): information items, counted on real episodes of the simulated phone.

The episodes are made by the oracle and by a corrupting oracle that changes or
leaves out one or two values before it saves a note, sends a text or answers.
The expected counts are written by hand from what each corruption does to the
task's items (3 price lines, one of them wrong: 2 of 3). The judge runs the
rules and IRR stages with a model client that fails the test if it is ever
asked: the rules must count alone.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from guilens.judge.pipeline import judge_episode, judge_path
from guilens.judge.report import load_report, row_json
from guilens.scenarios.checks import CheckContext
from guilens.scenarios.errors import ScenarioError
from guilens.scenarios.information import find_items, information_items
from guilens.scenarios.loader import load_builtin, load_text
from tests import fakeapi
from tests.judge_helpers import OracleWrapper, guilens_cli, unjudged_copy

CORRUPT: dict[str, list[tuple[str, str]]] = {
    # 3 items (model: price); the Nike's price is mistyped: 2 of 3.
    "shoe-prices-note": [("129.99", "192.99")],
    # 2 items (hours, closed Tuesdays); "closed Tuesdays" is left out: 1 of 2.
    "louvre-hours-to-mom": [(", closed Tuesdays", "")],
    # 3 items (street, city, ZIP); the city is left out and the ZIP mistyped: 1 of 3.
    "apple-park-to-bob": [("Cupertino, CA 95014", "CA 95041")],
    # implicit: the total in the answer is wrong, so the decision is wrong: 0.
    "portfolio-value": [("26,311.25", "26,311.52")],
}
STOP_AT = {"cities-note": 0}
"""An early failure: the agent claims success before it does anything (2 items, none found: 0)."""
EXPECTED = {  # task: (used, total, IRR %)
    "shoe-prices-note": (2, 3, 66.7),
    "louvre-hours-to-mom": (1, 2, 50.0),
    "apple-park-to-bob": (1, 3, 33.3),
    "portfolio-value": (0, 1, 0),
    "cities-note": (0, 2, 0.0),
}


class Corrupting(OracleWrapper):
    """The oracle, with some typed texts and answers changed (values corrupted or left out), or
    stopping at once on the tasks in `stop_at`."""

    name = "corrupting"

    def step(self, inp: Any) -> Any:
        from guilens.actions import Answer, Finish, Type
        from guilens.agents.base import AgentStep

        if inp.index >= STOP_AT.get(self.task, 10**6):
            return AgentStep(action=Finish(status="success"), thought="Looks done to me.", description="finish")
        out = self.inner.step(inp)
        if isinstance(out.action, Type | Answer):
            text = out.action.text
            for old, new in CORRUPT.get(self.task, []):
                text = text.replace(old, new)
            out.action = type(out.action)(text=text)
        return out

    def lessons(self, episode: Any, steps: list[Any]) -> list[str]:
        return []


def _run(agent: Any, tasks: list[str], out: Path) -> Path:
    from guilens.config import load_settings
    from guilens.run.engine import Runner
    from guilens.run.plan import plan_run

    settings = load_settings(screen_width=540, screen_height=1200)
    plan = plan_run("memory", agent=agent, out=out, settings=settings, check_agent=False, seed=7)
    plan.tasks = [t for t in plan.tasks if t.id in tasks]
    return Runner(plan).run().run_dir


def _no_model(model: str) -> Any:
    raise AssertionError(f"the rules must count IRR alone; a model client was asked for ({model})")


@pytest.fixture(scope="module")
def corrupted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = _run(lambda settings=None: Corrupting(settings), list(EXPECTED), tmp_path_factory.mktemp("irr"))
    judge_path(run, stages=["rules", "irr"], client_factory=_no_model, llm=False)
    return run


def _irr_stage(run: Path, task: str) -> dict[str, Any]:
    verdict = json.loads((run / task / "attempt-1" / "verdict.json").read_text())
    assert verdict["decision"] == "failure", (task, verdict["reason"])
    return next(s for s in verdict["stages"] if s["stage"] == "irr") | {"irr": verdict["irr"]}


@pytest.mark.parametrize("task", list(EXPECTED))
def test_rules_count_the_items_of_corrupted_episodes_as_by_hand(corrupted: Path, task: str) -> None:
    used, total, pct = EXPECTED[task]
    stage = _irr_stage(corrupted, task)
    d = stage["details"]
    assert (d["method"], d["correctly_used_units"], d["total_information_units"]) == ("rules", used, total)
    assert d["irr_percentage"] == pytest.approx(pct) and stage["irr"] == pytest.approx(pct / 100)
    assert [i["found"] for i in d["items"]].count(True) == used and stage["usage"]["cost_usd"] == 0


def test_findings_say_which_item_was_missing_and_where_it_was_looked_for(corrupted: Path) -> None:
    d = _irr_stage(corrupted, "shoe-prices-note")["details"]
    found = {i["text"]: i["found"] for i in d["items"]}
    assert found == {"ASICS Gel-Nimbus 25: 159.95": True, "Nike Pegasus 40: 129.99": False,
                     "Ultraboost: 189.99": True}
    missing = next(i for i in d["items"] if not i["found"])
    assert "notes.notes[title='Running shoes'].body" in missing["where"] and "192.99" in missing["where"]
    assert d["output"] == "explicit" and d["items_from"] == "derived from milestone 'note-saved'"
    implicit = _irr_stage(corrupted, "portfolio-value")
    assert implicit["details"]["output"] == "implicit" and "wrong implicit decision gets 0" in implicit["reason"]


def test_the_report_says_the_irr_came_from_the_rules(corrupted: Path) -> None:
    report = load_report(corrupted)
    irr = report.metrics()["irr"]
    # Hand count: (66.7 + 50 + 33.3 + 0 + 0) / 5 = 30%.
    assert irr["value"] == pytest.approx(0.3, abs=1e-3) and irr["n"] == 5
    assert irr["note"] == "memory tasks; 5 by rules"
    rows = {r.record.task: row_json(r) for r in report.rows}
    assert {t: r["irr_method"] for t, r in rows.items()} == dict.fromkeys(EXPECTED, "rules")


def test_an_oracle_success_is_100_and_the_note_counts_each_method(corrupted: Path, tmp_path: Path) -> None:
    run = _run("oracle", ["mountains-note"], tmp_path)
    judge_path(run, stages=["rules", "irr"], client_factory=_no_model, llm=False)
    report = load_report(run)
    assert report.rows[0].record.irr == 1.0 and report.rows[0].record.irr_method == "task_succeeded"
    both = load_report(corrupted).records + report.records
    from guilens.judge.metrics import information_retention

    assert information_retention(both).note == "memory tasks; 1 succeeded, 5 by rules"


def test_guilens_judge_without_a_model_gives_irr_by_rules(corrupted: Path, tmp_path: Path) -> None:
    """From the command line, with no API key: the IRR stage counts by rules, and `report --json`
    carries the method per episode."""
    run = unjudged_copy(corrupted, tmp_path)
    judged = guilens_cli("judge", str(run), "--rules-only", home=tmp_path)
    assert judged.returncode == 0, judged.stderr
    out = guilens_cli("report", str(run), "--json", home=tmp_path)
    data = json.loads(out.stdout)
    assert data["metrics"]["irr"]["note"] == "memory tasks; 5 by rules"
    assert {e["task"]: (e["irr_method"], round(100 * e["irr"], 1)) for e in data["episodes"]} == {
        t: ("rules", round(float(pct), 1)) for t, (_, _, pct) in EXPECTED.items()}


fake_api = fakeapi.fake_api


def test_with_a_model_the_default_pipeline_counts_by_rules_and_named_stages_ask_the_analyzer(
        fake_api: Any, tmp_path: Path) -> None:
    """Cheap and certain first: the default pipeline decides by rules and counts IRR by rules, with no
    IRR request. Naming the IRR stage asks the analyzer anyway (to compare), the rules' count beside it."""
    from tests.fakeapi import text
    from tests.judge_helpers import by_role, make_run, note_failure, role_of

    ep = note_failure(make_run(tmp_path))
    v = judge_episode(ep)
    irr = v.stage("irr")
    assert irr is not None and irr.details["method"] == "rules" and by_role(fake_api).get("irr", 0) == 0
    # The note fixture's task: one item, the price 89.99 in the note's body; the failed note lacks it.
    assert (irr.details["correctly_used_units"], irr.details["total_information_units"], v.irr) == (0, 1, 0.0)

    def handle(req: Any) -> Any:
        answers = {"describe": {"action_description": "Typed", "ui_description": "A note"},
                   "triage": {"reason": "unsure", "decision": "Uncertain"},
                   "semantic": {"decision": 0, "reason": "the price is wrong"},
                   "irr": {"total_information_units": 2, "correctly_used_units": 1, "irr_percentage": 50,
                           "analysis_reason": "title right, price wrong"}}
        return text(json.dumps(answers[role_of(req)]))

    fake_api.handler = handle
    named = judge_episode(ep, stages=["scrutiny", "irr"], force=True)
    irr = named.stage("irr")
    assert irr is not None and irr.details["method"] == "llm_analysis" and by_role(fake_api)["irr"] == 1
    assert named.irr == 0.5 and irr.details["by_rules"] == {
        "correctly_used_units": 0, "total_information_units": 1, "irr_percentage": 0.0}


def test_the_irr_note_says_how_many_figures_each_method_gave() -> None:
    from guilens.judge.metrics import EpisodeRecord, information_retention

    def rec(task: str, success: bool, irr: float | None = None, method: str | None = None) -> EpisodeRecord:
        return EpisodeRecord(task=task, success=success, memory=True, irr=irr, irr_method=method)

    m = information_retention([
        rec("a", True), rec("b", False, 0.5, "rules"), rec("c", False, 0.25, "rules"),
        rec("d", False, 0.75, "llm_analysis"), rec("e", False, 0.0, "blocked"), rec("f", False),
        EpisodeRecord(task="g", success=False, memory=False, irr=0.0, irr_method="rules"),  # not a memory task
    ])
    # Hand count: (1 + 0.5 + 0.25 + 0.75 + 0) / 5 = 0.5; f has no IRR and is left out.
    assert (m.value, m.n) == (pytest.approx(0.5), 5)
    assert m.note == ("memory tasks; 1 succeeded, 2 by rules, 1 by the LLM analyzer, 1 blocked (0), "
                      "1 failed without an IRR, left out")


# --- the items themselves -------------------------------------------------------------------------------


def test_every_built_in_memory_task_has_information_items() -> None:
    tasks = [(s.id, t) for s in load_builtin() for t in s.tasks if t.memory != "none"]
    assert len(tasks) >= 20
    empty = [f"{sid}:{t.id}" for sid, t in tasks if not information_items(t)[0]]
    assert not empty


def test_an_implicit_decision_right_is_100_and_wrong_is_0_whatever_the_count() -> None:
    from guilens.judge.irr_rules import score

    assert score(implicit=True, used=2, total=2) == 100
    assert score(implicit=True, used=1, total=2) == 0
    assert score(implicit=False, used=4, total=6) == pytest.approx(66.7)
    assert score(implicit=False, used=0, total=3) == 0


def test_values_on_one_line_make_one_unit_and_numbers_match_however_written() -> None:
    task = next(t for s in load_builtin() for t in s.tasks if t.id == "shoe-prices-note")
    task = task.filled(task.user.values)
    items, _ = information_items(task)
    body = "ASICS Gel-Nimbus 25: $159.95\nNike Pegasus 40: $189.99\nAdidas Ultraboost Light: $129.99"
    state = {"apps": {"notes": {"notes": [{"title": "Running shoes", "body": body}]}}}
    # Every value is in the note, but two prices stand beside the wrong model: 1 of 3.
    assert [f.found for f in find_items(items, CheckContext(state=state))] == [True, False, False]
    portfolio = next(t for s in load_builtin() for t in s.tasks if t.id == "portfolio-value")
    (item,), _ = information_items(portfolio)
    assert find_items([item], CheckContext(answer="They are worth $26,311.25 in all."))[0].found is True
    assert find_items([item], CheckContext(answer=None))[0].found is False


def test_a_real_phone_episode_is_left_to_the_llm_analyzer() -> None:
    """No app state recorded: the rules cannot read a state item, and say nothing rather than 0."""
    task = next(t for s in load_builtin() for t in s.tasks if t.id == "mountains-note")
    items, _ = information_items(task.filled(task.user.values))
    assert {f.found for f in find_items(items, CheckContext(state=None))} == {None}


BAD = """\
id: bad
tasks:
  - id: t1
    apps: [notes]
    instruction: {{L0: "Write it down"}}
    memory: cross-app
    difficulty: 1
    golden_steps: 3
    information:
      - {item}
"""


@pytest.mark.parametrize(("item", "says"), [
    ('{id: price, text: "The price", values: ["9.99"]}', "information[0]: values need 'in'"),
    ('{id: price, text: "The price"}', "information[0]: an information item has either values"),
    ('{id: price, text: "The price", values: ["9.99"], in: screen}', "information[0].in: 'in' is answer or"),
    ('{id: "bad id", text: "The price", check: {app: notes}}', "information[0].id: 'bad id' must use"),
    ('{id: p, text: "The price", values: ["9.99"], in: answer, check: {app: notes}}', "either values"),
])
def test_a_malformed_information_entry_is_one_line_naming_file_task_and_field(item: str, says: str) -> None:
    with pytest.raises(ScenarioError) as err:
        load_text(BAD.format(item=item), file="bad.yaml")
    lines = err.value.problems
    assert len(lines) == 1, lines
    assert lines[0].startswith("bad.yaml:10:") and "task 't1': " in lines[0] and says in lines[0]


def test_guilens_scenarios_validate_rejects_it_without_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(BAD.format(item='{id: price, text: "The price", values: ["9.99"]}'))
    out = subprocess.run([sys.executable, "-m", "guilens", "scenarios", "validate", str(path)],
                         capture_output=True, text=True, timeout=60)
    lines = [ln for ln in (out.stdout + out.stderr).splitlines() if ln.strip()]
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert any("bad.yaml:10:" in ln and "task 't1': information[0]: values need 'in'" in ln for ln in lines)
