"""Parametric tasks: templates with typed parameters drawn from the sim's data by seed (`guilens.scenarios.params`)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from guilens.scenarios.errors import ScenarioError
from guilens.scenarios.loader import find_task, load_scenario, load_text
from guilens.scenarios.model import Scenario
from guilens.scenarios.params import (
    ParamError,
    draw_values,
    instantiate,
    one_variant,
    parse_variant,
    tasks_of,
    variant_id,
)
from guilens.scenarios.params_data import pool
from guilens.scenarios.verify import verify_scenario

pytest.importorskip("guilens.device.sim.device")

PACK_FILE = Path(__file__).parent.parent / "guilens" / "scenarios" / "builtin" / "variants.yaml"
PACK = load_scenario(PACK_FILE)

_DRAW = """\
import json, sys
from guilens.scenarios.loader import find_scenario
from guilens.scenarios.params import instantiate
s = instantiate(find_scenario("variants"), 4, int(sys.argv[1]))
print(json.dumps([[t.id, t.meta["params"]] for t in s.tasks], sort_keys=True))
"""


def _drawn(seed: int, n: int = 4) -> list[list[object]]:
    return [[t.id, t.meta["params"]] for t in instantiate(PACK, n, seed).tasks]


def test_the_same_seed_draws_the_same_variants_in_another_process() -> None:
    out = subprocess.run([sys.executable, "-c", _DRAW, "7"], capture_output=True, text=True, check=True,
                         env={"PYTHONHASHSEED": "123", "PATH": ""}).stdout
    assert json.loads(out) == json.loads(json.dumps(_drawn(7), sort_keys=True))
    assert _drawn(7) == _drawn(7)
    assert _drawn(7) != _drawn(8)


def test_variant_ids_name_template_seed_and_index() -> None:
    ids = [t.id for t in instantiate(PACK, 3, 12).tasks]
    assert ids[:3] == ["two-prices-note~s12.0", "two-prices-note~s12.1", "two-prices-note~s12.2"]
    assert parse_variant("two-prices-note~s12.2") == ("two-prices-note", 12, 2)
    assert parse_variant("two-prices-note") is None
    task = one_variant(PACK, variant_id("order-total", 12, 2))
    assert task is not None
    assert task == next(t for t in instantiate(PACK, 3, 12).tasks if t.id == "order-total~s12.2")
    scenario, found = find_task(f"{PACK_FILE}:order-total~s12.2")
    assert found == task and found.id in {t.id for t in scenario.tasks}


def test_every_template_is_filled_everywhere() -> None:
    from guilens.scenarios.model import TEMPLATE
    from guilens.scenarios.templates import strings

    for t in instantiate(PACK, 3, 4).tasks:
        slots = set(t.user.slots)
        left = {n for s in strings(t.model_dump(exclude={"meta"})) for n in TEMPLATE.findall(s)}
        assert left <= slots, (t.id, left - slots)
        for lv in t.levels:
            assert not TEMPLATE.search(t.instruction_at(lv, t.user.values)), (t.id, lv)
        assert t.meta["template"] in {x.id for x in PACK.tasks}


def test_at_least_100_distinct_tasks_at_one_seed() -> None:
    tasks = instantiate(PACK, 10, 1).tasks
    distinct = {(t.meta["template"], t.instruction_at("L0", t.user.values), json.dumps(t.meta["params"], sort_keys=True))
                for t in tasks}
    assert len(tasks) >= 100 and len(distinct) >= 100


def test_mirrors_draw_alike_and_differ_in_their_items() -> None:
    by_id = {t.id: t for t in PACK.tasks}
    pairs = [(t, by_id[t.mirror_of]) for t in PACK.tasks if t.mirror_of]
    assert len(pairs) == 5 and all(t.params for pair in pairs for t in pair)
    for a, b in pairs:
        assert [s.shape() for s in a.params.values()] == [s.shape() for s in b.params.values()], a.id
        assert sorted(a.apps) == sorted(b.apps)
    drawn = instantiate(PACK, 20, 3)
    for t in drawn.tasks:
        if t.mirror_of:
            other = drawn.task(t.mirror_of)
            assert other.meta["variant"] == t.meta["variant"]
            mine = {v for k, v in t.meta["params"].items() if k in PACK.task(t.meta["template"]).params}
            theirs = {v for k, v in other.meta["params"].items() if k in PACK.task(other.meta["template"]).params}
            assert mine != theirs, t.id


_TEMPLATE = """\
id: t
device: sim
tasks:
  - id: a
    apps: [shop]
    instruction: {{L0: "Open {{x}}."}}
    difficulty: 1
    golden_steps: 1
    params:
{params}
    milestones:
      - {{id: done, text: "open", check: {{element: "id:product_title", text: "{{x}}"}}}}
    reference: [finish]
"""


def _mirror(params: str, name: str = "x") -> str:
    """Task b, the mirror of the template's task a, drawing `params` and opening `{name}`."""
    block = textwrap.indent(textwrap.dedent(params).strip(), " " * 6)
    return (f"  - id: b\n    mirror_of: a\n    apps: [shop]\n    instruction: {{L0: \"Open {{{name}}}.\"}}\n"
            f"    difficulty: 1\n    golden_steps: 1\n    params:\n{block}\n    milestones:\n"
            f"      - {{id: done, text: \"open\", check: {{element: \"id:product_title\", text: \"{{{name}}}\"}}}}\n"
            f"    reference: [finish]\n")

def _load(params: str, extra: str = "") -> Scenario:
    return load_text(_TEMPLATE.format(params=textwrap.indent(textwrap.dedent(params), " " * 6)) + extra, "t.yaml")


def test_constraints_hold_over_many_seeds() -> None:
    s = _load("""\
        x: {type: product, max_price: 300}
        y: {type: product, distinct_from: [x], same: {category: x}, below: {price: x}}
        z: {type: product, same: {category: x}, differ: {price: x}}
        low: {lowest: {price: [x, z]}}
        n: {type: int, min: 2, max: 5}
        total: {derive: "n * x_price - y_price", format: money}
        c: {type: contact, has: [company]}
        d: {type: date, min: 2026-01-01, max: 2026-01-31}
        when: {type: time, min: "08:00", max: "10:00", step: 30}
        pick: {type: choice, of: [red, green]}
    """)
    products = {p["name"]: p for p in pool("product")}
    contacts = {c["name"]: c for c in pool("contact")}
    task = s.tasks[0]
    for seed in range(40):
        for v in draw_values(s, task, seed, 5):
            x, y, z = products[v["x"]], products[v["y"]], products[v["z"]]
            assert x["price"] <= 300 and v["x"] != v["y"]
            assert y["category"] == x["category"] == z["category"]
            assert y["price"] < x["price"] and z["price"] != x["price"]
            assert v["low"] == (x if x["price"] < z["price"] else z)["name"]
            assert v["low_price"] == f"{min(x['price'], z['price']):.2f}"
            assert 2 <= int(v["n"]) <= 5
            assert v["total"] == f"{int(v['n']) * x['price'] - y['price']:.2f}"
            assert contacts[v["c"]]["company"] and v["c_phone"] == contacts[v["c"]]["phone"]
            assert "2026-01-01" <= v["d"] <= "2026-01-31" and v["d_weekday"]
            assert v["when"] in ("08:00", "08:30", "09:00", "09:30", "10:00") and v["pick"] in ("red", "green")


def _problem(params: str, extra: str = "") -> str:
    with pytest.raises(ScenarioError) as err:
        _load(params, extra)
    assert len(err.value.problems) == 1, err.value.problems
    return str(err.value.problems[0])


def test_bad_templates_get_one_line_each() -> None:
    assert "'gadget'" in _problem("x: {type: gadget}")
    line = _problem("x: {type: product, category: No Such Aisle, max_price: 5}")
    assert "no product in category 'No Such Aisle' under $5 in the sim's catalogue" in line and "\n" not in line
    line = _problem("""\
        x: {type: product}
        y: {type: product, distinct_from: [x], same: {id: x}}
    """)
    assert "'y'" in line and "no draw" in line and "same id as x" in line
    assert "'w' is not a parameter declared before 'x'" in _problem("x: {type: product, distinct_from: [w]}")
    line = _problem("x: {type: product}", extra="    user: {slots: {s: {value: \"{nope}\"}}}\n")
    assert "{nope} is neither a parameter nor a user slot" in line
    line = _problem("x: {type: product}\ntotal: {derive: \"x_price * q\"}")
    assert "q: not a parameter declared before 'total'" in line


def test_a_constraint_against_a_derived_value_or_a_pick_is_a_problem_not_a_crash() -> None:
    """The draw tests a constraint against what it has drawn so far; derived values and picks
    are settled after it, so a constraint naming one is refused at load with its parameter."""
    line = _problem("""\
        x: {type: int, min: 1, max: 3}
        twice: {derive: "x * 2"}
        m: {type: int, min: 1, max: 9, differ: {name: twice}}
    """)
    assert "'m' is constrained against 'twice', a derived value" in line and "\n" not in line
    line = _problem("""\
        x: {type: product}
        y: {type: product, distinct_from: [x]}
        low: {lowest: {price: [x, y]}}
        z: {type: product, distinct_from: [low]}
    """)
    assert "'z' is constrained against 'low', a pick" in line


def test_an_undeclared_name_in_the_instruction() -> None:
    text = _TEMPLATE.format(params="      x: {type: product}").replace('Open {x}.', 'Open {x} for {whom}.')
    with pytest.raises(ScenarioError) as err:
        load_text(text, "t.yaml")
    assert any("{whom} is neither a parameter, a user slot" in p for p in err.value.problems)


def test_mirrors_that_draw_differently_are_refused() -> None:
    text = _TEMPLATE.format(params="      x: {type: product}") + _mirror("x: {type: contact}")
    with pytest.raises(ScenarioError) as err:
        load_text(text, "t.yaml")
    assert any("a mirror draws the same kinds of parameters" in p for p in err.value.problems)


def test_counts_and_seeds_out_of_range() -> None:
    with pytest.raises(ParamError, match=r"--variants 0: give 1 to 1000"):
        instantiate(PACK, 0, 1)
    with pytest.raises(ParamError, match=r"--seed -1"):
        instantiate(PACK, 1, -1)


def test_variants_verify_at_every_level() -> None:
    drawn = instantiate(PACK, 2, 5)
    verdicts = verify_scenario(drawn)
    assert len(verdicts) == 20
    bad = {v.task: [f"{f.name}: {f.detail}" for f in v.findings if not f.ok] for v in verdicts if not v.ok}
    assert not bad, bad
    names = {f.name for v in verdicts for f in v.findings}
    assert {"reference at L1", "reference at L2", "reference at L0", "golden steps"} <= names
    only_l1 = verify_scenario(drawn, tasks_of(drawn, "order-total")[0].id, "L1")
    assert {f.name for f in only_l1[0].findings} >= {"reference at L1"}
    assert "reference at L2" not in {f.name for f in only_l1[0].findings}


def test_drawn_values_reach_the_setup_and_the_users_slots() -> None:
    s = _load("x: {type: product}\nc: {type: contact}",
              extra='    setup: {apps: {notes: {notes: [{title: "To ask {c}", body: "{x}"}]}}}\n'
                    '    user: {slots: {item: {value: "{x}"}}}\n')
    v = instantiate(s, 1, 3).tasks[0]
    params = v.meta["params"]
    assert v.setup["apps"]["notes"]["notes"][0] == {"title": f"To ask {params['c']}", "body": params["x"]}
    assert v.user.values["item"] == params["x"]


def test_scenarios_show_and_list_name_templates_and_variants(tmp_path, monkeypatch) -> None:
    from typer.testing import CliRunner

    from guilens.cli import app

    monkeypatch.setenv("GUILENS_CONFIG_FILE", str(tmp_path / "none.toml"))
    cli = CliRunner()
    shown = cli.invoke(app, ["scenarios", "show", "variants:open-cheaper"]).output
    assert "template: run with --variants N --seed S" in shown
    assert "cheaper: the one of first, second with the lowest price" in shown
    assert "e.g. open-cheaper~s0.0: In the Shop app, compare the prices of the \"" in shown
    one = cli.invoke(app, ["scenarios", "show", "variants:open-cheaper~s3.2"])
    assert one.exit_code == 0 and "variant 2 of template open-cheaper at seed 3" in one.output
    task = next(t for t in instantiate(PACK, 3, 3).tasks if t.id == "open-cheaper~s3.2")
    assert f"L0, filled: {task.instruction_at('L0', task.user.values)}" in one.output
    listed = json.loads(cli.invoke(app, ["scenarios", "list", "--json"]).output)
    assert next(s for s in listed if s["id"] == "variants")["templates"] == [t.id for t in PACK.tasks]
    bad = cli.invoke(app, ["scenarios", "verify", "variants", "--variants", "0"])
    assert bad.exit_code == 2 and "--variants 0: give 1 to 1000" in bad.output and "Traceback" not in bad.output


def test_a_mirror_never_draws_its_partners_items() -> None:
    """Two values to draw from: without steering clear, about half the pairs would coincide."""
    mirror = _mirror("y: {type: choice, of: [Alpha, Beta]}", name="y")
    text = _TEMPLATE.format(params="      x: {type: choice, of: [Alpha, Beta]}") + mirror
    s = load_text(text, "t.yaml")
    drawn = instantiate(s, 20, 5)
    pairs = [(t.meta["params"]["x"], drawn.task(f"b~s5.{t.meta['variant']}").meta["params"]["y"])
             for t in drawn.tasks if t.meta["template"] == "a"]
    assert len(pairs) == 20 and all(x != y for x, y in pairs)
    assert {x for x, _ in pairs} == {"Alpha", "Beta"}


def test_a_mirror_of_a_template_with_a_bad_block_is_checked_without_drawing_it() -> None:
    """Checking a mirror draws its partner too (to steer clear of its items); a partner whose block
    has problems is reported on its own, and not drawn for the mirror."""
    mirror = _mirror("x: {type: product}\ny: {type: product, distinct_from: [x]}")
    text = _TEMPLATE.format(params="      x: {type: product}\n      y: {type: product, distinct_from: [w]}") + mirror
    with pytest.raises(ScenarioError) as err:
        load_text(text, "t.yaml")
    assert [p for p in err.value.problems if "'w' is not a parameter declared before 'y'" in p]
    assert all("\n" not in p and "KeyError" not in p for p in err.value.problems), err.value.problems
