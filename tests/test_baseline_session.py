"""`guilens baseline`: a person does three tasks one after another, headless (typing at the prompt),
each is exported as a verified golden path, and `guilens baseline-report` sets the person against an
oracle run of the same tasks. The person's commands are what a person would type: each task's
reference played on a fresh simulated phone, as `tap X Y`, `type ...`, `open APP`, `finish`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from guilens.actions import to_command
from guilens.device.sim import SimDevice
from guilens.scenarios.loader import load_builtin
from guilens.scenarios.reference import run_reference

pytestmark = pytest.mark.slow

PACK = "memory"


def guilens(*args: str, stdin: str = "", cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {"GUILENS_CONFIG_FILE": str(cwd / "none.toml"), "GUILENS_CACHE_DIR": str(cwd / "cache"), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "guilens", *args], input=stdin, capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=300, check=False)


def typed(task_id: str) -> list[str]:
    """What a person types for a task: its reference, played on a fresh phone, as commands."""
    scenario = next(s for s in load_builtin() if s.id == PACK)
    task = scenario.task(task_id)
    dev = SimDevice()
    dev.load_setup(scenario.setup_for(task))
    played = run_reference(task, dev, "L0")
    assert played.ok, played.summary()
    commands = [to_command(s.action) for s in played.steps]
    return commands if commands[-1].startswith(("finish", "answer")) else [*commands, "finish"]


@pytest.fixture(scope="module")
def three() -> list[str]:
    scenario = next(s for s in load_builtin() if s.id == PACK)
    # three short tasks, one of them a mirror pair's (the export keeps its twin)
    short = sorted((t for t in scenario.tasks if not t.depends_on), key=lambda t: t.golden_steps)
    picked = [short[0].id, short[1].id]
    picked.append(next(t.id for t in short if t.mirror_of and t.id not in picked))
    return picked


def test_a_baseline_session_records_exports_and_reports(three: list[str], tmp_path: Path) -> None:
    lines: list[str] = []
    for task in three:
        lines.append("")  # Enter at the pause screen starts the task
        lines += typed(task)
    done = guilens("baseline", PACK, "--tasks", ",".join(three), "--headless", "--out", str(tmp_path / "runs"),
                   stdin="\n".join(lines) + "\n", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    run_dir = next((tmp_path / "runs").iterdir())
    run = json.loads((run_dir / "run.json").read_text())
    assert run["agent"] == "human"
    for n, task in enumerate(three, 1):
        assert f"Next: task {n} of 3, {task}" in done.stderr  # the pause screen before each task
        ep = json.loads((run_dir / task / "attempt-1" / "episode.json").read_text())
        assert ep["status"] == "success" and ep["human_steps"] == ep["steps"] == len(typed(task))
        assert ep["timings"]["person_s"] > 0 and ep["timings"]["agent_s"] == 0
        golden = run_dir / "golden" / f"{task}.yaml"
        assert golden.is_file(), done.stdout
        exported = yaml.safe_load(golden.read_text())
        mine = next(t for t in exported["tasks"] if t["id"] == f"{task}-human")
        assert mine["golden_steps"] == len(typed(task))
        assert f"{task}: {golden}" in done.stdout and "verified" in done.stdout

    # the same tasks by the oracle, and the person set against it
    oracle = guilens("run", PACK, "--agent", "oracle", "--headless", "--out", str(tmp_path / "agent"), cwd=tmp_path)
    assert oracle.returncode == 0, oracle.stderr
    agent_run = next((tmp_path / "agent").iterdir())
    report = guilens("baseline-report", str(run_dir), str(agent_run), "--json", cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    data = json.loads(report.stdout)
    assert data["summary"]["person"]["tasks"] == 3 and data["summary"]["person"]["success_rate"] == 1.0
    assert data["summary"]["person"]["seconds_per_step"] is not None
    agent = data["summary"]["agents"][0]
    assert agent["agent"] == "oracle" and agent["success_rate"] == 1.0
    assert agent["step_ratio_vs_person"] == 1.0  # the oracle follows the same reference the person did
    for row in data["tasks"]:
        assert row["person"]["steps"] == row["agents"][0]["steps"] == row["golden_steps"]
        assert row["person"]["milestones_reached"] == row["person"]["milestones_total"] > 0
    table = guilens("baseline-report", str(run_dir), str(agent_run), cwd=tmp_path)
    assert table.returncode == 0 and "person: success 100%" in table.stdout and "oracle" in table.stdout


def test_a_baseline_session_can_skip_and_stop(three: list[str], tmp_path: Path) -> None:
    first = typed(three[0])
    lines = ["", *first, "skip", "stop"]
    done = guilens("baseline", PACK, "--tasks", ",".join(three), "--headless", "--out", str(tmp_path / "runs"),
                   stdin="\n".join(lines) + "\n", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    run_dir = next((tmp_path / "runs").iterdir())
    assert (run_dir / three[0] / "attempt-1" / "episode.json").is_file()
    assert not (run_dir / three[1]).exists() and not (run_dir / three[2]).exists()
    assert json.loads((run_dir / "run.json").read_text())["status"] == "cancelled"
    assert (run_dir / "golden" / f"{three[0]}.yaml").is_file()


def test_baseline_options_are_checked(tmp_path: Path) -> None:
    bad = guilens("baseline", PACK, "--tasks", "no-such-task", "--headless", cwd=tmp_path)
    assert bad.returncode == 2 and "--tasks: no task 'no-such-task'" in bad.stderr and "Traceback" not in bad.stderr
    day = guilens("baseline", "day", "--tasks", "x", "--headless", cwd=tmp_path)
    assert day.returncode == 2 and "persistent day" in day.stderr
    missing = guilens("baseline-report", str(tmp_path / "nope"), cwd=tmp_path)
    assert missing.returncode == 2 and "no such run directory" in missing.stderr
