"""The reference executor on the simulated phone."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from guilens.actions import AskUser, Finish, OpenApp, Swipe, Tap, Type
from guilens.scenarios.loader import load_text
from guilens.scenarios.model import Scenario
from guilens.scenarios.reference import ReferenceError, ReferencePlayer, extract_slot_value, run_reference
from guilens.scenarios.verify import verify_scenario

sim_device = pytest.importorskip("guilens.device.sim.device")

MINI = """\
id: mini
title: Mini notes pack
setup:
  apps:
    notes:
      notes:
        - {title: Groceries, body: "milk\\neggs"}
tasks:
  - id: shoes
    apps: [notes]
    instruction:
      L0: "Write a note titled Shoes saying: {brand} 89.99"
      L1: "Write a note titled Shoes with the price of my usual running shoe brand, 89.99."
      L2: "Keep the shoe price somewhere for me."
    difficulty: 1
    golden_steps: 7
    mirror_of: bags
    user: {slots: {brand: ASICS}}
    milestones:
      - {id: editor, text: "A new note is open", check: {element: "id:body"}}
      - id: saved
        text: "A note Shoes with the brand, then the price"
        check: {state: notes.notes, where: {title: Shoes}, field: body, op: contains_all,
                value: ["{brand}", "89.99"], ordered: true}
    reference:
      - open: notes
      - tap: New note
      - type: Shoes
      - enter
      - ask: {question: "Which brand of running shoes?", slot: brand}
      - remember: {app: notes, content: "brand {brand}"}
      - type: "{brand} 89.99"
      - tap: {id: save}
      - finish
  - id: bags
    apps: [notes]
    instruction:
      L0: "Write a note titled Bags saying: ALDO 59.50"
    difficulty: 1
    golden_steps: 7
    milestones:
      - {id: editor, text: "A new note is open", check: {element: "id:body"}}
      - {id: saved, text: "A note Bags", check: {state: notes.notes, where: {title: Bags}, field: body,
                                                  op: contains, value: "ALDO 59.50"}}
    reference:
      - open: notes
      - tap: New note
      - type: Bags
      - enter
      - type: "ALDO 59.50"
      - tap: {id: save}
      - finish
"""


@pytest.fixture()
def mini() -> Scenario:
    return load_text(MINI, "mini.yaml")


def sim(s: Scenario, tid: str) -> Any:
    return sim_device.SimDevice(setup=s.setup_for(s.task(tid)))


def test_player_at_l0_targets_elements_and_skips_the_ask(mini: Scenario) -> None:
    t = mini.task("shoes")
    dev = sim(mini, "shoes")
    p = ReferencePlayer(t, "L0")
    assert p.steps_total == 7
    a = p.next_step(dev.observe())
    assert a is not None and a.action == OpenApp(app="notes")
    dev.act(a.action)
    a = p.next_step(dev.observe())
    assert a is not None and isinstance(a.action, Tap) and a.action.target == "New note"
    assert a.action.resolved and a.description == "tap 'New note'"
    dev.act(a.action)
    for _ in range(2):
        a = p.next_step(dev.observe())
        assert a is not None
        dev.act(a.action)
    a = p.next_step(dev.observe())  # the ask is skipped at L0: the brand is known
    assert a is not None and a.action == Type(text="ASICS 89.99")
    assert [r.content for r in a.remember] == ["brand ASICS"]


def test_player_at_l1_asks_and_fills_the_answer(mini: Scenario) -> None:
    t = mini.task("shoes")
    p = ReferencePlayer(t, "L1")
    assert p.steps_total == 8
    for _ in range(4):
        p.next_step(None)
    a = p.next_step(None)
    assert a is not None and isinstance(a.action, AskUser) and a.slot == "brand"
    a = p.next_step(None, answers={"brand": "I like ASICS."})
    assert a is not None and a.action == Type(text="ASICS 89.99")
    tap = p.next_step(None)
    assert tap is not None and tap.action == Tap(target="id:save")  # no UI tree: left to the runner
    end = p.next_step(None)
    assert end is not None and isinstance(end.action, Finish) and p.done
    assert p.next_step(None) is None


def test_unknown_slot_is_a_clear_error(mini: Scenario) -> None:
    t = mini.task("shoes")
    steps = [s for s in yaml.safe_load(MINI)["tasks"][0]["reference"] if "ask" not in s]
    data = t.model_dump(mode="json", by_alias=True)
    data["reference"] = steps
    broken = type(t).model_validate(data)
    p = ReferencePlayer(broken, "L1")
    # at L1 the brand is only known by asking, and this reference never asks; but no ask means
    # the slot counts as given by the instruction, so the player fills it from the task
    for _ in range(4):
        p.next_step(None)
    a = p.next_step(None)
    assert a is not None and a.action == Type(text="ASICS 89.99")
    with pytest.raises(ReferenceError, match="has no L3 instruction"):
        ReferencePlayer(t, "L3")


def test_missing_element_names_the_step_and_the_screen(mini: Scenario) -> None:
    data = yaml.safe_load(MINI)
    data["tasks"][1]["reference"][1] = {"tap": "Compose"}
    s = load_text(yaml.safe_dump(data), "x.yaml")
    run = run_reference(s.task("bags"), sim(s, "bags"))
    assert not run.ok
    assert run.error is not None
    assert "task 'bags' reference step 2 (tap: Compose): no element 'Compose' on screen (no match; visible:" in run.error
    assert "'New note'" in run.error


def test_slot_values_from_answers() -> None:
    assert extract_slot_value("It's asics, thanks.", "ASICS") == "ASICS"
    assert extract_slot_value("Nike.", "ASICS") == "Nike"
    assert extract_slot_value('"Blue"', None) == "Blue"


def test_run_reference_reaches_milestones_in_order(mini: Scenario) -> None:
    t = mini.task("shoes")
    run = run_reference(t, sim(mini, "shoes"))
    assert run.ok, run.summary()
    assert run.milestone_steps == {"editor": 2, "saved": 6}
    assert len(run.steps) == t.golden_steps
    assert run.steps[-1].result == "finished (success)"


def test_a_wrong_answer_at_l1_fails_the_checks(mini: Scenario) -> None:
    t = mini.task("shoes")
    run = run_reference(t, sim(mini, "shoes"), "L1", user=lambda q: "Nike")
    assert run.steps[4].question == "Which brand of running shoes?" and run.steps[4].answer == "Nike"
    assert run.success.ok is False and not run.ok
    silent = run_reference(t, sim(mini, "shoes"), "L1", user=lambda q: None)
    assert silent.error == "the user could not answer 'Which brand of running shoes?'"


def test_swipes_move_the_finger_the_named_way(mini: Scenario) -> None:
    data = yaml.safe_load(MINI)
    data["tasks"][1]["reference"] = [{"open": "notes"}, {"swipe": "up"},
                                     {"swipe": {"direction": "left", "within": {"id": "notes_list"}}}, "finish"]
    data["tasks"][1]["golden_steps"] = 4
    s = load_text(yaml.safe_dump(data))
    dev = sim(s, "bags")
    p = ReferencePlayer(s.task("bags"))
    dev.act(p.next_step(dev.observe()).action)  # type: ignore[union-attr]
    up = p.next_step(dev.observe())
    assert up is not None and isinstance(up.action, Swipe)
    assert up.action.y1 > up.action.y2 and up.action.x1 == up.action.x2 == 540
    left = p.next_step(dev.observe())
    assert left is not None and isinstance(left.action, Swipe)
    assert left.action.x1 > left.action.x2 and left.action.y1 == left.action.y2


def test_verify_proves_solvable_and_checks_right(mini: Scenario) -> None:
    verdicts = verify_scenario(mini)
    assert [v.task for v in verdicts] == ["shoes", "bags"]
    for v in verdicts:
        assert v.ok, [(f.name, f.detail) for f in v.findings if not f.ok]
    names = [f.name for f in verdicts[0].findings]
    assert names == ["doing nothing fails", "mirror bags fails", "reference at L1", "asks at L1", "L1 resolvable",
                     "reference at L2", "asks at L2", "L2 resolvable", "reference at L0", "golden steps"]


def test_verify_catches_a_level_that_hides_a_slot_nobody_asks_for(mini: Scenario) -> None:
    data = yaml.safe_load(MINI)
    # the ask now only happens at L2, but L1 does not name the brand either
    data["tasks"][0]["reference"][4]["ask"]["levels"] = ["L2"]
    s = load_text(yaml.safe_dump(data))
    bad = {f.name: f.detail for f in verify_scenario(s, "shoes")[0].findings if not f.ok}
    assert list(bad) == ["L1 resolvable"]
    assert "uses brand at L1, but the instruction does not give it" in bad["L1 resolvable"]


def test_verify_catches_checks_that_are_too_loose(mini: Scenario) -> None:
    data = yaml.safe_load(MINI)
    # any note at all satisfies this check, so the mirror's reference passes it too
    data["tasks"][0]["milestones"][1]["check"] = {"state": "notes.notes", "op": "count", "value": 2}
    data["tasks"][0]["milestones"][0]["check"] = {"app": "notes"}
    s = load_text(yaml.safe_dump(data))
    v = verify_scenario(s, "shoes")[0]
    bad = {f.name: f.detail for f in v.findings if not f.ok}
    assert list(bad) == ["mirror bags fails"]
    # and a check the start already meets makes "doing nothing" pass
    data["tasks"][0]["milestones"] = [{"id": "m", "text": "x", "check": {"state": "notes.notes", "op": "exists"}}]
    s = load_text(yaml.safe_dump(data))
    bad = {f.name for f in verify_scenario(s, "shoes")[0].findings if not f.ok}
    assert "doing nothing fails" in bad


def test_cli_verify(tmp_path: Path) -> None:
    f = tmp_path / "mini.yaml"
    f.write_text(MINI)
    res = subprocess.run([sys.executable, "-m", "guilens", "scenarios", "verify", f"{f}:bags", "-v"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "ok   mini:bags" in res.stdout and "1/1 task(s) verified" in res.stdout
    data = yaml.safe_load(MINI)
    data["tasks"][1]["milestones"][1]["check"]["value"] = "ALDO 59.95"
    f.write_text(yaml.safe_dump(data))
    res = subprocess.run([sys.executable, "-m", "guilens", "scenarios", "verify", str(f)], capture_output=True, text=True)
    assert res.returncode == 1
    assert "FAIL mini:bags" in res.stdout and "first missing milestone 'saved'" in res.stdout
