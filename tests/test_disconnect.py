"""A phone that goes away mid-run, on the real simulated phone behind a link that drops: the run
waits, goes on by itself or on the resume key, records the gap on the step, repeats only what is
safe to repeat, and gives up after `disconnect_wait_s` (the attempt `error`, the tasks left not run,
run.json and the exit status saying so). The same through the real adb server and the ADB bridge
is in test_disconnect_adb.py."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from guilens.commands.run import exit_status
from guilens.config import ConfigError, Settings, load_settings
from guilens.control import RunControl
from guilens.device.base import DeviceDisconnected
from guilens.headless import HeadlessObserver, step_line
from guilens.run.engine import Runner
from guilens.run.plan import plan_run
from tests.runner_helpers import Events, read_steps, write_scenarios

pytestmark = pytest.mark.timeout(90)  # a run that never resumes fails here, not after the suite's 300 s


class GonePhone:
    """The real sim behind a link that drops: call number `cut_at` of `method` raises
    `DeviceDisconnected`, and the phone stays gone for `gone_s` seconds (every call raises; `alive()`
    says False). `performed`: what the error says about the cut call; `done_first`: the sim carried
    the cut call out before the link broke (a tap that happened, its answer lost)."""

    def __init__(self, *, method: str = "act", cut_at: int = 2, gone_s: float = 0.6,
                 performed: bool | None = False, done_first: bool = False, with_alive: bool = True) -> None:
        from guilens.device.sim import SimDevice

        self._sim = SimDevice()
        self.name = "sim"  # the scenario is for the sim: its checks read the app state
        self.method, self.cut_at, self.gone_s = method, cut_at, gone_s
        self.performed, self.done_first = performed, done_first
        self.calls: dict[str, int] = {}
        self.acts: list[Any] = []
        self.back_at: float | None = None
        if not with_alive:
            self.alive = None  # type: ignore[assignment]

    def __getattr__(self, name: str) -> Any:
        target = getattr(self._sim, name)
        if not callable(target) or name.startswith("_"):
            return target

        def call(*args: Any) -> Any:
            self._check(name, lambda: target(*args))
            return target(*args)

        return call

    def _gone(self) -> bool:
        return self.back_at is not None and (self.back_at == float("inf") or time.monotonic() < self.back_at)

    def _check(self, name: str, do: Any) -> None:
        if self._gone():
            raise DeviceDisconnected(f"{self.name} disconnected while {name} (now offline)", performed=False)
        n = self.calls[name] = self.calls.get(name, 0) + 1
        if name == self.method and n == self.cut_at:
            if self.done_first:
                do()
            self.back_at = time.monotonic() + self.gone_s
            raise DeviceDisconnected(f"{self.name} disconnected while {name} (now offline)",
                                     fix="reconnect the phone", performed=self.performed)

    def act(self, action: Any) -> str:
        self._check("act", lambda: self._sim.act(action))
        self.acts.append(action)
        return str(self._sim.act(action))

    def observe(self) -> Any:
        self._check("observe", lambda: None)
        return self._sim.observe()

    def alive(self) -> bool:
        return not self._gone()


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    return write_scenarios(tmp_path)


def _runner(target: str, tmp_path: Path, phone: Any, *, wait_s: float = 20.0, **kw: Any) -> tuple[Runner, Events]:
    ev = Events()
    plan = plan_run(target, devices=[phone], out=tmp_path / "runs", settings=Settings())
    return Runner(plan, observers=[ev, *kw.pop("observers", [])], disconnect_wait_s=wait_s, **kw), ev


def _in_thread(runner: Runner) -> tuple[threading.Thread, dict[str, Any]]:
    box: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: box.setdefault("r", runner.run()), daemon=True)
    thread.start()
    return thread, box


def _wait(cond: Any, timeout: float = 20.0) -> None:
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise AssertionError("timed out waiting")
        time.sleep(0.02)


def _states(ev: Events) -> list[str]:
    return [a[1] for a in ev.of("on_state")]


def test_a_phone_back_by_itself_resumes_the_run_and_the_step_shows_the_gap(files, tmp_path):
    phone = GonePhone(cut_at=2, gone_s=0.6)  # the tap on Budget never reached the phone
    control = RunControl()
    runner, ev = _runner(f"{files[0]}:budget", tmp_path, phone, control=control)
    result = runner.run()
    ep = result.tasks["budget"].attempts[0]
    assert ep.status == "success" and ep.steps == 3 and ep.error is None
    assert [a.type for a in phone.acts] == ["open_app", "tap"]  # the tap was made again, once
    steps = read_steps(result.run_dir / "budget" / "attempt-1")
    gapped = [s for s in steps if s["gaps"]]
    assert [s["index"] for s in gapped] == [1]
    (gap,) = gapped[0]["gaps"]
    assert gap["outcome"] == "back" and gap["retried"] is True and gap["on_key"] is False
    assert gap["during"] == "act" and "disconnected while act" in gap["message"]
    assert 0.5 <= gap["seconds"] < 5
    assert gapped[0]["timings"]["device_s"] >= gap["seconds"]  # the wait is the phone's time
    states = _states(ev)
    assert states.index("disconnected") < len(states) - 1 - states[::-1].index("running")
    assert not control.paused  # it was the wait that paused the run, so it resumed it
    assert json.loads((result.run_dir / "run.json").read_text())["status"] == "completed"
    assert exit_status(result) == 0


def test_an_action_that_may_have_reached_the_phone_is_not_repeated(files, tmp_path):
    phone = GonePhone(cut_at=2, gone_s=0.3, performed=None, done_first=True)  # the tap happened, its answer lost
    runner, _ = _runner(f"{files[0]}:budget", tmp_path, phone)
    result = runner.run()
    ep = result.tasks["budget"].attempts[0]
    assert ep.status == "success"
    assert [a.type for a in phone.acts] == ["open_app"]  # the cut tap was not sent again
    step = read_steps(result.run_dir / "budget" / "attempt-1")[1]
    assert step["device_result"].startswith("unknown: the phone went away while acting")
    assert step["gaps"][0]["retried"] is False


def test_the_resume_key_asks_the_phone_at_once(files, tmp_path):
    phone = GonePhone(method="observe", cut_at=3, gone_s=1000, with_alive=False)  # it cannot tell it is back
    control = RunControl()
    runner, ev = _runner(f"{files[0]}:budget", tmp_path, phone, control=control)
    thread, box = _in_thread(runner)
    _wait(lambda: "disconnected" in _states(ev))
    time.sleep(0.5)
    assert control.paused and thread.is_alive()
    phone.back_at = 0  # plugged back in; nothing tells the run but the person
    control.resume()
    thread.join(20)
    result = box["r"]
    assert result.tasks["budget"].attempts[0].status == "success"
    gaps = [g for s in read_steps(result.run_dir / "budget" / "attempt-1") for g in s["gaps"]]
    assert len(gaps) == 1 and gaps[0]["on_key"] is True and gaps[0]["during"] == "observe"


def test_resuming_while_the_phone_is_still_gone_keeps_waiting(files, tmp_path):
    phone = GonePhone(method="observe", cut_at=2, gone_s=1000)
    control = RunControl()
    runner, ev = _runner(f"{files[0]}:budget", tmp_path, phone, control=control)
    thread, box = _in_thread(runner)
    _wait(lambda: "disconnected" in _states(ev))
    control.resume()  # the person hopes; the phone is not back
    _wait(lambda: _states(ev).count("disconnected") == 2)
    assert control.paused and thread.is_alive()
    assert "still does not answer" in (runner.current.episode.error or "")  # type: ignore[union-attr]
    phone.back_at = 0  # now it is: the run notices by itself
    thread.join(20)
    assert box["r"].tasks["budget"].attempts[0].status == "success" and not control.paused


def test_a_phone_that_never_comes_back_ends_the_remaining_tasks_error(files, tmp_path):
    phone = GonePhone(cut_at=2, gone_s=float("inf"))
    runner, ev = _runner(str(files[0]), tmp_path, phone, wait_s=0.8)
    t0 = time.monotonic()
    result = runner.run()
    assert time.monotonic() - t0 < 30  # one wait, not one per task
    first, *rest = result.tasks.values()
    ep = first.attempts[0]
    assert ep.status == "error" and "did not come back within 0.8 s" in (ep.error or "")
    steps = read_steps(result.run_dir / first.task / "attempt-1")
    assert ep.steps == len(steps) == 2  # the step in flight is kept, with why it stopped
    assert steps[-1]["gaps"][0]["outcome"] == "lost" and "did not come back" in steps[-1]["error"]
    assert rest and all(r.status == "error" and r.attempts[0].steps == 0 for r in rest)
    assert all("the phone is gone" in (r.attempts[0].error or "") for r in rest)
    data = json.loads((result.run_dir / "run.json").read_text())
    assert data["status"] == "error"
    assert any("did not come back within 0.8 s" in w and "no more tasks" in w for w in data["warnings"])
    assert exit_status(result) == 1
    assert "disconnected" in _states(ev) and "running" not in _states(ev)[_states(ev).index("disconnected"):]


def test_a_wait_of_zero_gives_up_at_once(files, tmp_path):
    phone = GonePhone(cut_at=1, gone_s=0.2)
    runner, ev = _runner(f"{files[0]}:budget", tmp_path, phone, wait_s=0)
    ep = runner.run().tasks["budget"].attempts[0]
    assert ep.status == "error" and "disconnect_wait_s is 0" in (ep.error or "")
    assert "disconnected" not in _states(ev)


def test_a_phone_gone_while_a_task_is_set_up_is_waited_for_too(files, tmp_path):
    phone = GonePhone(method="load_setup", cut_at=2, gone_s=0.4)  # the second task's set-up
    runner, _ = _runner(str(files[0]), tmp_path, phone)
    result = runner.run()
    assert all(r.status != "error" for r in result.tasks.values())
    warnings = json.loads((result.run_dir / "run.json").read_text())["warnings"]
    assert any("setting up" in w and "phone gone" in w and "back" in w for w in warnings)


def test_the_wait_is_a_setting_with_a_clear_error(monkeypatch):
    assert Settings().disconnect_wait_s == 300
    monkeypatch.setenv("GUILENS_DISCONNECT_WAIT_S", "12.5")
    assert load_settings().disconnect_wait_s == 12.5
    monkeypatch.setenv("GUILENS_DISCONNECT_WAIT_S", "-1")
    with pytest.raises(ConfigError, match="'disconnect_wait_s'.*GUILENS_DISCONNECT_WAIT_S"):
        load_settings()


def test_headless_says_what_happened_and_enter_resumes(files, tmp_path):
    import io

    master, slave = os.openpty()
    keys = os.fdopen(slave, "r", encoding="utf-8")
    out = io.StringIO()
    control = RunControl()
    printer = HeadlessObserver(out, color=False, control=control, keys=keys)
    phone = GonePhone(method="observe", cut_at=3, gone_s=1000, with_alive=False)
    runner, ev = _runner(f"{files[0]}:budget", tmp_path, phone, control=control, observers=[printer])
    try:
        thread, box = _in_thread(runner)
        _wait(lambda: "Enter: try it now" in out.getvalue())
        phone.back_at = 0
        os.write(master, b"\n")
        thread.join(20)
    finally:
        os.close(master)
        keys.close()
    text = out.getvalue()
    assert box["r"].tasks["budget"].attempts[0].status == "success"
    assert "⚡ sim disconnected while observe (now offline)" in text and "waiting up to 20 s" in text
    assert "the phone answers again" in text and "⚡ phone gone" in text


def test_headless_without_a_terminal_offers_no_key(files, tmp_path):
    import io

    out = io.StringIO()
    printer = HeadlessObserver(out, color=False, control=RunControl(), keys=io.StringIO())
    phone = GonePhone(cut_at=2, gone_s=0.3)
    runner, _ = _runner(f"{files[0]}:budget", tmp_path, phone, observers=[printer])
    runner.run()
    text = out.getvalue()
    assert "⚡ sim disconnected" in text and "Enter" not in text


def test_step_line_shows_a_gap():
    from datetime import datetime

    from guilens.episode import Step
    from guilens.episode_model import DeviceGap

    now = datetime.now().astimezone()
    step = Step(index=0, started_at=now, ended_at=now, action={"type": "tap", "x": 1, "y": 2},
                gaps=[DeviceGap(started_at=now, ended_at=now, seconds=1.26, message="adb:x disconnected")])
    assert "⚡ phone gone 1.3 s" in step_line(step)
    assert step.gaps[0].describe() == "phone gone 1.3 s (adb:x disconnected); back"
