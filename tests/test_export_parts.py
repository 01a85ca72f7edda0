"""The parts of `from-episode`: elements named as touched, swipes replayed, take-overs, refusals.

Taps and swipes are checked on real simulated-phone screens: the selector a
step is written with must make the reference player touch the very node the
recorded pixels hit, and a written swipe must leave the phone as the recorded
one did.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from runner_helpers import Events, read_steps, run, write_scenarios
from typer.testing import CliRunner

from guilens.actions import KeyPress, OpenApp, Swipe, Tap, Type
from guilens.device.sim import SimDevice
from guilens.episode import Step
from guilens.export.path import action_step
from guilens.export.targets import hit_node, plays_on
from guilens.run.resolve import resolve_action
from guilens.scenarios.loader import find_scenario


def _step(action: Any, target: dict[str, Any] | None = None) -> Step:
    now = datetime.now()
    return Step(index=0, started_at=now, ended_at=now, action=action.model_dump(exclude_none=True), target=target)


def _tap(dev: SimDevice, selector: str) -> None:
    action, _ = resolve_action(Tap(target=selector), dev.observe())
    dev.act(action)


@pytest.fixture
def shop_results() -> SimDevice:
    """The Shop's results for the Brooks Ghost 15: one card holding its name, brand, rating and price."""
    dev = SimDevice(setup=find_scenario("memory").setup)
    dev.act(OpenApp(app="shop"))
    _tap(dev, "id:search_box")
    dev.act(Type(text="Brooks Ghost 15"))
    dev.act(KeyPress(key="enter"))
    return dev


def test_a_tap_keeps_the_selector_the_actor_named(shop_results: SimDevice) -> None:
    obs = shop_results.observe()
    action, target = resolve_action(Tap(target="id:product_name"), obs)
    assert action_step(_step(action, target), obs.ui, obs.size) == {"tap": {"id": "product_name"}}


def test_a_tap_by_pixels_names_the_node_it_landed_on_and_finds_it_first(shop_results: SimDevice) -> None:
    obs = shop_results.observe()
    assert obs.ui is not None
    brand = next(n for n in obs.ui.iter() if n.short_id == "product_brand")
    x, y = brand.center  # on the brand's text, inside the card: the card takes the tap
    data = action_step(_step(Tap(x=x, y=y)), obs.ui, obs.size)
    card = hit_node(obs.ui, x, y)
    assert card is not None and card.short_id != "product_brand"
    assert "index" not in str(data) and plays_on(obs.ui, data["tap"]) is card


def test_a_tap_on_a_rows_title_names_the_row_not_the_title() -> None:
    dev = SimDevice()
    dev.act(OpenApp(app="settings"))
    obs = dev.observe()
    assert obs.ui is not None
    title = next(n for n in obs.ui.iter() if n.short_id == "dark_mode_title")
    assert action_step(_step(Tap(x=title.center[0], y=title.center[1])), obs.ui, obs.size) == {"tap": {"id": "dark_mode"}}


def test_a_tap_on_nothing_is_explained() -> None:
    from guilens.export.path import PathError

    dev = SimDevice()
    dev.act(OpenApp(app="settings"))
    obs = dev.observe()
    with pytest.raises(PathError, match=r"step 1: nothing at \(5, 5\) takes a tap"):
        action_step(_step(Tap(x=5, y=5)), obs.ui, obs.size)


@pytest.mark.parametrize("swipe", [
    Swipe(x1=540, y1=1200, x2=540, y2=480),  # `scroll down`: the finger up 30% of the screen
    Swipe(x1=300, y1=2200, x2=310, y2=1900),  # low on the list, a short way
    Swipe(x1=540, y1=500, x2=540, y2=1500),  # the finger down
    Swipe(x1=540, y1=440, x2=540, y2=2040),  # so far down that a swipe from mid-screen would miss the list
    Swipe(x1=900, y1=1200, x2=100, y2=1210),  # sideways
    Swipe(x1=540, y1=338, x2=550, y2=348),  # a few pixels on the search box: the phone takes it as a tap
])
def test_a_written_swipe_moves_the_phone_as_the_recorded_one(swipe: Swipe) -> None:
    from guilens.scenarios.model import Task
    from guilens.scenarios.reference import ReferencePlayer

    dev = SimDevice(setup=find_scenario("memory").setup)
    dev.act(OpenApp(app="shop"))
    dev.act(Swipe(x1=540, y1=2000, x2=540, y2=800))  # part way down the home page, so both ways move
    snap = dev.snapshot()
    obs = dev.observe()
    data = action_step(_step(swipe), obs.ui, obs.size)
    dev.act(swipe)
    want = dev.observe().ui_xml
    dev.restore(snap)
    task = Task.model_validate({"id": "t", "apps": ["shop"], "instruction": {"L0": "x"}, "difficulty": 1,
                                "golden_steps": 1, "reference": [data]})
    ra = ReferencePlayer(task).next_step(dev.observe())
    assert ra is not None
    dev.act(ra.action)
    assert dev.observe().ui_xml == want, data


def _export(episode: Path, out: Path, *extra: str) -> tuple[int, str]:
    from guilens.cli import app

    res = CliRunner().invoke(app, ["scenarios", "from-episode", str(episode), "--out", str(out), *extra])
    return res.exit_code, res.output


def test_a_take_over_exports_the_agents_and_the_persons_steps(tmp_path: Path) -> None:
    from guilens.config import Settings
    from guilens.control import QuestionChannel, RunControl
    from guilens.run.engine import Runner
    from guilens.run.plan import plan_run

    pack, _ = write_scenarios(tmp_path)
    control, channel = RunControl(), QuestionChannel()
    channel.on_change(lambda req, event: event == "opened" and req.kind == "action"
                      and channel.answer(req.id, 'tap "Budget"'))
    ev = Events()
    plan = plan_run(f"{pack}:budget", agent="tests.runner_helpers:SlowOracle", devices=["sim"],
                    out=tmp_path / "runs", settings=Settings())
    runner = Runner(plan, observers=[ev], control=control, channel=channel)
    original = ev.__getattr__("on_step")

    def on_step(episode: Any, step: Any) -> None:  # the person does the second step
        original(episode, step)
        control.take_over(step.index == 0)

    ev.on_step = on_step  # type: ignore[method-assign]
    result = runner.run()
    episode = result.run_dir / "budget" / "attempt-1"
    assert [s["by"] for s in read_steps(episode)] == ["agent", "human", "agent"]
    code, output = _export(episode, tmp_path / "b.yaml")
    assert code == 0, output
    assert "task 'budget-human': 3 golden steps, 1 milestone" in output and "verified: 1/1" in output
    task = yaml.safe_load((tmp_path / "b.yaml").read_text())["tasks"][0]
    assert task["meta"]["baseline"]["by"] == "slow and a person (1 of 3 steps)"
    assert task["reference"][1] == {"tap": "Budget"}


def test_steps_the_phone_refused_are_left_out_with_a_warning(tmp_path: Path) -> None:
    pack, _ = write_scenarios(tmp_path)
    result = run(f"{pack}:budget", tmp_path / "runs", agent="tests.runner_helpers:BadActionAgent")
    episode = result.run_dir / "budget" / "attempt-1"
    code, output = _export(episode, tmp_path / "b.yaml")
    assert code == 0, output
    assert "warning: left out of the reference: step 1:" in output and "step 2:" in output
    assert "task 'budget-bad': 3 golden steps" in output and "verified: 1/1" in output


def test_a_failed_episode_is_not_a_golden_path(tmp_path: Path) -> None:
    pack, _ = write_scenarios(tmp_path)
    result = run(f"{pack}:budget", tmp_path / "runs", agent="tests.runner_helpers:FlakyAgent")
    episode = result.run_dir / "budget" / "attempt-1"
    code, output = _export(episode, tmp_path / "b.yaml")
    assert code == 2 and "ended 'failure'; only a successful episode is a golden path" in output
    assert not (tmp_path / "b.yaml").exists()


def test_a_file_that_is_not_an_episode_gets_one_line(tmp_path: Path) -> None:
    code, output = _export(tmp_path, tmp_path / "x.yaml")
    assert code == 2 and output.count("\n") == 1 and "episode.json" in output


def test_a_mark_on_one_of_the_tasks_milestones_is_that_milestone_at_the_step_its_check_holds(tmp_path: Path) -> None:
    from guilens.config import Settings
    from guilens.control import QuestionChannel
    from guilens.run.engine import Runner
    from guilens.run.plan import plan_run

    pack, _ = write_scenarios(tmp_path)
    channel = QuestionChannel()
    commands = iter(["open notes", 'tap "New note"', "type Groceries", 'tap "id:body"', "type milk", "tap Save",
                     "finish"])
    plan = plan_run(f"{pack}:grocery", agent="human", devices=["sim"], out=tmp_path / "runs", settings=Settings())
    runner = Runner(plan, channel=channel)
    answered = 0

    def person(req: Any, event: str) -> None:
        nonlocal answered
        if event == "opened" and req.kind == "action":
            if answered == 5:  # milk typed, not saved yet: the person says "saved" one step early
                runner.annotate("saved")
            answered += 1
            channel.answer(req.id, next(commands))

    channel.on_change(person)
    episode = runner.run().run_dir / "grocery" / "attempt-1"
    code, output = _export(episode, tmp_path / "g.yaml")
    assert code == 0, output
    assert "task 'grocery-human': 7 golden steps, 2 milestones\n" in output  # no milestone added
    assert "mark 'saved' at step 5: its check first holds at step 6, which is its golden step" in output
    task = yaml.safe_load((tmp_path / "g.yaml").read_text())["tasks"][0]
    assert [(m["id"], m["golden_step"]) for m in task["milestones"]] == [("editor", 2), ("saved", 6)]
