"""Runs over a Ray cluster (`guilens run --cluster`, `guilens.cluster`, the engine's re-run of a cut attempt).

The first tests need no cluster: resource names, addresses, the wire format
and the command line's one-line errors. The rest start a real two-node Ray
cluster on this machine, once for the module (`ray start --head` and a second
`ray start --address`, each declaring one sim, small CPU and object-store
budgets, Ray's session files in a temp dir): a subset of the memory pack run
on it gives the outcomes of a local run; killing one device's actor process
mid-attempt still completes the run, the cut attempt re-run on the other sim,
recorded once and noted (and the same for a sim in a child process, which needs
no Ray: the engine's re-run is one path). The nodes run `ray start --block`, so the fixture
stops exactly the processes it started (SIGTERM to each, whose `ray start`
stops its own node) and no `ray stop` touches anything else on the machine.
"""

from __future__ import annotations

import json
import os
import pickle
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from guilens.cluster import ClusterError
from guilens.cluster.connect import Cluster, parse_address
from guilens.cluster.resources import adb_resource, declared_devices, node_command, serial_of
from guilens.cluster.wire import pack_error, pack_result, unpack_result
from guilens.device.base import DeviceDisconnected, Observation
from guilens.device.sim import SimDevice

try:
    import ray  # noqa: F401

    HAVE_RAY = True
except ImportError:
    HAVE_RAY = False

needs_ray = pytest.mark.skipif(not HAVE_RAY, reason="Ray is not installed (pip install 'guilens[cluster]')")
ROOT = Path(__file__).resolve().parent.parent
TASKS = 4
"""Memory-pack tasks run on the cluster: enough for both sims to take several, and the file to stay short."""


# -- no cluster needed --------------------------------------------------------------------------------------
def test_adb_resource_names_are_valid_and_reversible() -> None:
    for serial in ("emulator-5554", "192.168.1.7:5555", "R58M_12ab", "ü-phone"):
        name = adb_resource(serial)
        assert name.startswith("guilens_adb_") and all(c.isalnum() or c == "_" for c in name)
        assert serial_of(name) == serial
    assert adb_resource("emulator-5554") == "guilens_adb_emulator_2d5554"
    assert serial_of("guilens_sim") is None and serial_of("CPU") is None


def test_declared_devices_and_node_command() -> None:
    res = {"CPU": 4.0, "guilens_sim": 2.0, adb_resource("emulator-5554"): 1.0, "memory": 1e9}
    assert declared_devices(res) == ["sim", "sim", "adb:emulator-5554"]
    assert declared_devices({"CPU": 2.0}) == []
    cmd = node_command(2, ["emulator-5554"], address="10.0.0.5:6379")
    assert cmd == ["ray", "start", "--address=10.0.0.5:6379",
                   '--resources={"guilens_sim":2,"guilens_adb_emulator_2d5554":1}']
    assert node_command(1, [], address=None)[:3] == ["ray", "start", "--head"]


def test_addresses_are_checked_before_ray_is_asked() -> None:
    assert parse_address("ray://10.0.0.5:10001").client
    assert parse_address("head.lab:6379").port == 6379
    for bad in ("nonsense", "host:", "host:99999", "http://x:1"):
        with pytest.raises(ClusterError, match="HOST:PORT") as err:
            parse_address(bad)
        assert err.value.code == 2


def test_choosing_devices() -> None:
    c = Cluster("127.0.0.1:6379")
    c.resources = {"guilens_sim": 2.0, adb_resource("emulator-5554"): 1.0}
    assert c.choose(None) == ["sim", "sim", "adb:emulator-5554"]
    assert c.choose(None, sims_only=True) == ["sim", "sim"]
    assert c.choose(None, one=True, sims_only=True) == ["sim"]  # a sequence keeps one phone
    assert c.choose(["sim", "adb"]) == ["sim", "adb:emulator-5554"]
    with pytest.raises(ClusterError, match="declares 2 such devices"):
        c.choose(["sim", "sim", "sim"])
    c.resources = {"CPU": 2.0}
    with pytest.raises(ClusterError, match="declares no devices"):
        c.choose(None)


def test_observations_and_device_errors_cross_the_wire_unchanged() -> None:
    from datetime import datetime

    im = Image.new("RGB", (108, 240), (10, 20, 30))
    im.putpixel((5, 7), (255, 0, 1))
    obs = Observation(screenshot=im, ui_xml="<hierarchy/>", app="com.x", clock=datetime(2026, 1, 2, 3, 4),
                      size=(108, 240), extra={"k": 1})
    back = unpack_result(*pack_result(obs))
    assert isinstance(back, Observation) and back.screenshot.tobytes() == im.tobytes()
    assert (back.ui_xml, back.app, back.clock, back.size, back.extra) == (
        obs.ui_xml, obs.app, obs.clock, obs.size, obs.extra)
    assert "ui" not in back.__dict__  # its tree was never parsed: the XML alone crossed
    sim = SimDevice().observe()  # the sim hands over the tree it wrote the XML from: it crosses too
    again = unpack_result(*pickle.loads(pickle.dumps(pack_result(sim))))  # as Ray carries it
    assert "ui" in again.__dict__ and again.ui is not sim.ui and again.ui_xml == sim.ui_xml
    err = DeviceDisconnected("the cable", "plug it back", performed=False)
    with pytest.raises(DeviceDisconnected) as got:
        unpack_result(*pack_error(err))
    assert (str(got.value), got.value.fix, got.value.performed) == (str(err), "plug it back", False)


def _guilens(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "guilens", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=timeout, env={**os.environ, **(env or {})})


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_bad_cluster_addresses_are_one_line(tmp_path: Path) -> None:
    bad = _guilens("run", "memory", "--headless", "-o", str(tmp_path), "--cluster", "nonsense")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--cluster 'nonsense'" in bad.stderr
    dead = _guilens("run", "memory", "--headless", "-o", str(tmp_path), "--cluster", f"127.0.0.1:{_free_port()}")
    assert dead.returncode == 1 and dead.stderr.count("\n") == 1, dead.stderr
    assert "no Ray head answers there" in dead.stderr
    assert not list(tmp_path.iterdir())  # nothing was recorded


def test_without_ray_the_option_says_how_to_install_it(tmp_path: Path) -> None:
    blocker = tmp_path / "noray"
    blocker.mkdir()
    (blocker / "ray.py").write_text("raise ImportError('no ray here')\n")
    done = _guilens("run", "memory", "--headless", "-o", str(tmp_path / "runs"), "--cluster", "127.0.0.1:6379",
                    env={"PYTHONPATH": str(blocker)})
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == "error: --cluster needs Ray, which is not installed: pip install 'guilens[cluster]'"


# -- a two-node cluster on this machine ---------------------------------------------------------------------
def _ray() -> str:
    beside = Path(sys.executable).parent / "ray"
    return str(beside) if beside.is_file() else "ray"


@pytest.fixture(scope="module")
def cluster_address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if not HAVE_RAY:
        pytest.skip("Ray is not installed (pip install 'guilens[cluster]')")
    temp = tmp_path_factory.mktemp("ray")
    port, client_port = _free_port(), _free_port()
    common = ["--block", "--num-cpus=1", "--object-store-memory=80000000", "--disable-usage-stats",
              '--resources={"guilens_sim": 1}']
    logs = [open(temp / f"node{i}.log", "w") for i in (1, 2)]  # noqa: SIM115 - closed at the end
    nodes = [subprocess.Popen([_ray(), "start", "--head", f"--port={port}", "--include-dashboard=false",
                               f"--ray-client-server-port={client_port}", f"--temp-dir={temp}", *common],
                              stdout=logs[0], stderr=subprocess.STDOUT, start_new_session=True)]
    address = f"127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or nodes[0].poll() is not None:
                    pytest.fail(f"the Ray head did not start: {(temp / 'node1.log').read_text()[-2000:]}")
                time.sleep(0.2)
        nodes.append(subprocess.Popen([_ray(), "start", f"--address={address}", *common],
                                      stdout=logs[1], stderr=subprocess.STDOUT, start_new_session=True))
        _wait_for_sims(address, 2, deadline)
        _CLIENT_PORT[address] = client_port
        yield address
    finally:
        for p in reversed(nodes):  # `ray start --block` stops its own node on SIGTERM
            p.send_signal(signal.SIGTERM)
        for p in reversed(nodes):
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                p.kill()
        for f in logs:
            f.close()


_CLIENT_PORT: dict[str, int] = {}
"""The Ray Client port of the module's cluster (for `ray://`), by its address."""


def _wait_for_sims(address: str, n: int, deadline: float) -> None:
    """Until the cluster declares `n` sims (the second node has joined), asked in a child process so
    this one is not left connected."""
    code = ("import ray,sys,time\nray.init(address=sys.argv[1], log_to_driver=False, logging_level='ERROR')\n"
            "while ray.cluster_resources().get('guilens_sim', 0) < int(sys.argv[2]): time.sleep(0.2)\n")
    subprocess.run([sys.executable, "-c", code, address, str(n)], check=True, capture_output=True,
                   timeout=max(5.0, deadline - time.monotonic()))


def _outcomes(run_dir: Path) -> dict[str, tuple[Any, ...]]:
    from guilens.episode import EpisodeReader, find_episodes

    out = {}
    for d in find_episodes(run_dir):
        ep = EpisodeReader(d).episode
        out[f"{ep.task}/{ep.attempt}"] = (ep.status, ep.steps, [m.id for m in ep.milestones], ep.final_answer)
    return out


def _plan(out: Path, devices: list[Any] | None = None) -> Any:
    from guilens.config import Settings
    from guilens.run.plan import plan_run

    plan = plan_run("memory", agent="oracle", devices=devices or ["sim"], user="oracle", level="L0", out=out,
                    settings=Settings(), check_agent=False)
    plan.tasks = plan.tasks[:TASKS]
    return plan


@needs_ray
def test_a_run_on_the_cluster_matches_a_local_run(cluster_address: str, tmp_path: Path) -> None:
    from guilens.cluster.driver import on_cluster
    from guilens.run.engine import Runner

    local = Runner(_plan(tmp_path / "local")).run()
    plan = _plan(tmp_path / "cluster")
    with on_cluster(cluster_address, plan, None) as cluster:
        assert len(plan.devices) == 2
        assert len({h.place["node"] for h in cluster.hosts}) == 2  # one sim on each node
        result = Runner(plan).run()
    assert _outcomes(result.run_dir) == _outcomes(local.run_dir)
    assert len(_outcomes(result.run_dir)) == TASKS
    assert {ep.device for ep in result.episodes} == {"sim-1", "sim-2"}  # both nodes' devices worked
    for ep in result.episodes:  # the screens came back and were recorded on the driver
        shots = sorted((result.run_dir / ep.task / f"attempt-{ep.attempt}" / "screens").glob("*.png"))
        assert len(shots) == ep.steps + 1
        assert Image.open(shots[-1]).size == (1080, 2400)


@needs_ray
def test_the_command_runs_on_the_cluster_and_prints_live(cluster_address: str, tmp_path: Path) -> None:
    done = _guilens("run", "memory:shoe-prices-note", "--headless", "--json", "-o", str(tmp_path),
                    "--cluster", cluster_address)
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout)
    assert [e["status"] for e in summary["episodes"]] == ["success"]
    assert " 1 " in done.stderr and "finish success" in done.stderr  # the headless printer's step lines
    run = json.loads((Path(summary["run_dir"]) / "run.json").read_text())
    assert "--cluster" in run["command"]
    asked = _guilens("run", "memory", "--headless", "-o", str(tmp_path), "--cluster", cluster_address,
                     "-d", "sim", "-d", "sim", "-d", "sim")
    assert asked.returncode == 2 and asked.stderr.count("\n") == 1
    assert "--device sim: the cluster declares 2 such devices (2 sims), fewer than asked" in asked.stderr


@needs_ray
def test_ray_client_addresses_reach_the_cluster(cluster_address: str) -> None:
    client = f"ray://127.0.0.1:{_CLIENT_PORT[cluster_address]}"
    # Ray's client server starts a server of its own for each client; on a busy machine the first may
    # not be up in time ("Initialization failure from server"), which guilens says in one line. Try
    # again for up to a minute, as a person would, before judging.
    deadline = time.monotonic() + 60
    done = _guilens("cluster", "status", client)
    while done.returncode != 0 and "Initialization failure from server" in done.stderr and time.monotonic() < deadline:
        time.sleep(2)
        done = _guilens("cluster", "status", client)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == f"{client}: 2 sims"


class _KillDevice:
    """An observer that SIGKILLs the process holding one device (its Ray actor, or its child process)
    at a step of the device's first attempt."""

    def __init__(self, label: str, index: int) -> None:
        self.label, self.index = label, index
        self.runner: Any = None
        self.killed: int | None = None

    def on_step(self, episode: Any, step: Any) -> None:
        if episode.device == self.label and step.index == self.index and self.killed is None:
            host = self.runner.devices[self.label].host
            self.killed = int(host.place["pid"]) if hasattr(host, "place") else int(host.pid)
            os.kill(self.killed, signal.SIGKILL)


def _assert_rerun_once(result: Any, killer: _KillDevice, why: str) -> None:
    """Every task done once; the attempt the kill cut re-run on the other device, kept aside and noted."""
    from guilens.episode import find_episodes

    assert killer.killed is not None
    assert [ep.status for ep in result.episodes] == ["success"] * TASKS  # every task done, each once
    assert len(find_episodes(result.run_dir)) == TASKS  # the cut attempt is not counted as an episode
    record = json.loads((result.run_dir / "run.json").read_text())
    assert record["status"] == "completed"
    cut = [(task, r["lost"]) for task, r in record["results"].items() if "lost" in r]
    assert len(cut) == 1
    task, [note] = cut[0]
    assert note["attempt"] == 1 and note["device"] == "sim-1" and why in note["error"], note
    kept = result.run_dir / task / note["kept"]
    assert kept.name == "attempt-1.lost-sim-1" and (kept / "episode.lost.json").is_file()
    assert (kept / "steps.jsonl").read_text().count("\n") >= 2  # what it did before the kill is kept
    rerun = next(ep for ep in result.episodes if ep.task == task)
    assert rerun.device == "sim-2" and rerun.attempt == 1
    assert any(task in w and "re-run on another device" in w for w in record["warnings"]), record["warnings"]


@needs_ray
def test_a_killed_device_has_its_attempt_rerun_on_the_other(cluster_address: str, tmp_path: Path) -> None:
    from guilens.cluster.driver import on_cluster
    from guilens.run.engine import Runner

    plan = _plan(tmp_path / "cluster")
    killer = _KillDevice("sim-1", 2)
    with on_cluster(cluster_address, plan, None):
        runner = Runner(plan, observers=[killer])
        killer.runner = runner
        result = runner.run()
    _assert_rerun_once(result, killer, "Ray actor died")


def test_a_killed_process_sim_has_its_attempt_rerun_too(tmp_path: Path) -> None:
    """The same `DeviceLost` from a sim in a child process (`-d sim -d sim`): the engine re-runs alike."""
    from guilens.run.engine import Runner

    plan = _plan(tmp_path / "procs", devices=["sim", "sim"])
    killer = _KillDevice("sim-1", 2)
    runner = Runner(plan, observers=[killer])
    killer.runner = runner
    result = runner.run()
    _assert_rerun_once(result, killer, "SIGKILL")


@needs_ray
def test_a_sequence_keeps_one_device_of_the_cluster(cluster_address: str, tmp_path: Path) -> None:
    from guilens.cluster.driver import on_cluster
    from guilens.config import Settings
    from guilens.run.engine import Runner
    from guilens.run.plan import plan_run

    def day(out: Path) -> Any:
        return plan_run("day", agent="oracle", user="oracle", level="L0", out=out, settings=Settings(),
                        check_agent=False)

    local = Runner(day(tmp_path / "local")).run()
    plan = day(tmp_path / "cluster")
    with on_cluster(cluster_address, plan, None):
        assert len(plan.devices) == 1  # the day's state lives on one phone, in order
        result = Runner(plan).run()
    assert [(ep.task, ep.sequence_index) for ep in result.episodes] == [
        (ep.task, ep.sequence_index) for ep in local.episodes]
    assert {ep.device for ep in result.episodes} == {"sim"}
    assert _outcomes(result.run_dir) == _outcomes(local.run_dir)
