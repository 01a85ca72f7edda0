"""What the observers are shown of the phone, and when; devices told apart by label; a person's
moves while the run is paused; a single step, a take-over and a mark aimed at one device."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageChops

from guilens.config import Settings
from guilens.control import QuestionChannel, RunControl, acting_for, current_device
from guilens.episode import EpisodeReader
from guilens.run.engine import Runner
from guilens.run.plan import plan_run
from guilens.run.workers import device_labels
from tests.runner_helpers import Events, read_steps, run, write_scenarios

SLOW = "tests.runner_helpers:SlowOracle"


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    return write_scenarios(tmp_path)


def same(a: Image.Image, b: Image.Image) -> bool:
    return a.size == b.size and ImageChops.difference(a.convert("RGB"), b.convert("RGB")).getbbox() is None


def _wait(cond: Any, timeout: float = 20.0) -> None:
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise AssertionError("timed out waiting")
        time.sleep(0.02)


def _start(target: str, tmp_path: Path, control: RunControl, channel: QuestionChannel | None = None,
           devices: list[Any] | None = None, agent: str = SLOW, **kw: Any) -> tuple[Runner, Events, threading.Thread, dict[str, Any]]:
    ev = Events()
    plan = plan_run(target, agent=agent, devices=devices or ["sim"], out=tmp_path / "runs", settings=Settings(), **kw)
    runner = Runner(plan, observers=[ev], control=control, channel=channel)
    box: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: box.setdefault("result", runner.run()), daemon=True)
    thread.start()
    return runner, ev, thread, box


def test_device_labels_number_only_names_that_repeat() -> None:
    assert device_labels(["sim"]) == ["sim"]
    assert device_labels(["sim", "sim"]) == ["sim-1", "sim-2"]
    assert device_labels(["adb:A", "sim", "adb:B"]) == ["adb:A", "sim", "adb:B"]
    assert device_labels(["sim", "sim-1", "sim"]) == ["sim-2", "sim-1", "sim-3"]  # never two alike


def test_each_screen_is_reported_once_as_soon_as_it_is_seen(files, tmp_path):
    ev = Events()
    result = run(f"{files[0]}:budget", tmp_path / "runs", observers=[ev])
    seen = [(n, a[1]) for n, a in ev.calls if n in ("on_screen", "on_step_started", "on_step")]
    compact = [(n, i if isinstance(i, int) else i.index) for n, i in seen]
    # open notes and tap Budget change the phone; the answer does not, so no screen after it
    assert compact == [
        ("on_screen", 0), ("on_step_started", 0), ("on_step", 0),
        ("on_screen", 1), ("on_step_started", 1), ("on_step", 1),
        ("on_screen", 2), ("on_step_started", 2), ("on_step", 2),
    ]
    # screen i is the one step i saw (what the record holds), and the last is the final screen
    reader = EpisodeReader(result.run_dir / "budget" / "attempt-1")
    shots = [a[2] for a in ev.of("on_screen")]
    for i, shot in enumerate(shots):
        assert same(shot, reader.screen(i)), i
    assert same(shots[-1], reader.screen(len(reader)))
    xmls = [a[3] for a in ev.of("on_screen")]
    assert "Lunch money" in xmls[2] and "Lunch money" not in xmls[0]


def test_after_a_single_step_the_new_screen_comes_before_the_next_gate(files, tmp_path):
    control = RunControl(paused=True)
    runner, ev, thread, box = _start(f"{files[0]}:budget", tmp_path, control)
    _wait(lambda: len(ev.of("on_screen")) == 1)  # a run started paused shows its phone at once
    time.sleep(0.3)
    assert ev.of("on_step_started") == []
    control.step_once()
    _wait(lambda: len(ev.of("on_screen")) == 2)
    time.sleep(0.5)
    # held at the gate again, and the phone shown is the one after the step's action
    assert [a[1] for a in ev.of("on_step_started")] == [0] and thread.is_alive()
    index, shot = ev.of("on_screen")[-1][1:3]
    assert index == 1 and same(shot, runner.devices["sim"].observe().screenshot)
    control.cancel()
    thread.join(10)


class RealPhone:
    """A real sim that says it is a real phone, whose screen may change while the run waits."""

    def __init__(self) -> None:
        from guilens.device.sim import SimDevice

        self._sim = SimDevice()
        self.name = "adb:FAKE"

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sim, name)


def test_a_real_phone_is_looked_at_again_after_a_pause(files, tmp_path):
    from guilens.actions import OpenApp

    phone = RealPhone()
    control = RunControl(paused=True)
    ev = Events()
    plan = plan_run(f"{files[0]}:budget", agent="oracle", devices=["sim"], out=tmp_path / "runs", settings=Settings())
    plan.devices = [phone]  # a sim pack on a "real" phone: the plan would refuse it, the runner need not know
    runner = Runner(plan, observers=[ev], control=control)
    thread = threading.Thread(target=runner.run, daemon=True)
    thread.start()
    _wait(lambda: len(ev.of("on_screen")) == 1)
    phone._sim.act(OpenApp(app="notes"))  # someone opened Notes by hand meanwhile
    control.resume()
    thread.join(20)
    indexes = [a[1] for a in ev.of("on_screen")]
    assert indexes[:2] == [0, 0]  # the same step's screen again: the phone moved on while paused
    assert "Lunch money" in ev.of("on_screen")[1][3] and "Lunch money" not in ev.of("on_screen")[0][3]


def test_a_person_acts_while_the_run_is_paused_and_the_run_stays_paused(files, tmp_path):
    control, channel = RunControl(paused=True), QuestionChannel()
    moves = iter(["open notes"])
    opened: list[Any] = []

    def person(req, event):
        if event == "opened" and req.kind == "action":
            opened.append(req)
            move = next(moves, None)
            if move is not None:
                channel.answer(req.id, move)

    channel.on_change(person)
    runner, ev, thread, box = _start(f"{files[0]}:budget", tmp_path, control, channel)
    _wait(lambda: len(ev.of("on_screen")) == 1)
    control.take_over(True, device="sim")
    _wait(lambda: len(ev.of("on_step")) == 1 and len(opened) == 2)  # moved, and asked for the next move
    step = ev.of("on_step")[0][1]
    assert step.by == "human" and step.action["type"] == "open_app" and control.paused
    assert opened[0].device == "sim" and opened[0].context["by"] == "human"
    _wait(lambda: len(ev.of("on_screen")) == 2)
    assert "Budget" in ev.of("on_screen")[1][3]  # the person's move shown at once
    control.take_over(False, device="sim")  # hand back: the run is still paused, so the agent waits
    time.sleep(0.8)
    assert len(ev.of("on_step")) == 1 and control.paused and thread.is_alive()
    assert ("paused",) in [a[1:] for a in ev.of("on_state")][-2:]
    assert [a[1] for a in ev.of("on_step_started")] == [0, 1]  # step 1 announced once, not again after the hold
    control.resume()
    thread.join(20)
    steps = read_steps(box["result"].run_dir / "budget" / "attempt-1")
    assert [s["by"] for s in steps] == ["human", "agent", "agent"]
    assert box["result"].tasks["budget"].status == "success"


def test_requests_name_the_device_that_asks(files, tmp_path):
    control, channel = RunControl(), QuestionChannel()
    asked: dict[str, str | None] = {}

    def user(req, event):
        if event == "opened":
            asked[req.context["task"]] = req.device
            channel.answer(req.id, "milk")

    channel.on_change(user)
    plan = plan_run(str(files[0]), agent="oracle", devices=["sim", "sim"], user="human", level="L1",
                    out=tmp_path / "runs", settings=Settings())
    result = Runner(plan, control=control, channel=channel).run()
    ran_on = {t: r.attempts[0].device for t, r in result.tasks.items()}
    assert set(ran_on.values()) == {"sim-1", "sim-2"}
    assert asked == {"grocery": ran_on["grocery"]}
    assert current_device() is None
    with acting_for("sim-9"):
        assert current_device() == "sim-9"
    assert current_device() is None


def test_a_single_step_and_a_take_over_can_aim_at_one_device(files, tmp_path):
    control, channel = RunControl(paused=True), QuestionChannel()
    runner, ev, thread, box = _start(str(files[0]), tmp_path, control, channel, devices=["sim", "sim"])
    _wait(lambda: len(ev.of("on_screen")) == 2)
    control.step_once("sim-2")
    _wait(lambda: len(ev.of("on_step")) == 1)
    time.sleep(0.8)
    assert [a[0].device for a in ev.of("on_step")] == ["sim-2"]
    control.take_over(True, device="sim-1")
    _wait(lambda: channel.pending())
    time.sleep(0.3)
    (req,) = channel.pending()
    assert req.kind == "action" and req.device == "sim-1"
    assert runner.annotate("looked here", device="sim-2")
    control.cancel()
    thread.join(10)
    result = box["result"]
    on_two = next(t for t, r in result.tasks.items() if r.attempts[0].device == "sim-2")
    reader = EpisodeReader(result.run_dir / on_two / "attempt-1")  # the last line per step counts
    assert reader.steps[0].annotations == ["looked here"]
