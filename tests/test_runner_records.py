"""What a run leaves for the judge: its scenario copy, the template values, filled instructions, per-step state."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from guilens.actions import Finish
from guilens.agents.base import AgentContext, AgentStep, StepInput
from guilens.scenarios.loader import load_scenario
from guilens.scenarios.model import TEMPLATE, Scenario
from tests.runner_helpers import SMALL, read_steps, run, write_scenarios


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    return write_scenarios(tmp_path)


def _episode(attempt: Path) -> dict[str, Any]:
    return json.loads((attempt / "episode.json").read_text())


def test_the_run_keeps_a_copy_of_its_scenario(files, tmp_path):
    result = run(f"{files[0]}:budget", tmp_path / "runs")
    copy = result.run_dir / "scenario.json"
    assert json.loads((result.run_dir / "run.json").read_text())["scenario_copy"] == "scenario.json"
    kept = Scenario.model_validate_json(copy.read_text())
    assert [t.model_dump() for t in kept.tasks] == [t.model_dump() for t in load_scenario(files[0]).tasks]


def test_episodes_record_the_values_their_templates_were_filled_with(files, tmp_path):
    day = run(files[1], tmp_path / "day")
    write = _episode(day.run_dir / "write" / "attempt-1")
    assert write["values"] == {"money": "42"}  # handed on by `read`'s answer
    assert write["instruction"] == "Create a note titled Lunch whose text is 42."
    asked = run(f"{files[0]}:grocery", tmp_path / "l1", level="L1")
    grocery = _episode(asked.run_dir / "grocery" / "attempt-1")
    assert grocery["values"] == {"item": "milk"}  # the slot the user answers at L1
    assert grocery["instruction"] == "In Notes, create a note titled Groceries with the item I need."


class Quitter:
    """Gives up at once, and remembers the instruction it was given."""

    name = "quitter"
    model = None
    seen: list[tuple[str, str]] = []

    def reset(self, context: AgentContext) -> None:
        Quitter.seen.append((context.task.id, context.instruction))

    def step(self, inp: StepInput) -> AgentStep:
        return AgentStep(action=Finish(status="failure"), thought="No.")


@pytest.mark.parametrize("level", ["L0", "L1", "L2"])
def test_no_instruction_keeps_a_placeholder_even_for_tasks_that_never_ran(level, tmp_path):
    # Every task of the built-in day fails at once, so its dependents are recorded `blocked` without
    # running; values the failed and blocked tasks would have handed on still fill later instructions.
    Quitter.seen = []
    result = run("day", tmp_path / "runs", agent=Quitter, level=level, screen=SMALL)
    statuses = {r.status for r in result.tasks.values()}
    assert statuses == {"failure", "blocked"}
    for ep in result.episodes:
        assert not TEMPLATE.search(ep.instruction), (ep.task, ep.instruction)
        assert not TEMPLATE.search(_episode(result.run_dir / ep.task / "attempt-1")["instruction"])
    assert Quitter.seen and all(not TEMPLATE.search(text) for _, text in Quitter.seen)
    spending = _episode(result.run_dir / "day-spending" / "attempt-1")
    assert spending["status"] == "blocked" and {"order_total", "gift_total", "title"} <= set(spending["values"])


def test_the_app_state_behind_each_screen_is_recorded(files, tmp_path):
    result = run(f"{files[0]}:grocery", tmp_path / "runs", level="L1", screen=SMALL)
    attempt = result.run_dir / "grocery" / "attempt-1"
    steps = read_steps(attempt)
    names = [s.get("state") for s in steps]
    # ask_user (step 2) leaves the phone alone: the next step names the same file instead of a copy
    assert steps[2]["ask"] is not None and names[3] == names[2] == "state/0002.json"
    assert names == [f"state/{i:04d}.json" for i in (0, 1, 2, 2, 4, 5, 6, 7, 8)][: len(names)]
    assert sorted(p.name for p in (attempt / "state").iterdir()) == sorted({n.split("/")[1] for n in names})
    # state i is the phone as screen i shows it: the editor opens on screen 2, after `tap New note`
    editor = json.loads((attempt / names[2]).read_text())
    assert editor["screen"] == "notes/edit" and json.loads((attempt / names[1]).read_text())["screen"] == "notes/main"
    assert [s["milestones"] for s in steps][1] == ["editor"]
    final = json.loads((attempt / "final_state.json").read_text())
    assert any(n["title"] == "Groceries" for n in final["apps"]["notes"]["notes"])


def test_state_files_hold_the_state_exactly_while_unchanged_apps_are_encoded_once(tmp_path):
    from guilens.actions import OpenApp, Tap, Type
    from guilens.device.sim import SimDevice
    from guilens.run.statelog import StateLog

    phone = SimDevice(*SMALL, setup={"apps": {"notes": {"notes": [{"title": "Budget", "body": "42"}]}}})
    log = StateLog(tmp_path, phone.state)
    seen = []
    for i, action in enumerate([None, OpenApp(app="notes"), Tap(target="New note"), Type(text="milk")]):
        if action is not None:
            phone.act(action)
        obs = phone.observe()
        seen.append(log.fetch(obs))
        assert log.fetch(obs) is seen[-1]  # asked once per observation
        assert log.record(i, obs) == f"state/{i:04d}.json"
    assert log.close() is None
    for i, state in enumerate(seen):
        assert json.loads((tmp_path / "state" / f"{i:04d}.json").read_text()) == state
    assert log._apps["shop"][0] is seen[0]["apps"]["shop"]  # never changed: encoded once, for file 0


class NoStatePhone:
    """The sim seen as a real phone would be: no app state to read."""

    def __init__(self) -> None:
        from guilens.device.sim import SimDevice

        self._sim = SimDevice(*SMALL)
        self.name = "sim"
        self.asked = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sim, name)

    def state(self) -> None:
        self.asked += 1
        return None


def test_a_phone_without_app_state_is_asked_once_and_records_none(files, tmp_path):
    phone = NoStatePhone()
    result = run(f"{files[0]}:grocery", tmp_path / "runs", devices=[phone])
    attempt = result.run_dir / "grocery" / "attempt-1"
    assert phone.asked == 1
    assert all(s["state"] is None for s in read_steps(attempt)) and not (attempt / "state").exists()
    ep = result.tasks["grocery"].attempts[0]
    assert ep.milestones == [] and ep.decided_by == "agent"  # state checks cannot decide: the judge will
