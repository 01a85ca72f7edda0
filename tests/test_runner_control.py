"""Steering a run from another thread: pause, single step, cancel, take-over, annotations, a hard kill."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from guilens.config import Settings
from guilens.control import Cancelled, QuestionChannel, RunControl
from guilens.episode import EpisodeReader
from guilens.run.engine import Runner
from guilens.run.plan import plan_run
from tests.runner_helpers import Events, read_steps, write_scenarios

SLOW = "tests.runner_helpers:SlowOracle"
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    return write_scenarios(tmp_path)


def _start(target: str, tmp_path: Path, control: RunControl, channel: QuestionChannel | None = None,
           agent: str = SLOW, **kw):
    ev = Events()
    plan = plan_run(target, agent=agent, devices=["sim"], out=tmp_path / "runs", settings=Settings(), **kw)
    runner = Runner(plan, observers=[ev], control=control, channel=channel)
    box: dict[str, object] = {}
    thread = threading.Thread(target=lambda: box.setdefault("result", runner.run()), daemon=True)
    thread.start()
    return runner, ev, thread, box


def _wait(cond, timeout: float = 20.0) -> None:
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise AssertionError("timed out waiting")
        time.sleep(0.02)


def test_pause_single_step_and_resume(files, tmp_path):
    control = RunControl(paused=True)
    runner, ev, thread, box = _start(f"{files[0]}:budget", tmp_path, control)
    _wait(lambda: "on_state" in ev.names())
    time.sleep(0.4)
    assert ev.of("on_step") == [] and ev.of("on_state")[0][1:] == ("paused",)
    control.step_once()
    _wait(lambda: len(ev.of("on_step")) == 1)
    time.sleep(0.6)  # held again after exactly one step
    assert len(ev.of("on_step")) == 1 and thread.is_alive()
    control.step_once()
    _wait(lambda: len(ev.of("on_step")) == 2)
    control.resume()
    thread.join(20)
    assert box["result"].tasks["budget"].status == "success"
    assert len(ev.of("on_step")) == 3


def test_cancel_stops_within_a_step_and_leaves_a_complete_record(files, tmp_path):
    control = RunControl()
    runner, ev, thread, box = _start(str(files[0]), tmp_path, control)
    _wait(lambda: len(ev.of("on_step")) >= 2)
    control.cancel()
    thread.join(10)
    assert not thread.is_alive()
    result = box["result"]
    assert result.cancelled and list(result.tasks) == ["grocery"]  # the next task never started
    ep = result.tasks["grocery"].attempts[0]
    assert ep.status == "aborted" and ep.error == "cancelled"
    reader = EpisodeReader(result.run_dir / "grocery" / "attempt-1")
    assert reader.episode.status == "aborted" and 2 <= len(reader) <= 3
    assert reader.episode.final_screen and reader.screen(len(reader)) is not None
    assert json.loads((result.run_dir / "run.json").read_text())["status"] == "cancelled"


def test_cancel_withdraws_a_pending_question(files, tmp_path):
    control, channel = RunControl(), QuestionChannel()
    events: list[str] = []
    channel.on_change(lambda req, event: events.append(f"{req.kind}:{event}"))
    runner, ev, thread, box = _start(f"{files[0]}:grocery", tmp_path, control, channel, agent="oracle",
                                     user="human", level="L2")
    _wait(lambda: channel.pending())
    (req,) = channel.pending()
    assert req.kind == "question" and req.suggestion == "milk"
    control.cancel()
    thread.join(10)
    assert events == ["question:opened", "question:withdrawn"]
    assert box["result"].tasks["grocery"].attempts[0].status == "aborted"


def test_human_user_answers_through_the_channel(files, tmp_path):
    control, channel = RunControl(), QuestionChannel()
    channel.on_change(lambda req, event: event == "opened" and channel.answer(req.id, "It's milk."))
    runner, ev, thread, box = _start(f"{files[0]}:grocery", tmp_path, control, channel, agent="oracle",
                                     user="human", level="L1")
    thread.join(20)
    result = box["result"]
    assert result.tasks["grocery"].status == "success"
    (ask_step,) = [s for s in read_steps(result.run_dir / "grocery" / "attempt-1") if s["ask"]]
    assert ask_step["ask"] == {"question": "What should the note say?", "answer": "It's milk.",
                               "answered_by": "human", "suggested": "milk", "usage": None, "llm_calls": []}


def test_take_over_and_hand_back(files, tmp_path):
    control, channel = RunControl(), QuestionChannel()
    typed = iter(["tap Budgte", 'tap "Budget"'])  # a typo is asked again, not a step

    prompts: list[str] = []

    def person(req, event):
        if event == "opened" and req.kind == "action":
            prompts.append(req.text)
            channel.answer(req.id, next(typed))

    channel.on_change(person)
    ev = Events()
    plan = plan_run(f"{files[0]}:budget", agent="tests.runner_helpers:SlowOracle", devices=["sim"],
                    out=tmp_path / "runs", settings=Settings())
    runner = Runner(plan, observers=[ev], control=control, channel=channel)
    original = ev.__getattr__("on_step")

    def on_step(episode, step):  # after the agent's first step, a person takes the controls for one step
        original(episode, step)
        if step.index == 0:
            control.take_over(True)
        elif step.index == 1:
            control.take_over(False)

    ev.on_step = on_step  # type: ignore[method-assign]
    result = runner.run()
    steps = read_steps(result.run_dir / "budget" / "attempt-1")
    # the person did the oracle's next step (tap Budget): it counts it as played and answers
    assert [s["by"] for s in steps] == ["agent", "human", "agent"]
    assert len(prompts) == 2 and "no element on this screen matches 'Budgte'" in prompts[1]
    assert steps[1]["action"]["type"] == "tap" and steps[1]["target"]["label"].startswith("Budget")
    assert steps[1]["device_result"] == "opened note 'Budget'"
    assert steps[2]["action"] == {"type": "answer", "text": "42 dollars"}
    assert steps[2]["memory"]["stm"][-1] == "a person took over: tap \"Budget\": opened note 'Budget'"
    ep = result.tasks["budget"].attempts[0]
    assert ep.human_steps == 1 and ep.status == "success"


def test_handing_back_while_the_runner_waits_for_the_person(files, tmp_path):
    control, channel = RunControl(), QuestionChannel()
    events: list[str] = []

    def person(req, event):
        events.append(f"{req.kind}:{event}")
        if event == "opened" and req.kind == "action":
            control.take_over(False)  # the person changes their mind without making a move

    channel.on_change(person)
    control.take_over(True)
    plan = plan_run(f"{files[0]}:budget", agent="oracle", devices=["sim"], out=tmp_path / "runs", settings=Settings())
    result = Runner(plan, control=control, channel=channel).run()
    steps = read_steps(result.run_dir / "budget" / "attempt-1")
    assert events[:2] == ["action:opened", "action:withdrawn"]
    assert steps and all(s["by"] == "agent" for s in steps)
    assert result.tasks["budget"].status == "success"


def test_annotations_mark_steps_and_milestones(files, tmp_path):
    control = RunControl()
    runner, ev, thread, box = _start(f"{files[0]}:budget", tmp_path, control)
    _wait(lambda: len(ev.of("on_step")) >= 1)
    control.pause()
    time.sleep(0.5)
    assert runner.annotate("looks right")
    control.resume()
    thread.join(20)
    result = box["result"]
    reader = EpisodeReader(result.run_dir / "budget" / "attempt-1")
    marked = [s for s in reader.steps if s.annotations]
    assert len(marked) == 1 and marked[0].annotations == ["looks right"]


def test_sigkill_leaves_a_readable_episode(files, tmp_path):
    out = tmp_path / "runs"
    env = dict(os.environ, GUILENS_CONFIG_FILE=str(tmp_path / "none.toml"), PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-m", "guilens", "run", f"{files[0]}:grocery", "--agent", SLOW, "--headless",
         "--out", str(out)],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    try:
        def steps_written() -> int:
            found = list(out.glob("*/grocery/attempt-1/steps.jsonl"))
            return len(found[0].read_text().splitlines()) if found else 0

        _wait(lambda: steps_written() >= 3 or proc.poll() is not None, timeout=60)
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    (attempt,) = out.glob("*/grocery/attempt-1")
    reader = EpisodeReader(attempt)
    assert reader.episode.status == "interrupted" and reader.interrupted
    assert len(reader) >= 3
    for i, step in enumerate(reader.steps):
        assert step.index == i and reader.screen(i) is not None
    run_json = json.loads((attempt.parent.parent / "run.json").read_text())
    assert run_json["status"] == "running"


class FlakyPhone:
    """A real sim whose link drops once, on the second action (as an unplugged cable would)."""

    def __init__(self) -> None:
        from guilens.device.sim import SimDevice

        self._sim = SimDevice()
        self.name = "sim"
        self.acts = 0

    def __getattr__(self, name):
        return getattr(self._sim, name)

    def act(self, action):
        from guilens.device.base import DeviceDisconnected

        self.acts += 1
        if self.acts == 2:
            raise DeviceDisconnected("adb:FAKE went away", fix="plug it back in")
        return self._sim.act(action)


class PickyPhone(FlakyPhone):
    """A phone that cannot open apps by name (some launchers cannot)."""

    def act(self, action):
        from guilens.device.base import UnsupportedAction

        if action.type == "open_app":
            raise UnsupportedAction("adb:FAKE cannot open apps by name", fix="tap the launcher icon")
        return self._sim.act(action)


def test_an_action_the_phone_refuses_is_an_error_step(files, tmp_path):
    plan = plan_run(f"{files[0]}:budget", devices=[PickyPhone()], out=tmp_path / "runs", settings=Settings())
    result = Runner(plan).run()
    ep = result.tasks["budget"].attempts[0]
    steps = read_steps(result.run_dir / "budget" / "attempt-1")
    assert steps[0]["error"] == "adb:FAKE cannot open apps by name (tap the launcher icon)"
    assert "rejected (adb:FAKE cannot open apps by name" in steps[1]["memory"]["stm"][0]  # the agent was told
    assert ep.status == "failure"  # the oracle cannot go on from the launcher, and says so


RESET_YAML = """\
id: realish
device: any
tasks:
  - id: broken-reset
    apps: [settings]
    reset: ["pm clear com.nope"]
    instruction: {L0: "Go to the home screen."}
    difficulty: 1
    golden_steps: 1
    reference: [home]
  - id: fine
    apps: [settings]
    instruction: {L0: "Go to the home screen."}
    difficulty: 1
    golden_steps: 1
    reference: [home]
"""


class RealishPhone:
    """A phone the way adb looks to the runner: no sim setup, reset by shell steps, no snapshots."""

    def __init__(self) -> None:
        from guilens.device.sim import SimDevice

        self._sim = SimDevice()
        self.name = "adb:FAKE"
        self.resets: list[list[str]] = []

    def __getattr__(self, name):
        if name in ("load_setup",):
            raise AttributeError(name)
        return getattr(self._sim, name)

    def reset(self, steps=None):
        from guilens.device.base import DeviceError

        self.resets.append(list(steps or []))
        if steps:
            raise DeviceError(f"reset step `{steps[0]}` failed: Unknown package")

    def snapshot(self):
        return None

    def state(self):
        return None


def test_a_task_whose_reset_fails_is_an_error_and_the_run_goes_on(tmp_path):
    path = tmp_path / "realish.yaml"
    path.write_text(RESET_YAML)
    phone = RealishPhone()
    plan = plan_run(str(path), devices=[phone], out=tmp_path / "runs", settings=Settings(), attempts=2)
    result = Runner(plan).run()
    broken, fine = result.tasks["broken-reset"], result.tasks["fine"]
    assert broken.status == "error" and len(broken.attempts) == 1
    assert broken.attempts[0].error == "device: setting up the task failed: reset step `pm clear com.nope` failed: Unknown package"
    reader = EpisodeReader(result.run_dir / "broken-reset" / "attempt-1")
    assert reader.episode.status == "error" and len(reader) == 0
    # no snapshot on a real phone: each attempt starts from the task's reset steps (none for `fine`)
    assert fine.attempts[0].device == "adb:FAKE" and phone.resets == [["pm clear com.nope"], []]
    assert fine.attempts[0].decided_by == "agent"  # a milestone without a check: rules cannot decide



def _passes(control: RunControl, device: str | None = None) -> bool:
    """Does `gate(device)` let a step through now? (It returns at once when it does, using up a single step.)"""
    if control.holds(device):
        return False
    done = threading.Event()
    threading.Thread(target=lambda: (control.gate(device), done.set()), daemon=True).start()
    assert done.wait(2), "holds() said the gate was open, but it held"
    return True


def test_the_gate_holds_the_agent_not_the_person():
    control = RunControl(paused=True)
    assert not _passes(control, "sim-1")
    control.take_over(True, device="sim-1")
    assert _passes(control, "sim-1") and _passes(control, "sim-1")  # the person's moves go through
    assert not _passes(control, "sim-2")  # the other device stays held
    control.take_over(False, device="sim-1")
    assert control.paused and not _passes(control, "sim-1")  # still paused after handing back
    control.take_over(True)  # every device
    assert control.is_human("sim-2") and _passes(control, "sim-2")
    control.take_over(False)
    assert not control.human and not _passes(control, "sim-2")
    control.resume()
    assert _passes(control, "sim-2")


def test_a_single_step_can_name_its_device():
    control = RunControl(paused=True)
    control.step_once("sim-2")
    assert not _passes(control, "sim-1") and _passes(control, "sim-2") and not _passes(control, "sim-2")
    control.step_once()  # no device: whichever comes first, once
    assert _passes(control, "sim-1") and not _passes(control, "sim-2")
    control.step_once("sim-1")
    control.pause()  # pausing again takes back steps not yet taken
    assert not _passes(control, "sim-1")
    control.cancel()
    with pytest.raises(Cancelled):
        control.gate("sim-1")
