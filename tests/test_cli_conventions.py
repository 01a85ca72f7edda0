"""The conventions of a Python CLI: `--version`/`-V`, `NO_COLOR` and `--no-color` in a real
pseudo-terminal, shell completion, `--json` that is alone on stdout, and tables that stay whole
when piped."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from guilens import __version__
from guilens.cli import app

ROOT = Path(__file__).resolve().parent.parent
GUILENS = [sys.executable, "-m", "guilens"]
LONG_TASK = "a-task-name-long-enough-that-an-80-column-table-folds-it"  # the 64 allowed, nearly
LONG_YAML = f"""\
id: longnames
title: A task with a long name
device: sim
tasks:
  - id: {LONG_TASK}
    apps: [settings]
    instruction: {{L0: "Go to the home screen."}}
    difficulty: 1
    golden_steps: 1
    milestones:
      - {{id: home, text: "The home screen is shown"}}
    reference: [home]
"""


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A config file of its own, no colour switch and no width from outside."""
    monkeypatch.setenv("GUILENS_CONFIG_FILE", str(tmp_path / "none.toml"))
    monkeypatch.setenv("GUILENS_CACHE_DIR", str(tmp_path / "cache"))
    for name in ("NO_COLOR", "COLUMNS", "FORCE_COLOR", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return dict(os.environ)


def in_pty(args: list[str], env: dict[str, str], cwd: Path) -> bytes:
    """Run guilens with a pseudo-terminal as stdin, stdout and stderr (as a person's shell would) and
    return everything it wrote there."""
    main, child = pty.openpty()
    proc = subprocess.Popen([*GUILENS, *args], stdin=child, stdout=child, stderr=child, env=env, cwd=cwd,
                            close_fds=True)
    os.close(child)
    out = bytearray()
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # EIO: the child closed its end
            break
        if not chunk:
            break
        out += chunk
    proc.wait(timeout=120)
    os.close(main)
    return bytes(out)


# -- version ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version_flag_prints_the_one_version(flag: str, env: dict[str, str]) -> None:
    got = CliRunner().invoke(app, [flag])
    assert got.exit_code == 0, got.output
    assert got.output == f"guilens {__version__}\n"
    assert CliRunner().invoke(app, ["version"]).output == got.output  # the command stays


def test_the_version_is_written_in_one_place() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    source = ROOT / project["tool"]["hatch"]["version"]["path"]
    assert source == ROOT / "guilens" / "__init__.py"
    assert f'__version__ = "{__version__}"' in source.read_text(encoding="utf-8")


def test_packaging_metadata_license_and_typed_marker() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "MIT" and "LICENSE" in project["license-files"]
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    assert "Typing :: Typed" in project["classifiers"] and project["keywords"]
    assert (ROOT / "guilens" / "py.typed").is_file()  # inside the package: the wheel carries it


# -- colour ----------------------------------------------------------------------------------------
def test_a_headless_run_in_a_terminal_is_coloured_by_default(env: dict[str, str], tmp_path: Path) -> None:
    """The control for the two tests below: the pseudo-terminal is a terminal, so colour would show."""
    out = in_pty(["run", "demo", "--headless", "--out", str(tmp_path / "runs")], env, tmp_path)
    assert b"episodes in" in out
    assert b"\x1b[" in out


@pytest.mark.parametrize("how", ["NO_COLOR=1", "--no-color"])
def test_no_color_means_no_escape_sequences(how: str, env: dict[str, str], tmp_path: Path) -> None:
    args = ["run", "demo", "--headless", "--out", str(tmp_path / "runs")]
    if how == "--no-color":
        args = ["--no-color", *args]
    else:
        env = {**env, "NO_COLOR": "1"}
    out = in_pty(args, env, tmp_path)
    assert b"episodes in" in out and b"success" in out
    assert b"\x1b" not in out, out[:400]


@pytest.mark.parametrize("how", ["NO_COLOR=yes", "--no-color"])
def test_no_color_reaches_error_lines_and_secho(how: str, env: dict[str, str], tmp_path: Path) -> None:
    def run(*args: str) -> bytes:
        if how == "--no-color":
            return in_pty(["--no-color", *args], env, tmp_path)
        return in_pty(list(args), {**env, "NO_COLOR": "yes"}, tmp_path)

    failed = run("scenarios", "show", "no-such-scenario")  # the red `error:` line
    assert b"error:" in failed and b"\x1b" not in failed
    shown = run("scenarios", "show", "demo")  # secho(bold=True) headings
    assert b"demo" in shown and b"\x1b" not in shown
    coloured = in_pty(["scenarios", "show", "demo"], env, tmp_path)
    assert b"\x1b[" in coloured  # without the switch, the same headings are bold


def test_an_empty_no_color_is_not_a_switch(env: dict[str, str], tmp_path: Path) -> None:
    out = in_pty(["scenarios", "show", "no-such-scenario"], {**env, "NO_COLOR": ""}, tmp_path)
    assert b"\x1b[" in out  # no-color.org: only a non-empty value turns colour off


# -- completion ------------------------------------------------------------------------------------
def test_shell_completion_is_on(env: dict[str, str]) -> None:
    shown = subprocess.run([*GUILENS, "--show-completion", "bash"], capture_output=True, text=True, env=env)
    assert shown.returncode == 0 and "complete -o default -F _guilens_completion guilens" in shown.stdout
    done = subprocess.run(GUILENS, capture_output=True, text=True,
                          env={**env, "_GUILENS_COMPLETE": "complete_bash", "COMP_WORDS": "guilens cache pr",
                               "COMP_CWORD": "2"})
    assert done.returncode == 0 and done.stdout.split() == ["prune"]
    assert "--install-completion" in CliRunner().invoke(app, ["--help"]).output


# -- json ------------------------------------------------------------------------------------------
def test_run_json_is_alone_on_stdout(env: dict[str, str], tmp_path: Path) -> None:
    got = subprocess.run([*GUILENS, "run", "demo", "--json", "--out", str(tmp_path / "runs")],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert got.returncode == 0, got.stderr
    summary = json.loads(got.stdout)  # the whole of stdout is one JSON document
    assert summary["exit_status"] == 0 and summary["interrupted"] is False
    assert Path(summary["run_dir"]).is_dir()
    (ep,) = summary["episodes"]
    assert ep["scenario"] == "demo" and ep["attempt"] == 1 and ep["status"] == "success"
    assert ep["steps"] > 0 and len(ep["milestones"]) == ep["milestones_total"] > 0
    assert (Path(summary["run_dir"]) / ep["task"] / "attempt-1" / "episode.json").is_file()
    assert "episodes in" in got.stderr  # the progress went to stderr


def test_scenarios_list_show_and_locate_json(env: dict[str, str]) -> None:
    cli = CliRunner()
    listed = json.loads(cli.invoke(app, ["scenarios", "list", "--json"]).stdout)
    demo = next(s for s in listed if s["id"] == "demo")
    assert demo["tasks"] and demo["levels"] and demo["kind"] == "tasks"
    scenario = json.loads(cli.invoke(app, ["scenarios", "show", "demo", "--json"]).stdout)
    assert scenario["id"] == "demo" and [t["id"] for t in scenario["tasks"]] == demo["tasks"]
    task = json.loads(cli.invoke(app, ["scenarios", "show", f"demo:{demo['tasks'][0]}", "--json"]).stdout)
    assert task["scenario"] == "demo" and task["task"]["id"] == demo["tasks"][0]
    assert task["task"]["milestones"] and task["task"]["instruction"]["L0"]
    where = json.loads(cli.invoke(app, ["locate", "--json"]).stdout)
    assert where["config_file"] == env["GUILENS_CONFIG_FILE"] and where["cache"] == env["GUILENS_CACHE_DIR"]


# -- piped tables ----------------------------------------------------------------------------------
def test_a_piped_report_keeps_each_task_name_whole(env: dict[str, str], tmp_path: Path) -> None:
    scenario = tmp_path / "long.yaml"
    scenario.write_text(LONG_YAML, encoding="utf-8")
    ran = subprocess.run([*GUILENS, "run", str(scenario), "--json", "--out", str(tmp_path / "runs")],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert ran.returncode == 0, ran.stderr
    run_dir = json.loads(ran.stdout)["run_dir"]
    piped = subprocess.run([*GUILENS, "report", run_dir], capture_output=True, text=True, env=env, timeout=60)
    assert piped.returncode == 0, piped.stderr
    rows = [line for line in piped.stdout.splitlines() if LONG_TASK in line]
    assert len(rows) == 1, piped.stdout  # one row, whole: not folded into 4-character pieces
    assert "success" in rows[0] and len(rows[0]) > 80
