"""Devices in processes of their own (issue 14): a `HostedDevice` over a `ProcessHost` is the sim.

The same scripted actions on an in-process `SimDevice` and on one in a child
process give the same screens pixel for pixel, the same UI trees and the same
state; the device's own errors cross unchanged; a child that dies is
`DeviceLost` (and the run goes on with the other phone, with no traceback);
closing, or the parent dying, leaves no child behind.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageDraw

from guilens.actions import KeyPress, OpenApp, Swipe, Tap, Type, Wait
from guilens.config import Settings
from guilens.device.base import DeviceDisconnected, DeviceLost, Observation
from guilens.device.hosted import DeviceHost, HostedDevice
from guilens.device.process_host import ProcessHost
from guilens.device.sim import SimDevice
from guilens.device.uitree import find_nodes
from guilens.episode import EpisodeReader, find_episodes
from guilens.run.engine import Runner
from guilens.run.plan import plan_run
from tests.fault_helpers import guilens
from tests.runner_helpers import write_scenarios

SETUP = {"clock": "2026-11-21T09:00:00",
         "apps": {"notes": {"notes": [{"title": "Budget", "body": "Lunch money: 42 dollars a week"}]}}}


def _gone(pid: int) -> bool:
    """The process no longer runs (a zombie waiting for a reaper counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return True
    return state in ("Z", "X")


def _wait_gone(pid: int, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if _gone(pid):
            return True
        time.sleep(0.05)
    return False


@pytest.fixture(params=["plain", "prefetch"])
def hosted(request: pytest.FixtureRequest) -> Any:
    """A hosted sim: plain calls; and an action's reply bringing the screen and state after it (what a
    run uses)."""
    device = HostedDevice(ProcessHost(SimDevice, setup=SETUP), prefetch=request.param == "prefetch")
    yield device
    device.close()


def _centre(obs: Observation, text: str) -> tuple[int, int]:
    assert obs.ui is not None
    hits = find_nodes(obs.ui, text)
    assert hits, f"{text!r} is not on the screen"
    return hits[0].center


def _same(a: Observation, b: Observation) -> None:
    assert a.screenshot.mode == b.screenshot.mode and a.screenshot.size == b.screenshot.size
    assert a.screenshot.tobytes() == b.screenshot.tobytes()
    assert (a.ui_xml, a.app, a.clock, a.size, a.extra) == (b.ui_xml, b.app, b.clock, b.size, b.extra)


def test_a_hosted_sim_is_the_sim_pixel_for_pixel(hosted: HostedDevice) -> None:
    local = SimDevice(setup=SETUP)
    assert isinstance(hosted.host, DeviceHost)
    assert (hosted.name, hosted.size, hosted.list_apps()) == (local.name, local.size, local.list_apps())
    _same(hosted.observe(), local.observe())
    script: list[Any] = [OpenApp(app="notes"), "Budget", KeyPress(key="back"), "New note", Type(text="Groceries"),
                         Swipe(x1=540, y1=1800, x2=540, y2=600), Wait(seconds=30), KeyPress(key="home"),
                         OpenApp(app="clock"), KeyPress(key="recent")]
    for step in script:
        obs = local.observe()
        action = Tap(x=_centre(obs, step)[0], y=_centre(obs, step)[1]) if isinstance(step, str) else step
        assert hosted.act(action) == local.act(action)
        _same(hosted.observe(), local.observe())
        _same(hosted.observe(), local.observe())  # unchanged: crosses as a mark, still the same pixels
        assert hosted.state() == local.state()
    when = datetime(2026, 11, 22, 7, 30)
    hosted.set_clock(when)
    local.set_clock(when)
    assert hosted.clock() == local.clock()
    snap = hosted.snapshot()
    hosted.act(OpenApp(app="maps"))
    hosted.restore(snap)
    _same(hosted.observe(), local.observe())
    hosted.load_setup({})  # a sim extra, forwarded: the runner probes it with getattr
    local.load_setup({})
    assert hosted.state() == local.state()
    hosted.reset()
    local.reset()
    _same(hosted.observe(), local.observe())


def test_a_hosted_observation_brings_the_sims_tree_so_the_run_parses_no_xml(hosted: HostedDevice) -> None:
    """The parsed tree crosses with the observation (cheaper than parsing its XML in the run's
    process, which reads `ui` every step), and is the parse of that XML, parent links included."""
    from test_sim_known_ui import fields, parents_hold

    from guilens.device.uitree import parse_ui_xml

    for step in (None, OpenApp(app="notes"), KeyPress(key="home"), None):
        if step is not None:
            hosted.act(step)
        obs = hosted.observe()
        assert "ui" in obs.__dict__, "the observation came without its tree: the run would parse the XML"
        assert obs.ui is not None and obs.ui_xml is not None
        assert fields(obs.ui) == fields(parse_ui_xml(obs.ui_xml)) and parents_hold(obs.ui)


def test_a_screen_handed_out_is_the_callers_own(hosted: HostedDevice) -> None:
    first = hosted.observe()
    before = first.screenshot.tobytes()
    scribbled = first.screenshot.copy() if first.screenshot.readonly else first.screenshot
    ImageDraw.Draw(scribbled).rectangle((0, 0, 500, 500), fill=(255, 0, 0))
    assert hosted.observe().screenshot.tobytes() == before  # the next, unchanged, screen is not scribbled on
    assert isinstance(hosted.observe().screenshot, Image.Image)


def test_optional_methods_are_there_only_if_the_device_has_them(hosted: HostedDevice) -> None:
    assert callable(getattr(hosted, "load_setup", None))
    assert getattr(hosted, "alive", None) is None  # the sim never goes away: no `alive` to poll
    with pytest.raises(AttributeError):
        hosted._phone  # noqa: B018 - private state stays where the device lives


class Unplugged(SimDevice):
    """A sim whose cable comes out when it is asked to wait: a `DeviceDisconnected` with its fix."""

    def act(self, action: Any) -> str:
        if isinstance(action, Wait):
            raise DeviceDisconnected("the cable came out", "plug it back in", performed=False)
        return super().act(action)


def test_device_errors_cross_unchanged() -> None:
    device = HostedDevice(ProcessHost(Unplugged))
    try:
        with pytest.raises(DeviceDisconnected) as caught:
            device.act(Wait(seconds=1))
        err = caught.value
        assert type(err) is DeviceDisconnected and not isinstance(err, DeviceLost)
        assert (err.fix, err.performed, str(err)) == ("plug it back in", False, "the cable came out (plug it back in)")
        with pytest.raises(TypeError, match="not a sim snapshot"):
            device.restore(5)
        assert device.act(OpenApp(app="notes")) == "opened Notes"  # still serving after both
    finally:
        device.close()


def test_a_device_that_cannot_be_made_says_why() -> None:
    host = ProcessHost(SimDevice, width=10, height=10)
    with pytest.raises(ValueError, match="at least 320x480"):
        HostedDevice(host)
    host.close()
    assert _wait_gone(host.pid or 0)


def test_a_killed_child_is_device_lost_and_close_leaves_no_child(capfd: pytest.CaptureFixture[str]) -> None:
    host = ProcessHost(SimDevice)
    device = HostedDevice(host)
    device.observe()
    assert host.pid is not None
    os.kill(host.pid, signal.SIGKILL)
    with pytest.raises(DeviceLost, match=rf"SimDevice process \(pid {host.pid}\) was killed by SIGKILL") as caught:
        device.act(OpenApp(app="notes"))
    assert caught.value.performed is None  # the action may or may not have happened: not repeated
    with pytest.raises(DeviceLost):
        device.observe()  # and so on: it does not come back
    device.close()
    device.close()
    assert _gone(host.pid)
    living = ProcessHost(SimDevice)
    HostedDevice(living).close()
    assert _wait_gone(living.pid or 0, 1.0)  # closed, not left running
    assert "Traceback" not in "".join(capfd.readouterr())


def _python(tmp_path: Path, source: str, timeout: float) -> subprocess.CompletedProcess[str]:
    """`source` run as a script of its own (a fresh process, its `__main__` guarded), from the project root."""
    script = tmp_path / "script.py"
    script.write_text(source, encoding="utf-8")
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=timeout,
                          cwd=Path(__file__).resolve().parent.parent)


def test_a_run_on_two_sims_leaves_the_sim_to_its_device_processes(tmp_path: Path) -> None:
    """The run's process names the sim for its device processes (`Imported`) instead of importing it
    to hand it over: the sim's drawing and device modules stay out of it, and the devices still say
    they are the SimDevice."""
    done = _python(tmp_path,
        "import sys\n"
        "from pathlib import Path\n"
        "from guilens.run.workers import warm_hosts\n"
        "if __name__ == '__main__':\n"
        "    warm_hosts(['sim', 'sim'])\n"
        "    from guilens.config import Settings\n"
        "    from guilens.run.engine import Runner\n"
        "    from guilens.run.plan import plan_run\n"
        "    plan = plan_run('memory', agent='oracle', devices=['sim', 'sim'], user='oracle', level='L0',\n"
        f"                    out=Path({str(tmp_path / 'runs')!r}), settings=Settings(), check_agent=False)\n"
        "    plan.tasks = plan.tasks[:2]\n"
        "    runner = Runner(plan)\n"
        "    result = runner.run()\n"
        "    print(sorted(ep.status for ep in result.episodes))\n"
        "    print(sorted(repr(d.host) for d in runner.devices.values()))\n"
        "    print(sorted(m for m in ('guilens.device.sim.device', 'guilens.device.sim.paint',\n"
        "                             'guilens.device.sim.kit') if m in sys.modules))\n", timeout=120)
    assert done.returncode == 0, done.stderr
    statuses, hosts, imported = done.stdout.splitlines()[-3:]
    assert statuses == "['success', 'success']"
    assert re.fullmatch(r"\['ProcessHost\(SimDevice, pid \d+\)', 'ProcessHost\(SimDevice, pid \d+\)'\]", hosts)
    assert imported == "[]"


def test_a_child_ends_when_its_parent_dies(tmp_path: Path) -> None:
    done = _python(tmp_path,
        "import os, signal\n"
        "from guilens.device.hosted import HostedDevice\n"
        "from guilens.device.process_host import ProcessHost\n"
        "from guilens.device.sim import SimDevice\n"
        "if __name__ == '__main__':\n"
        "    host = ProcessHost(SimDevice)\n"
        "    HostedDevice(host).observe()\n"
        "    print(host.pid, flush=True)\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n", timeout=60)
    assert done.returncode == -signal.SIGKILL
    child = int(done.stdout.split()[0])
    assert _wait_gone(child), f"the device process {child} outlived its parent"


# -- in a run --------------------------------------------------------------------------------------
_PARALLEL = re.compile(r"^ {2}(\S+:\S+)\s+(\d+) (.*?)(?:  → .*)?$")
_SINGLE = re.compile(r"^ {2,}(\d+) (.*?)(?:  → .*)?$")


def _steps_printed(stdout: str) -> dict[str, list[tuple[int, str]]]:
    """Per task, the step lines the headless printer showed: (number, action), in order."""
    out: dict[str, list[tuple[int, str]]] = {}
    current = None
    for line in stdout.splitlines():
        if line.startswith("▶ "):
            current = line[2:].split(" ", 1)[0]
            out.setdefault(current, [])
            continue
        m = _PARALLEL.match(line)
        if m:
            out.setdefault(m.group(1), []).append((int(m.group(2)), m.group(3).strip()))
            continue
        m = _SINGLE.match(line)
        if m and current is not None:
            out[current].append((int(m.group(1)), m.group(2).strip()))
    return out


def _outcomes(out: Path) -> dict[str, tuple[Any, ...]]:
    found = {}
    for attempt in find_episodes(out):
        reader = EpisodeReader(attempt)
        ep = reader.episode
        screens = [Image.open(attempt / s.screen).convert("RGB").tobytes() for s in reader.steps if s.screen]
        states = {p.relative_to(attempt).as_posix(): p.read_bytes()  # the rules judge's app state, byte for byte
                  for p in [*sorted((attempt / "state").glob("*.json")), attempt / "final_state.json"] if p.exists()}
        found[ep.task] = (ep.status, ep.steps, [m.id for m in ep.milestones], ep.final_answer, screens, states,
                          ep.device)
    return found


def test_a_run_over_two_hosted_sims_matches_one_sim(tmp_path: Path) -> None:
    rt, _ = write_scenarios(tmp_path)
    one = guilens("run", str(rt), "-d", "sim", "--headless", "--out", str(tmp_path / "one"))
    two = guilens("run", str(rt), "-d", "sim", "-d", "sim", "--headless", "--out", str(tmp_path / "two"))
    for done in (one, two):
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr + done.stdout
        assert "done: 2 episodes: 2 success" in done.stdout.splitlines()
    assert {line.split(" · ")[2] for line in two.stdout.splitlines() if line.startswith("▶ ")} == {"sim-1", "sim-2"}
    printed_one, printed_two = _steps_printed(one.stdout), _steps_printed(two.stdout)
    assert printed_two == printed_one and all(printed_one.values())  # every step line, for both devices
    a, b = _outcomes(tmp_path / "one"), _outcomes(tmp_path / "two")
    assert a.keys() == b.keys() == {"grocery", "budget"}
    for task in a:
        assert a[task][:6] == b[task][:6], task  # status, steps, milestones, answer, every screen and state
        assert "final_state.json" in a[task][5], task
    assert sum(len(a[t][5]) for t in a) >= 3  # the states read each step, crossed as what changed, are there
    assert {b[t][6] for t in b} == {"sim-1", "sim-2"}


class _Killer:
    """An observer that SIGKILLs the process of the device labelled `label` (`kill`), once."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.runner: Runner | None = None
        self.killed: int | None = None

    def kill(self) -> None:
        assert self.runner is not None
        device = self.runner.devices[self.label]
        assert isinstance(device, HostedDevice) and isinstance(device.host, ProcessHost)
        self.killed = device.host.pid
        assert self.killed is not None
        os.kill(self.killed, signal.SIGKILL)


class _KillOnStep(_Killer):
    """An observer that SIGKILLs one device's process at a given step of its first attempt."""

    def __init__(self, label: str, index: int) -> None:
        super().__init__(label)
        self.index = index
        self.steps: dict[str, int] = {}

    def on_step(self, episode: Any, step: Any) -> None:
        self.steps[episode.device] = self.steps.get(episode.device, 0) + 1
        if episode.device == self.label and step.index == self.index and self.killed is None:
            self.kill()


def test_a_killed_device_is_lost_and_the_run_goes_on(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    plan = plan_run("memory", agent="oracle", devices=["sim", "sim"], user="oracle", level="L0",
                    out=tmp_path / "runs", settings=Settings(), check_agent=False)
    plan.tasks = plan.tasks[:4]
    killer = _KillOnStep("sim-1", 2)
    runner = Runner(plan, observers=[killer])
    killer.runner = runner
    result = runner.run()
    hosts = [d.host for d in runner.devices.values() if isinstance(d, HostedDevice)]
    assert len(hosts) == 2 and killer.killed is not None
    eps = result.episodes
    assert len(eps) == 4
    # the attempt the dead phone cut is set aside (`guilens.run.rerun`) and re-run on the other phone
    (cut,) = (result.run_dir).glob("*/attempt-1.lost-sim-1/episode.lost.json")
    lost = json.loads(cut.read_text())
    assert lost["status"] == "error" and lost["device"] == "sim-1"
    assert f"pid {killer.killed}) was killed by SIGKILL" in lost["error"]
    assert all(ep.status == "success" and ep.device == "sim-2" for ep in eps), [(e.device, e.status) for e in eps]
    assert killer.steps["sim-2"] > killer.steps["sim-1"]
    warnings = json.loads((result.run_dir / "run.json").read_text())["warnings"]
    assert any("sim-1" in w and "SIGKILL" in w for w in warnings), warnings
    assert "Traceback" not in "".join(capfd.readouterr())
    for host in hosts:  # the run closed its devices: no child left
        assert isinstance(host, ProcessHost) and host.pid is not None and _wait_gone(host.pid, 5.0)


def test_one_device_stays_in_process_and_devices_handed_in_are_used_as_they_are(tmp_path: Path) -> None:
    from guilens.control import QuestionChannel, RunControl
    from guilens.run.workers import close_workers, open_workers

    one = plan_run("memory", agent="oracle", devices=["sim"], user="oracle", level="L0", out=tmp_path,
                   settings=Settings(), check_agent=False)
    mine = [SimDevice(), SimDevice()]
    given = plan_run("memory", agent="oracle", devices=list(mine), user="oracle", level="L0", out=tmp_path,
                     settings=Settings(), check_agent=False)
    for plan, kinds in ((one, [SimDevice]), (given, [SimDevice, SimDevice])):
        workers = open_workers(plan, channel=QuestionChannel(), control=RunControl())
        try:
            assert [type(w.device) for w in workers] == kinds
        finally:
            close_workers(workers)
    assert [w is d for w, d in zip(given.devices, mine, strict=True)] == [True, True]


class _KillBetweenTasks(_Killer):
    """An observer that SIGKILLs one device's process once its first attempt has ended."""

    def on_attempt_finished(self, episode: Any) -> None:
        if episode.device == self.label and self.killed is None:
            self.kill()


def test_a_device_killed_between_tasks_is_lost_once(tmp_path: Path) -> None:
    plan = plan_run("memory", agent="oracle", devices=["sim", "sim"], user="oracle", level="L0",
                    out=tmp_path / "runs", settings=Settings(), check_agent=False)
    by_id = {t.id: t for t in plan.tasks}  # a short task on sim-1, a long one on sim-2: the third waits for a phone
    plan.tasks = [by_id["portfolio-value"], by_id["shoe-prices-note"], by_id["wiki-article-gap"]]
    killer = _KillBetweenTasks("sim-1")
    runner = Runner(plan, observers=[killer])
    killer.runner = runner
    result = runner.run()
    assert killer.killed is not None
    assert [ep.status for ep in result.episodes] == ["success"] * 3
    warnings = json.loads((result.run_dir / "run.json").read_text())["warnings"]
    assert len(warnings) <= 2, warnings[:5]  # the phone lost once, and the task it was setting up moved once


def test_the_fork_server_is_started_early_only_for_a_run_that_hosts_sims(monkeypatch: pytest.MonkeyPatch) -> None:
    import multiprocessing.forkserver as forkserver

    import guilens.device.fork_server as fork_server
    from guilens.run.workers import warm_hosts

    started: list[bool] = []
    monkeypatch.setattr(fork_server, "start_fork_server", lambda: started.append(True))
    for devices in (["sim"], ["adb:A", "adb:B"], [SimDevice(), SimDevice()]):
        warm_hosts(devices)
    assert started == []
    warm_hosts(["sim", "adb:A"])
    assert started == [True]
    monkeypatch.undo()
    fork_server.start_fork_server()  # for real: running (or still running) once it returns
    pid = forkserver._forkserver._forkserver_pid
    assert pid is not None and not _gone(pid)


def test_warm_hosts_starts_the_fork_server_before_the_heavy_imports(tmp_path: Path) -> None:
    """The server imports the sim beside the caller's own imports, not after them: `warm_hosts`
    itself imports neither the device process's code nor pydantic's models of actions, nor numpy."""
    code = ("import sys\n"
            "from guilens.run.workers import warm_hosts\n"
            "if __name__ == '__main__':\n"
            "    warm_hosts(['sim', 'sim'])\n"
            "    print(sorted(m for m in ('guilens.device.process_host', 'guilens.actions', 'numpy')"
            " if m in sys.modules))\n")
    script = tmp_path / "warm.py"
    script.write_text(code, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).resolve().parent.parent)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_fork_server_warms_the_sim_and_the_warm_up_itself_works() -> None:
    from guilens.device.fork_server import PRELOAD
    from guilens.device.warm_sim import warm

    assert PRELOAD[-1] == "guilens.device.warm_sim"
    warm()  # it swallows its errors in the server (a cold device still works): here they would show
