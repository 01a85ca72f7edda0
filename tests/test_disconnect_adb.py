"""A phone that vanishes mid-episode, for real: `guilens sim serve-adb` in its own process behind the
real adb server, killed (SIGKILL) at random moments and started again 0.3-2 s later on the same port.

- Every failure it causes is a disconnect (`DeviceDisconnected`), never a plain device error such
  as `screencap did not return a PNG: b''`.
- A run resumes by itself each time the phone is back, records each wait on its step, and
  completes.
- A phone that never comes back ends the attempt and the tasks left `error`; run.json says why,
  and `guilens run` exits 1.

The sim's state is not kept across a restart: the bridge has no state file, so each new process
starts from the same (default) set-up, the launcher with no notes. An attempt cut by a kill goes
on on that phone, and may then fail its task; what these tests hold is that the run goes on, not
that the task still succeeds. The figures (kills, gaps, outcomes) are printed, for `-s`.
"""

from __future__ import annotations

import json
import os
import random
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from guilens.actions import Tap
from guilens.config import Settings
from guilens.device.base import DeviceDisconnected, DeviceError
from guilens.run.engine import Runner
from guilens.run.plan import plan_run
from tests import adb_helpers
from tests.adb_helpers import AdbServer, free_port
from tests.runner_helpers import read_steps

pytestmark = [pytest.mark.adb, pytest.mark.slow, pytest.mark.timeout(240)]
adb_srv = adb_helpers.adb_srv  # the shared fixture

PACK = """\
id: vanish
title: Notes on a phone that comes and goes
device: any
tasks:
"""
TASK = """\
  - id: note-{a}
    title: A note titled {A}
    apps: [notes]
    instruction: {{L0: "In Notes, create a note titled {A}."}}
    difficulty: 1
    golden_steps: 7
    milestones:
      - id: listed
        text: The note list shows {A}
        check: {{screen_text: {A}}}
    reference:
      - open: notes
      - tap: New note
      - type: {A}
      - back
      - key: home
      - open: notes
      - finish
"""
NAMES = ["Alpha", "Beta", "Gamma", "Delta", "Epsilon", "Zeta", "Eta", "Theta", "Iota", "Kappa", "Lambda", "Mu"]


class Bridge:
    """`guilens sim serve-adb` as its own process, on a fixed port, to kill and start again."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.proc: subprocess.Popen[bytes] | None = None
        self.serial = f"127.0.0.1:{port}"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "guilens", "sim", "serve-adb", "--port", str(self.port)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().decode()  # printed once it listens
        if "serving" not in line:
            raise AssertionError(f"serve-adb did not start: {line}{self.proc.stdout.read().decode()}")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        self.kill()
        if self.proc is not None and self.proc.stdout is not None:
            self.proc.stdout.close()


@contextmanager
def bridge_on(server: AdbServer) -> Iterator[Bridge]:
    bridge = Bridge(free_port())  # below the ephemeral range: nothing else takes it while it is down
    bridge.start()
    try:
        server.connect(bridge.serial)
        yield bridge
    finally:
        server.run("disconnect", bridge.serial, check=False)
        bridge.stop()


def _pack(tmp_path: Path, n: int) -> Path:
    path = tmp_path / "vanish.yaml"
    path.write_text(PACK + "".join(TASK.format(a=a.lower(), A=a) for a in NAMES[:n]), encoding="utf-8")
    return path


def test_a_killed_bridge_is_always_a_disconnect(adb_srv: AdbServer) -> None:
    """Kill the bridge while the phone is being read and tapped: whatever call is cut, it is a disconnect."""
    rng = random.Random(12)
    with bridge_on(adb_srv) as bridge:
        from guilens.device.adb import AdbDevice

        dev = AdbDevice(bridge.serial, port=adb_srv.port)
        seen: list[BaseException] = []
        for _ in range(7):
            stop = threading.Event()

            def hammer(stop: threading.Event = stop) -> None:
                while not stop.is_set():
                    try:
                        dev.observe()
                        dev.act(Tap(x=540, y=1200))
                    except DeviceError as err:
                        seen.append(err)
                        return

            worker = threading.Thread(target=hammer, daemon=True)
            worker.start()
            time.sleep(rng.uniform(0.2, 1.5))
            bridge.kill()
            worker.join(30)
            stop.set()
            assert not worker.is_alive()
            time.sleep(rng.uniform(0.3, 2.0))
            bridge.start()
            deadline = time.monotonic() + 30
            while not dev.alive():
                assert time.monotonic() < deadline, "the phone did not answer again"
                time.sleep(0.2)
            assert dev.observe().app  # and works as before
        wrong = [f"{type(e).__name__}: {e}" for e in seen if not isinstance(e, DeviceDisconnected)]
        print(f"\nkills: 7, disconnects: {len(seen) - len(wrong)}, other errors: {wrong}")
        assert len(seen) == 7 and not wrong


def test_a_run_waits_for_the_phone_through_five_kills_and_completes(adb_srv: AdbServer, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(adb_srv.port))
    rng = random.Random(5)
    kills: list[tuple[float, float]] = []  # (delay before the restart, seconds from kill to the bridge listening)
    with bridge_on(adb_srv) as bridge:
        plan = plan_run(str(_pack(tmp_path, 12)), agent="oracle", devices=[f"adb:{bridge.serial}"],
                        out=tmp_path / "runs", settings=Settings())
        back = threading.Event()  # the run noticed the phone again: the next kill is a gap of its own
        steps = threading.Semaphore(0)

        class Watch:
            def on_state(self, episode: Any, state: str) -> None:
                if state == "running":
                    back.set()

            def on_step(self, episode: Any, step: Any) -> None:
                steps.release()

        runner = Runner(plan, observers=[Watch()], disconnect_wait_s=60)
        box: dict[str, Any] = {}
        thread = threading.Thread(target=lambda: box.setdefault("r", runner.run()), daemon=True)
        thread.start()
        while len(kills) < 5 and thread.is_alive():
            for _ in range(rng.randint(1, 3)):  # a random moment, a step or three in
                steps.acquire(timeout=30)
            time.sleep(rng.uniform(0.0, 0.4))
            if not thread.is_alive():
                break
            back.clear()
            bridge.kill()
            t0, delay = time.monotonic(), rng.uniform(0.3, 2.0)
            time.sleep(delay)
            bridge.start()
            kills.append((delay, time.monotonic() - t0))
            back.wait(60)
            while steps.acquire(blocking=False):  # count from here
                pass
        thread.join(180)
        assert not thread.is_alive(), "the run did not end"
    result = box["r"]
    assert len(kills) >= 5, f"the run ended after {len(kills)} kills: make it longer"
    run = json.loads((result.run_dir / "run.json").read_text())
    assert run["status"] == "completed", run["warnings"]
    gaps = [g for t in result.tasks for attempt in sorted((result.run_dir / t).glob("attempt-*"))
            for s in read_steps(attempt) for g in s["gaps"]]
    warned = [w for w in run["warnings"] if "phone gone" in w]  # kills that landed while a task was set up
    outcomes: dict[str, int] = {}
    for ep in result.episodes:
        outcomes[ep.status] = outcomes.get(ep.status, 0) + 1
    secs = [g["seconds"] for g in gaps]
    print(f"\nkills: {len(kills)} (restart after {', '.join(f'{d:.2f}' for d, _ in kills)} s; "
          f"listening again after {', '.join(f'{t:.2f}' for _, t in kills)} s)\n"
          f"gaps on steps: {len(gaps)}, seconds min {min(secs, default=0):.2f} median "
          f"{statistics.median(secs) if secs else 0:.2f} max {max(secs, default=0):.2f}; "
          f"during: {sorted({g['during'] for g in gaps})}; gaps in set-up: {len(warned)}\n"
          f"episodes: {len(result.episodes)} of {len(result.tasks)} tasks, outcomes {outcomes}")
    assert len(gaps) + len(warned) == len(kills)  # every kill was noticed, waited for, and recorded once
    assert all(g["outcome"] == "back" and g["retried"] is not None for g in gaps)
    assert all(g["seconds"] >= 0.3 for g in gaps)
    assert "error" not in outcomes and len(result.episodes) == len(result.tasks)  # no task lost to a kill


def test_a_phone_that_never_comes_back_ends_the_run_with_exit_1(adb_srv: AdbServer, tmp_path: Path) -> None:
    pack = _pack(tmp_path, 3)
    env = dict(os.environ, ANDROID_ADB_SERVER_PORT=str(adb_srv.port), GUILENS_DISCONNECT_WAIT_S="2")
    env.pop("ADB_SERVER_SOCKET", None)
    with bridge_on(adb_srv) as bridge:
        proc = subprocess.Popen(
            [sys.executable, "-m", "guilens", "run", str(pack), "--device", f"adb:{bridge.serial}", "--headless",
             "--out", str(tmp_path / "runs")],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env, text=True,
        )
        assert proc.stdout is not None
        lines = []
        for line in proc.stdout:  # the first step printed: the phone goes away for good
            lines.append(line)
            if line.strip().startswith("1 "):
                bridge.kill()
                break
        out, err = proc.communicate(timeout=120)
    lines.append(out)
    text = "".join(lines)
    assert proc.returncode == 1, text + err
    assert "Traceback" not in text + err
    assert "⚡" in text and "waiting up to 2 s" in text
    (run_dir,) = (tmp_path / "runs").iterdir()
    run = json.loads((run_dir / "run.json").read_text())
    assert run["status"] == "error"
    assert any("did not come back within 2 s" in w for w in run["warnings"])
    statuses = {t: r["status"] for t, r in run["results"].items()}
    assert statuses == {"note-alpha": "error", "note-beta": "error", "note-gamma": "error"}
    rest = json.loads((run_dir / "note-beta" / "attempt-1" / "episode.json").read_text())
    assert rest["steps"] == 0 and "the phone is gone" in rest["error"]
