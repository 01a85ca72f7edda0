"""Scenario files: the model, and problems a person can act on."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from scenarios_helpers import SEQUENCE_YAML, TASKS_YAML, data, dump

from guilens.scenarios.errors import ScenarioError
from guilens.scenarios.loader import find_task, load_scenario, load_text, scenario_from_data, validate_paths
from guilens.scenarios.memgui import scenario_yaml
from guilens.scenarios.model import Scenario, budget_for


def problems_of(text: str, file: str = "f.yaml") -> list[str]:
    with pytest.raises(ScenarioError) as info:
        load_text(text, file)
    return info.value.problems


def problems_for(d: dict, file: str = "f.yaml") -> list[str]:
    return problems_of(dump(d), file)


# --- the model -------------------------------------------------------------------------------


def test_valid_files_load_with_levels_budget_and_shared_user() -> None:
    s = load_text(TASKS_YAML, "t.yaml")
    shoes = s.task("shoes")
    assert shoes.levels == ["L0", "L1", "L2"]
    assert s.levels == ["L0"]  # the mirror task has L0 only
    assert shoes.budget == budget_for(5) == 8
    assert s.task("bags").budget == 5
    assert shoes.reference_steps == 5 == shoes.golden_steps
    # the scenario's user profile is given to every task
    assert "Sam" in s.task("bags").user.profile
    assert shoes.instruction_at("L0", shoes.user.values) == (
        "Find the price of ASICS running shoes and note it in a note titled Shoes."
    )
    assert [m.id for m in shoes.all_milestones()] == ["found", "in_notes", "titled", "noted"]
    assert shoes.template_names() == {"brand"}
    filled = shoes.filled(shoes.user.values)
    assert filled.milestones[0].check.screen_text == "ASICS"  # type: ignore[union-attr]


def test_max_steps_overrides_the_budget_formula() -> None:
    d = data()
    d["tasks"][1]["max_steps"] = 9
    assert scenario_from_data(d).task("bags").budget == 9
    assert [budget_for(g) for g in (1, 5, 10, 36)] == [2, 8, 15, 51]


def test_dump_and_reload_is_identity() -> None:
    for text in (TASKS_YAML, SEQUENCE_YAML):
        s = load_text(text)
        again = load_text(scenario_yaml(s))
        assert again == s


def test_sequence_clock_values_and_preferences() -> None:
    s = load_text(SEQUENCE_YAML)
    assert s.kind == "sequence"
    assert [s.when(t).strftime("%H:%M") for t in s.tasks] == ["08:00", "12:30", "13:00"]  # type: ignore[union-attr]
    assert s.expected_values(s.task("expense")) == {"total": "12.50"}
    exp = s.task("expense")
    assert exp.instruction_at("L0", {"total": "12.50"}) == "Record an expense of $12.50 for lunch."
    assert s.task("order").constrained_by == ["budget"]


def test_user_answers_the_slot_a_question_asks_for() -> None:
    s = load_text(TASKS_YAML)
    user = s.task("shoes").user
    assert user.answer("Which brand should I look for?") == "ASICS"
    assert user.answer("What make do you prefer?") == "ASICS"
    assert user.answer("What is the weather?") is None


def test_json_schema_is_published(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "guilens", "schema", "scenario"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    schema = json.loads(out.stdout)
    assert schema["title"] == "Scenario"
    assert {"StateCheck", "Milestone", "Task"} <= set(schema["$defs"])


# --- YAML syntax ------------------------------------------------------------------------------


def test_yaml_syntax_error_has_line_and_column() -> None:
    (p,) = problems_of("id: x\ntasks:\n  - id: a\n    apps: [shop\n    title: t\n")
    assert re.match(r"f\.yaml:\d+:\d+: task 'a': apps(\[\d+\])?: YAML syntax: ", p), p  # the task and field it is in
    (p,) = problems_of("id: x\ntitle: [a\n")
    assert re.match(r"f\.yaml:\d+:\d+: title(\[\d+\])?: YAML syntax: ", p), p


def test_duplicate_yaml_keys_are_refused_with_both_lines() -> None:
    (p,) = problems_of("id: x\ntitle: a\ntitle: b\ntasks: []\n")
    assert p == "f.yaml:3:1: title: YAML syntax: duplicate key 'title' (first at line 2)"


@pytest.mark.parametrize("text, what", [("", "an empty file"), ("- 1\n", "a list"), ("just text\n", "a str")])
def test_top_level_must_be_a_mapping(text: str, what: str) -> None:
    (p,) = problems_of(text)
    assert p == f"f.yaml: a scenario file is a mapping (id, title, tasks, ...), not {what}"


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="no such file"):
        load_scenario(tmp_path / "nope.yaml")
    with pytest.raises(ScenarioError, match="is a directory"):
        load_scenario(tmp_path)


# --- schema problems --------------------------------------------------------------------------


def test_unknown_key_names_file_line_task_path_and_allowed_keys() -> None:
    d = data()
    d["tasks"][0]["milestones"][0]["check"]["colour"] = "red"
    (p,) = problems_for(d)
    assert re.match(r"f\.yaml:\d+:\d+: task 'shoes': milestones\[0\]\.check\.colour: unknown key; "
                    r"allowed keys here: screen_text, exact$", p), p


def test_unknown_task_key_lists_task_fields() -> None:
    d = data()
    d["tasks"][1]["golden"] = 3
    (p,) = problems_for(d)
    assert "task 'bags': golden: unknown key; allowed keys here: id, title, apps, instruction" in p


def test_wrong_types_and_values_say_what_is_allowed() -> None:
    d = data()
    d["tasks"][0]["difficulty"] = "hard"
    d["tasks"][0]["memory"] = "long"
    d["tasks"][1]["apps"] = "shop"
    d["tasks"][1]["milestones"][0]["check"] = {"state": "notes.notes", "op": "eq", "value": 1}
    ps = problems_for(d)
    assert any("task 'shoes': difficulty: expected a whole number, got the text 'hard'" in p for p in ps), ps
    assert any("task 'shoes': memory: 'long' is not allowed; use one of 'none', 'cross-temporal' or 'cross-app'"
               in p for p in ps), ps
    assert any("task 'bags': apps: expected a list, got the text 'shop'" in p for p in ps), ps
    assert any("task 'bags': milestones[0].check.op: 'eq' is not allowed; use one of 'exists'" in p for p in ps), ps
    assert len(ps) == 4


def test_missing_required_fields() -> None:
    d = data()
    del d["tasks"][0]["golden_steps"]
    del d["tasks"][1]["instruction"]["L0"]
    ps = problems_for(d)
    assert any("task 'shoes': golden_steps: required, but missing" in p for p in ps), ps
    assert any("task 'bags': instruction.L0: required, but missing" in p for p in ps), ps


def test_check_without_a_kind_key() -> None:
    d = data()
    d["tasks"][1]["milestones"][0]["check"] = {"text": "ALDO"}
    (p,) = problems_for(d)
    assert "milestones[0].check: a check is a mapping with exactly one of the keys screen_text, element, app," in p
    assert "(got keys: text)" in p


def test_bad_reference_steps() -> None:
    d = data()
    d["tasks"][0]["reference"][0] = "bak"
    d["tasks"][0]["reference"][2] = {"tap": {"id": "x", "colour": 1}}
    d["tasks"][1]["reference"][0] = {"tap": "x", "type": "y"}
    ps = problems_for(d)
    assert any("task 'shoes': reference[0]: 'bak' is not allowed; use one of 'back', 'home'" in p for p in ps), ps
    assert any("task 'shoes': reference[2].tap.colour: unknown key; allowed keys here: id, text, desc, index" in p
               for p in ps), ps
    assert any("task 'bags': reference[0]: a reference step is one of the words" in p and "(got keys: tap, type)" in p
               for p in ps), ps
    assert len(ps) == 3


def test_bad_values_inside_checks() -> None:
    d = data()
    d["tasks"][0]["milestones"][2]["check"]["value"] = "lots"
    d["tasks"][0]["milestones"][0]["key"]["bbox"] = [0.5, 0.5, 0.2, 0.9]
    ps = problems_for(d)
    assert any("milestones[2].check: op 'approx' needs a number value, not 'lots'" in p for p in ps), ps
    assert any("milestones[0].key.bbox: bbox is [x1, y1, x2, y2]" in p for p in ps), ps


def test_bad_ids_and_sequence_without_clock() -> None:
    d = data()
    d["tasks"][0]["id"] = "has space"
    (p,) = problems_for(d)
    assert "tasks[0].id" not in p and "task 'has space': id: 'has space' must use letters, digits" in p
    s = data(SEQUENCE_YAML)
    del s["tasks"][1]["clock"]
    (p,) = problems_for(s)
    assert "every task of a sequence needs a clock time; missing on order" in p


# --- references and ids -----------------------------------------------------------------------


def test_duplicate_task_and_milestone_ids() -> None:
    d = data()
    d["tasks"][1]["id"] = "shoes"
    d["tasks"][1].pop("mirror_of")
    d["tasks"][0]["milestones"][2]["id"] = "found"
    ps = problems_for(d)
    assert any("task 'shoes': id: duplicate task id 'shoes' (also task #1)" in p for p in ps), ps
    assert any("milestones[2].id: duplicate milestone id 'found'" in p for p in ps), ps


def test_dangling_mirror_and_milestone_references() -> None:
    d = data()
    d["tasks"][1]["mirror_of"] = "socks"
    d["tasks"][0]["milestones"][2]["depends_on"] = ["nowhere"]
    d["tasks"][0]["milestones"][0]["depends_on"] = ["noted"]
    d["tasks"][0]["success"] = {"milestones": ["found", "ghost"]}
    ps = problems_for(d)
    assert any("task 'bags': mirror_of: no task 'socks' in this scenario (tasks: shoes, bags)" in p for p in ps), ps
    assert any("milestones[2].depends_on[0]: no milestone 'nowhere' in this task" in p for p in ps), ps
    assert any("milestones[0].depends_on[0]: 'noted' comes later in the milestone order" in p for p in ps), ps
    assert any("success.milestones[1]: no milestone 'ghost' in this task" in p for p in ps), ps


def test_mirror_pairs_must_agree_and_not_self_mirror() -> None:
    d = data()
    d["tasks"][0]["mirror_of"] = "shoes"
    ps = problems_for(d)
    assert any("task 'shoes': mirror_of: a task cannot mirror itself" in p for p in ps), ps


def test_dependency_cycle_in_an_unordered_group() -> None:
    d = data()
    group = d["tasks"][0]["milestones"][1]["unordered"]
    group[0]["depends_on"] = ["titled"]
    group[1]["depends_on"] = ["in_notes"]
    (p,) = problems_for(d)
    assert "milestone dependencies form a cycle: " in p


def test_sequence_references() -> None:
    s = data(SEQUENCE_YAML)
    s["tasks"][1]["depends_on"] = ["expense"]
    s["tasks"][2]["depends_on"] = ["lunch"]
    s["tasks"][0]["constrained_by"] = ["budget"]
    s["preferences"].append({"id": "diet", "text": "x", "stated_in": "breakfast"})
    ps = problems_for(s)
    assert any("task 'order': depends_on[0]: 'expense' does not come before this task" in p for p in ps), ps
    assert any("task 'expense': depends_on[0]: no task 'lunch' in this scenario" in p for p in ps), ps
    assert any("task 'plan': constrained_by[0]: preference 'budget' is stated in 'plan', which does not come earlier"
               in p for p in ps), ps
    assert any("preferences[1].stated_in: no task 'breakfast' in this scenario" in p for p in ps), ps


def test_depends_on_and_outputs_need_a_sequence() -> None:
    d = data()
    d["tasks"][1]["depends_on"] = ["shoes"]
    d["tasks"][1]["outputs"] = {"x": {"from_answer": True, "expected": "1"}}
    ps = problems_for(d)
    assert any("depends_on[0]: depends_on links tasks of a sequence; use kind: sequence" in p for p in ps), ps
    assert any("task 'bags': outputs: outputs flow to later tasks of a sequence" in p for p in ps), ps


def test_templates_must_name_a_slot_or_an_earlier_output() -> None:
    s = data(SEQUENCE_YAML)
    s["tasks"][0]["instruction"]["L0"] = "Note {total} and {mood}."
    ps = problems_for(s)
    assert any("task 'plan': {mood} is neither a user slot nor an output of an earlier task" in p for p in ps), ps
    assert any("task 'plan': {total} is neither a user slot nor an output of an earlier task "
               "(it is an output of a later task)" in p for p in ps), ps


def test_ask_slot_and_levels_must_exist() -> None:
    d = data()
    d["tasks"][0]["reference"][1] = {"ask": {"question": "Colour?", "slot": "colour"}}
    d["tasks"][1]["reference"].insert(0, {"ask": {"question": "Sure?", "levels": ["L1"]}})
    d["tasks"][1]["golden_steps"] = 3
    ps = problems_for(d)
    assert any("reference[1].ask.slot: no user slot 'colour' (brand)" in p for p in ps), ps
    assert any("task 'bags': reference[0].ask.levels: this task has no L1 instruction" in p for p in ps), ps


def test_golden_steps_must_match_the_reference() -> None:
    d = data()
    d["tasks"][1]["golden_steps"] = 4
    (p,) = problems_for(d)
    assert re.search(r"f\.yaml:\d+:\d+: task 'bags': golden_steps: is 4 but the reference takes 3 steps at L0", p), p


def test_sim_scenarios_are_checked_against_the_phone() -> None:
    pytest.importorskip("guilens.device.sim.registry")
    d = data()
    d["device"] = "sim"
    d["setup"] = {"apps": {"notes": {"colour": 1}}}
    d["tasks"][0]["apps"] = ["shop", "joplin"]
    d["tasks"][0]["milestones"][2]["check"]["state"] = "joplin.notes"
    d["tasks"][1]["reference"][0] = {"open": "bing"}
    ps = problems_for(d)
    assert any("setup.apps.notes.colour: sim setup: extra inputs are not permitted" in p for p in ps), ps
    assert any("task 'shoes': apps[1]: the simulated phone has no app 'joplin' (apps: " in p for p in ps), ps
    assert any("state path 'joplin.notes' starts with 'joplin', neither a sim app" in p for p in ps), ps
    assert any("task 'bags': reference[0].open: the simulated phone has no app 'bing'" in p for p in ps), ps


# --- finding and validating many --------------------------------------------------------------


def test_find_task_by_file_and_task(tmp_path: Path) -> None:
    f = tmp_path / "pack.yaml"
    f.write_text(TASKS_YAML)
    s, t = find_task(f"{f}:bags")
    assert s.id == "sample" and t is not None and t.id == "bags"
    s, t = find_task(str(f))
    assert t is None
    with pytest.raises(ScenarioError, match="scenario 'sample' has no task 'hats'"):
        find_task(f"{f}:hats")


def test_validate_paths_collects_every_problem_and_duplicate_ids(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(TASKS_YAML)
    (tmp_path / "b.yaml").write_text(TASKS_YAML)
    (tmp_path / "c.yaml").write_text("id: [\n")
    good, problems = validate_paths([tmp_path])
    assert [s.id for s in good] == ["sample"]
    assert any("b.yaml: scenario id 'sample' is already used by" in p for p in problems)
    assert any("c.yaml:" in p and "YAML syntax" in p for p in problems)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "guilens", "scenarios", *args], capture_output=True, text=True)


def test_cli_validate_exit_codes_and_messages(tmp_path: Path) -> None:
    good = tmp_path / "good.yaml"
    good.write_text(TASKS_YAML)
    bad = tmp_path / "bad.yaml"
    d = data()
    d["tasks"][1]["golden_steps"] = 4
    d["tasks"][0]["memory"] = "long"
    bad.write_text(dump(d))
    ok = _cli("validate", str(good))
    assert ok.returncode == 0, ok.stderr
    assert "ok  sample: 2 task(s)" in ok.stdout
    res = _cli("validate", str(good), str(bad))
    assert res.returncode == 1
    assert "Traceback" not in res.stderr
    assert "task 'shoes': memory: 'long' is not allowed" in res.stderr


def test_cli_show_and_list(tmp_path: Path) -> None:
    f = tmp_path / "pack.yaml"
    f.write_text(TASKS_YAML)
    out = _cli("show", f"{f}:shoes")
    assert out.returncode == 0, out.stderr
    for text in ("L0: Find the price of {brand}", "L2: I want new running shoes", "any order:", "[noted]",
                 "brand: ASICS", "profile: Sam", "reference (5 steps at L0)"):
        assert text in out.stdout, text
    listing = _cli("list", str(f))
    assert listing.returncode == 0
    assert re.search(r"sample\s+tasks\s+2\s+shop, notes\s+L0\s+Sample pack", listing.stdout), listing.stdout
    missing = _cli("show", f"{f}:hats")
    assert missing.returncode == 2 and "has no task 'hats'" in missing.stderr and "Traceback" not in missing.stderr


def test_scenario_model_is_frozen() -> None:
    s = load_text(TASKS_YAML)
    with pytest.raises(Exception):  # noqa: B017 - pydantic's frozen error type is internal
        s.tasks[0].id = "x"  # type: ignore[misc]
    assert isinstance(s, Scenario)


def test_sim_setup_problems_point_at_their_line() -> None:
    pytest.importorskip("guilens.device.sim.setup")
    text = """\
id: x
setup:
  apps:
    notes:
      notes:
        - {title: A}
        - {body: no title}
tasks:
  - id: t
    apps: [notes]
    instruction: {L0: x}
    difficulty: 1
    golden_steps: 1
    setup:
      apps: {shop: {cart: [{product_id: nope}]}}
    success:
      check: {state: bing.x, op: exists}
"""
    ps = problems_of(text)
    assert "f.yaml:7:11: setup.apps.notes.notes[1]: sim setup: title: field required" in ps
    assert any(p.startswith("f.yaml:15:14: task 't': setup.apps.shop: sim setup: cart item 'nope'") for p in ps), ps
    assert any("success.check: state path 'bing.x' starts with 'bing'" in p for p in ps), ps
    assert len(ps) == 3, ps
