"""`guilens run`'s exit status, through the real command: 0 the run completed (outcomes are data),
1 an episode ended `error`, 2 a mistake on the command line, 130 interrupted."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

from guilens.commands.run import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from tests.fault_helpers import GUILENS, ROOT, guilens, guilens_env, printed_steps
from tests.runner_helpers import write_scenarios


def test_the_four_exit_statuses(tmp_path: Path) -> None:
    files = write_scenarios(tmp_path)
    ok = guilens("run", "demo", "--headless", "--out", str(tmp_path / "ok"))
    failed = guilens("run", f"{files[0]}:grocery", "--max-steps", "2", "--headless", "--out", str(tmp_path / "t"))
    broken = guilens("run", "demo", "--agent", "tests.fault_helpers:Crashing", "--headless",
                     "--out", str(tmp_path / "err"))
    usage = guilens("run", "demo", "--level", "L9", "--headless", "--out", str(tmp_path / "u"))
    assert (ok.returncode, failed.returncode, broken.returncode, usage.returncode) == (
        EXIT_OK, EXIT_OK, EXIT_ERROR, EXIT_USAGE) == (0, 0, 1, 2)
    assert "grocery timeout" in failed.stdout  # a failed outcome is data, not a failed run
    assert "demo:headphones-to-mom error" in broken.stdout and "RuntimeError: the agent's own bug" in broken.stdout
    assert "Traceback" not in broken.stderr
    (run,) = (tmp_path / "err").iterdir()
    assert json.loads((run / "run.json").read_text())["status"] == "completed"  # the run itself did complete


def _ctrl_c_as_in_a_terminal() -> None:
    """SIGINT as a terminal's command gets it: a suite started in the background of a shell without
    job control (`.ci/run &` from a script) ignores SIGINT, and its children inherit that."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_exits_130_and_keeps_what_was_recorded(tmp_path: Path) -> None:
    proc = subprocess.Popen([*GUILENS, "run", "memory", "--headless", "--out", str(tmp_path / "runs")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=guilens_env(), cwd=ROOT,
                            preexec_fn=_ctrl_c_as_in_a_terminal)
    assert proc.stdout is not None
    seen = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        seen.append(line)
        if line.startswith("■ "):  # one task done, the next one under way
            break
    time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == EXIT_INTERRUPTED == 130, err
    assert "Traceback" not in err
    (run,) = (tmp_path / "runs").iterdir()
    assert json.loads((run / "run.json").read_text())["status"] == "interrupted"
    printed = printed_steps("".join(seen) + out)
    assert len(printed) >= 2


def test_a_tui_run_stopped_by_the_disk_exits_1_with_one_line(capsys) -> None:
    """The run screen hands the runner's error back once the terminal is restored; the command says it
    in one line and exits 1, as a headless run does (it used to show a notice and exit 0)."""
    import errno

    import typer

    from guilens.commands.run import _run_in_tui
    from guilens.device.base import DeviceNotFound
    from guilens.storage import StorageError

    def disk_full(plan, renderer=None):
        raise StorageError.of("/runs/r/t/attempt-1/steps.jsonl", OSError(errno.ENOSPC, "No space left on device"))

    code, result = _run_in_tui(disk_full, None, None)  # type: ignore[arg-type]
    err = capsys.readouterr().err
    assert (code, result) == (1, None)
    assert err.count("\n") == 1 and "steps.jsonl" in err and "No space left" in err

    def no_phone(plan, renderer=None):
        raise DeviceNotFound("adb:XYZ is not attached")

    try:
        _run_in_tui(no_phone, None, None)  # type: ignore[arg-type]
    except typer.Exit as exit_:
        assert exit_.exit_code == 2
    assert "adb:XYZ" in capsys.readouterr().err
