"""`guilens run` and `guilens demo`: exit status, one-line errors, headless output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from guilens.cli import app
from tests.runner_helpers import write_scenarios

ANY_YAML = """\
id: anyphone
title: Works on any phone
device: any
tasks:
  - id: home
    apps: [settings]
    instruction: {L0: "Go to the home screen."}
    difficulty: 1
    golden_steps: 1
    milestones:
      - {id: home, text: "The home screen is shown"}
    reference: [home]
"""


@pytest.fixture
def cli(tmp_path, monkeypatch) -> CliRunner:
    monkeypatch.setenv("GUILENS_CONFIG_FILE", str(tmp_path / "none.toml"))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    return CliRunner()


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    return write_scenarios(tmp_path)


def _err(result) -> str:
    return (result.stderr if result.stderr_bytes is not None else "") or result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--level", "L9"], "--level 'L9': choose L0, L1 or L2"),
        (["--device", "phone"], "--device 'phone': use sim, adb or adb:SERIAL"),
        (["--user", "robot"], "--user 'robot': choose oracle, llm, human"),
        (["-k", "0"], "--attempts 0: give 1 to 20"),
        (["--max-steps", "0"], "--max-steps 0: give at least 1"),
        (["--agent", "nope"], "unknown agent 'nope': choose oracle, claude, openai, human, random or package.module:Class"),
        (["--agent", "no_such_pkg.mod:Agent"], "cannot import 'no_such_pkg.mod'"),
        (["--agent", "tests.runner_helpers:Nothing"], "module 'tests.runner_helpers' has no 'Nothing'"),
        (["--agent", "tests.runner_helpers:Events"], "Events is not an agent: it has no reset()"),
        (["--device", "adb:emulator-5554"], "is for the simulated phone"),
        (["--agent", "claude"], "ANTHROPIC_API_KEY is not set"),
        (["--user", "llm"], "ANTHROPIC_API_KEY is not set"),
    ],
)
def test_bad_arguments_are_one_line_errors(cli, files, tmp_path, args, message):
    result = cli.invoke(app, ["run", str(files[0]), "--headless", "--out", str(tmp_path / "runs"), *args])
    assert result.exit_code == 2, result.output
    err = _err(result)
    assert err.startswith("error: ") and message in err
    assert "Traceback" not in err
    assert not (tmp_path / "runs").exists()  # nothing written before the run could start


def test_unknown_target_names_what_exists(cli, tmp_path):
    result = cli.invoke(app, ["run", "no-such-scenario", "--headless"])
    assert result.exit_code == 2 and "no-such-scenario: no built-in scenario or file by that name" in _err(result)
    result = cli.invoke(app, ["run", "memory:no-such-task", "--headless"])
    assert result.exit_code == 2 and "has no task 'no-such-task'" in _err(result)


def test_level_a_task_lacks_is_refused(cli, files, tmp_path):
    seq = files[1]
    result = cli.invoke(app, ["run", str(seq), "--level", "L2", "--headless"])
    assert result.exit_code == 2 and "task 'read' of 'rtday' has no L2 instruction (it has L0)" in _err(result)


def test_unusable_device_is_a_clear_error(cli, tmp_path, monkeypatch):
    path = tmp_path / "any.yaml"
    path.write_text(ANY_YAML)
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", "1")  # nothing listens there
    monkeypatch.setenv("ADBUTILS_ADB_PATH", str(tmp_path / "no-adb"))
    monkeypatch.delenv("ADB_SERVER_SOCKET", raising=False)
    result = cli.invoke(app, ["run", str(path), "--device", "adb:XYZ", "--headless", "--out", str(tmp_path / "runs")])
    assert result.exit_code == 2
    assert _err(result).startswith("error: ") and "adb" in _err(result) and "Traceback" not in _err(result)
    assert not (tmp_path / "runs").exists()


def test_headless_run_prints_a_line_per_step_and_exits_zero(cli, files, tmp_path):
    out = tmp_path / "runs"
    result = cli.invoke(app, ["run", f"{files[0]}:budget", "--agent", "oracle", "--device", "sim", "--user",
                              "oracle", "--level", "L2", "--headless", "--out", str(out)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"run {out}")
    assert any(line.strip().startswith("1 open notes") for line in lines)  # steps count from 1
    assert any(line.startswith("■ rt:budget success · 3 steps") for line in lines)
    assert lines[-1].startswith("episodes in ")
    (run_dir,) = out.iterdir()
    meta = json.loads((run_dir / "run.json").read_text())
    assert meta["command"].startswith("guilens run") and meta["status"] == "completed"


def test_failed_episodes_still_exit_zero(cli, files, tmp_path):
    result = cli.invoke(app, ["run", f"{files[0]}:grocery", "--max-steps", "2", "--headless",
                              "--out", str(tmp_path / "runs")])
    assert result.exit_code == 0 and "rt:grocery timeout" in result.stdout


def test_human_agent_reads_commands_from_stdin(cli, files, tmp_path):
    typed = 'open notes\ntap "Nope"\ntap "Budget"\nanswer 42 dollars\n'
    result = cli.invoke(app, ["run", f"{files[0]}:budget", "--agent", "human", "--headless",
                              "--out", str(tmp_path / "runs")], input=typed)
    assert result.exit_code == 0, result.output
    assert "rt:budget success · 3 steps" in result.stdout
    (attempt,) = (tmp_path / "runs").glob("*/budget/attempt-1")
    steps = [json.loads(x) for x in (attempt / "steps.jsonl").read_text().splitlines()]
    assert [s["by"] for s in steps] == ["human"] * 3
    assert [s["action"]["type"] for s in steps] == ["open_app", "tap", "answer"]
    assert "no element on this screen matches 'Nope'" in _err(result)  # told, and asked again


def test_end_of_input_aborts_the_human_run(cli, files, tmp_path):
    result = cli.invoke(app, ["run", f"{files[0]}:budget", "--agent", "human", "--headless",
                              "--out", str(tmp_path / "runs")], input="open notes\n")
    assert result.exit_code == 0
    assert "rt:budget aborted · 1 step" in result.stdout


def test_human_user_answers_from_stdin(cli, files, tmp_path):
    result = cli.invoke(app, ["run", f"{files[0]}:grocery", "--user", "human", "--level", "L1", "--headless",
                              "--out", str(tmp_path / "runs")], input="\n")  # Enter accepts the suggestion
    assert result.exit_code == 0, result.output
    assert "rt:grocery success" in result.stdout and "[Enter: milk]" in _err(result)
