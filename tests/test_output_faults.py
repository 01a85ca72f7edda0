"""Output that cannot be written: a bad `--out`, a read-only or immutable folder, a file-size limit,
a disk that fills mid-run, a judge on a read-only run, `report --html` to nowhere.

Each ends as one `error:` line naming the path and the reason, exit status 2 for a place the person
named and 1 for the environment failing mid-run; a run that stops keeps everything it recorded before,
marks episode.json and run.json with the reason, and leaves no temporary files.

Root ignores permission bits, and tests run as root here and in CI, so read-only places are made
with what refuses root too: `/proc` and `/sys`, a path under a regular file, `chattr +i`, a read-only
bind mount and a small tmpfs in a private mount namespace (`unshare -m`; skipped where it is not
allowed), and `RLIMIT_FSIZE`. A disk that fills is also simulated in process (`FullDisk`), which
needs no privilege at all.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from guilens.cli import app
from guilens.episode import EpisodeReader
from guilens.storage import (
    RESERVE_BYTES,
    Reserve,
    StorageError,
    check_file_target,
    check_output_dir,
    write_atomic,
)
from tests.fault_helpers import (
    GUILENS,
    ROOT,
    FullDisk,
    assert_one_error_line,
    can_unshare_mounts,
    chattr_immutable,
    guilens,
    guilens_env,
    temporaries,
)

MOUNTS = pytest.mark.skipif(not can_unshare_mounts(), reason="no private mount namespace here (unshare -m)")


def _attempt(run_root: Path) -> Path:
    (ep,) = list(run_root.rglob("episode.json"))
    return ep.parent


def _run_dir(out: Path) -> Path:
    (run,) = [p for p in out.iterdir() if p.is_dir()]
    return run


# -- the write layer -------------------------------------------------------------------------------


def test_a_failed_write_names_the_file_and_leaves_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "screens" / "0005.png"
    target.parent.mkdir()
    with FullDisk(tmp_path, budget=10).installed(monkeypatch), pytest.raises(StorageError) as caught:
        write_atomic(target, b"x" * 100)
    assert str(caught.value) == f"{target}: cannot write: No space left on device"
    assert caught.value.full and not target.exists() and temporaries(tmp_path) == []


def test_the_reserve_is_given_up_for_the_last_marks(tmp_path, monkeypatch):
    with FullDisk(tmp_path, budget=RESERVE_BYTES + 50).installed(monkeypatch) as disk:
        reserve = Reserve(tmp_path / ".guilens-reserve")
        assert reserve.held and disk.budget == 50
        with pytest.raises(StorageError):
            write_atomic(tmp_path / "screen.png", b"x" * 1000)  # not a mark: the reserve stays
        assert reserve.held
        write_atomic(tmp_path / "episode.json", b"{}" * 500, reserve=reserve)
    assert not reserve.held and (tmp_path / "episode.json").stat().st_size == 1000
    assert temporaries(tmp_path) == [] and not (tmp_path / ".guilens-reserve").exists()


def test_output_folders_are_checked_without_creating_anything(tmp_path):
    check_output_dir(tmp_path / "a" / "b")  # to be made: fine, and not made yet
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "f").write_text("x")
    for bad, why in [(tmp_path / "f", "it is a file, not a folder"),
                     (tmp_path / "f" / "sub", f"{tmp_path / 'f'} is a file, not a folder"),
                     (Path("/proc/x"), "cannot make a folder in /proc: it takes no new files")]:
        with pytest.raises(StorageError) as caught:
            check_output_dir(bad)
        assert str(caught.value).startswith(f"{bad}: cannot write: {why}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f"]


def test_a_file_target_is_checked_without_changing_it(tmp_path):
    target = tmp_path / "report.html"
    check_file_target(target)  # not there yet, in a folder that takes files
    target.write_text("old")
    target.chmod(0o444)
    check_file_target(target)  # read-only by mode: the rename still replaces it
    assert target.read_text() == "old"
    for bad, why in [(tmp_path, "it is a folder, not a file"),
                     (target / "x.html", f"{target}: cannot write: it is a file, not a folder"),
                     (Path("/proc/report.html"), "/proc: cannot write: it takes no new files")]:
        with pytest.raises(StorageError) as caught:
            check_file_target(bad)
        assert why in str(caught.value)
    if not chattr_immutable(target, True):
        pytest.skip("chattr +i is not supported here")
    try:
        with pytest.raises(StorageError) as caught:
            check_file_target(target)
    finally:
        chattr_immutable(target, False)
    assert str(caught.value) == f"{target}: cannot write: Operation not permitted (immutable or otherwise protected?)"
    assert target.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]


# -- a bad --out: exit status 2, before anything is written ---------------------------------------------


def _bad_out_cases(tmp_path: Path) -> list[tuple[list[str], dict[str, str], str, str]]:
    (tmp_path / "file").write_text("not a folder")
    cases = [
        (["--out", "/proc/x"], {}, "--out /proc/x: cannot write: cannot make a folder in /proc", "proc"),
        (["--out", str(tmp_path / "file")], {}, f"--out {tmp_path / 'file'}: cannot write: it is a file", "file"),
        (["--out", str(tmp_path / "file" / "runs")], {}, f"{tmp_path / 'file'} is a file, not a folder", "under"),
        ([], {"GUILENS_RUN_DIR": "/proc/runs"}, "GUILENS_RUN_DIR=/proc/runs: cannot write", "env"),
    ]
    if Path("/sys/kernel").is_dir():
        cases.append((["--out", "/sys/kernel/x"], {}, "--out /sys/kernel/x: cannot write: cannot make a folder", "sys"))
    return cases


def test_a_bad_out_is_one_line_and_exit_status_2(tmp_path):
    for args, env, message, _ in _bad_out_cases(tmp_path):
        done = guilens("run", "demo", "--headless", *args, env=guilens_env(**env), cwd=tmp_path)
        assert done.returncode == 2, (args, env, done.stderr)
        assert_one_error_line(done.stderr, message)
        assert done.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]  # nothing made anywhere


def test_an_immutable_folder_is_refused(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    if not chattr_immutable(locked, True):
        pytest.skip("chattr +i is not supported here")
    try:
        done = guilens("run", "demo", "--headless", "--out", str(locked / "runs"))
        env = guilens("run", "demo", "--headless", env=guilens_env(GUILENS_RUN_DIR=str(locked)))
    finally:
        chattr_immutable(locked, False)
    assert done.returncode == 2 and env.returncode == 2
    assert_one_error_line(done.stderr, f"--out {locked / 'runs'}: cannot write: cannot make a folder in {locked}",
                          "Operation not permitted")
    assert_one_error_line(env.stderr, f"GUILENS_RUN_DIR={locked}: cannot write: Operation not permitted")
    assert list(locked.iterdir()) == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a 0555 folder; the root cases use chattr and mounts")
def test_a_read_only_folder_is_refused_for_a_normal_user(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir(mode=0o555)
    done = guilens("run", "demo", "--headless", "--out", str(ro / "runs"))
    assert done.returncode == 2
    assert_one_error_line(done.stderr, f"--out {ro / 'runs'}: cannot write", "Permission denied")


@MOUNTS
def test_a_read_only_mount_refuses_runs_verdicts_and_reports(tmp_path):
    base = tmp_path / "ro"
    base.mkdir()
    assert guilens("run", "demo", "--headless", "--out", str(base / "runs")).returncode == 0
    run = _run_dir(base / "runs")
    g = " ".join(GUILENS)
    script = (f"mount --bind {base} {base} && mount -o remount,bind,ro {base} && "
              f"{{ {g} run demo --headless --out {base}/runs; echo rc=$?; "
              f"{g} judge {run} --rules-only; echo rc=$?; "
              f"{g} report {run} --html {base}/report.html >/dev/null; echo rc=$?; }}")
    done = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script], capture_output=True,
                          text=True, env=guilens_env(), cwd=ROOT, timeout=180)
    codes = [line for line in done.stdout.splitlines() if line.startswith("rc=")]
    assert codes == ["rc=2", "rc=2", "rc=2"], done.stdout + done.stderr
    errors = done.stderr.strip().splitlines()
    assert "Traceback" not in done.stderr and len(errors) == 3, done.stderr
    assert errors[0] == f"error: --out {base / 'runs'}: cannot write: Read-only file system"
    assert errors[1].startswith(f"error: {_attempt(run)}: cannot write verdict.json here: Read-only file system")
    assert errors[2] == f"error: --html {base / 'report.html'}: cannot write: {base}: Read-only file system"
    assert not (_attempt(run) / "verdict.json").exists() and len(list((base / "runs").iterdir())) == 1


def test_judge_refuses_an_immutable_run_before_judging(tmp_path):
    assert guilens("run", "demo", "--headless", "--out", str(tmp_path / "runs")).returncode == 0
    attempt = _attempt(tmp_path / "runs")
    if not chattr_immutable(attempt, True):
        pytest.skip("chattr +i is not supported here")
    try:
        done = guilens("judge", str(tmp_path / "runs"), "--rules-only")
    finally:
        chattr_immutable(attempt, False)
    assert done.returncode == 2
    assert_one_error_line(done.stderr, f"{attempt}: cannot write verdict.json here: Operation not permitted")
    assert not (attempt / "verdict.json").exists()


def test_report_html_to_an_unwritable_path_is_one_line(tmp_path):
    assert guilens("run", "demo", "--headless", "--out", str(tmp_path / "runs")).returncode == 0
    (tmp_path / "file").write_text("x")
    for target, message in [("/proc/report.html", "--html /proc/report.html: cannot write: /proc: it takes no new"),
                            (str(tmp_path / "file" / "r.html"), f"{tmp_path / 'file'}: it is a file, not a folder"),
                            (str(tmp_path), f"--html {tmp_path}: it is a folder")]:
        done = guilens("report", str(tmp_path / "runs"), "--html", target)
        assert done.returncode == 2, done.stderr
        assert_one_error_line(done.stderr, message)
        assert done.stdout == ""


def test_an_immutable_verdict_or_report_is_refused_and_a_current_verdict_still_read(tmp_path):
    runs = tmp_path / "runs"
    assert guilens("run", "demo", "--headless", "--out", str(runs)).returncode == 0
    assert guilens("judge", str(runs), "--rules-only").returncode == 0
    verdict = _attempt(runs) / "verdict.json"
    html = tmp_path / "report.html"
    html.write_text("old")
    if not chattr_immutable(verdict, True):
        pytest.skip("chattr +i is not supported here")
    chattr_immutable(html, True)
    try:
        reused = guilens("judge", str(runs), "--rules-only")  # current: read back, nothing to write
        forced = guilens("judge", str(runs), "--rules-only", "--force")
        report = guilens("report", str(runs), "--html", str(html))
    finally:
        chattr_immutable(verdict, False)
        chattr_immutable(html, False)
    assert reused.returncode == 0 and "success" in reused.stdout, reused.stderr
    assert forced.returncode == 2 and report.returncode == 2
    assert_one_error_line(forced.stderr, f"{verdict}: cannot replace it: Operation not permitted")
    assert_one_error_line(report.stderr, f"--html {html}: cannot write: Operation not permitted")
    assert html.read_text() == "old" and temporaries(tmp_path) == []


def test_an_os_error_no_command_caught_is_one_line_with_exit_status_1(monkeypatch, capsys, tmp_path):
    import errno
    import sys

    from guilens.cli import main
    from guilens.judge import pipeline

    assert guilens("run", "demo", "--headless", "--out", str(tmp_path / "runs")).returncode == 0

    def broken(*args: object, **kw: object) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO), str(tmp_path / "x" / "verdict.json"))

    monkeypatch.setattr(pipeline, "judge_path", broken)
    monkeypatch.setattr(sys, "argv", ["guilens", "judge", str(tmp_path / "runs"), "--rules-only"])
    with pytest.raises(SystemExit) as code:
        main()
    assert code.value.code == 1
    err = capsys.readouterr().err
    assert err == f"error: {tmp_path / 'x' / 'verdict.json'}: cannot write: Input/output error\n"


# -- the environment failing mid-run: exit status 1, the record kept and marked ------------------------------


def _check_stopped_run(out: Path, *, why: str) -> Path:
    """What a run stopped by its disk leaves: marked records, whole steps and screens, no temporaries."""
    run = _run_dir(out)
    attempt = _attempt(run)
    meta = json.loads((run / "run.json").read_text())
    assert meta["status"] == "error" and meta["pid"] is None
    assert any(w.startswith("run stopped: ") and why in w for w in meta["warnings"]), meta["warnings"]
    reader = EpisodeReader(attempt)
    ep = reader.episode
    assert ep.status == "error" and ep.error is not None and ep.error.startswith("recording stopped: ")
    assert why in ep.error and f"/{attempt.parent.name}/{attempt.name}/" in ep.error
    lines = (attempt / "steps.jsonl").read_text().splitlines()
    assert ep.steps == len(reader.steps) == len(lines) and reader.dropped_lines == 0
    assert [s.index for s in reader.steps] == list(range(ep.steps))
    for s in reader.steps:
        assert reader.screen(s.index) is not None  # every recorded step's screen is whole
    assert temporaries(out) == [] and not (run / ".guilens-reserve").exists()
    return attempt


def test_a_disk_that_fills_mid_run_stops_it_cleanly(tmp_path, monkeypatch):
    out = tmp_path / "runs"
    cli = CliRunner()
    monkeypatch.setenv("GUILENS_CONFIG_FILE", os.devnull)
    with FullDisk(tmp_path, budget=RESERVE_BYTES + 500_000).installed(monkeypatch) as disk:
        done = cli.invoke(app, ["run", "demo", "--headless", "--out", str(out)])
    assert disk.failures >= 1
    assert done.exit_code == 1, done.output
    err = done.stderr.splitlines()
    assert err[0].startswith("error: the run stopped: ") and err[0].endswith("cannot write: No space left on device")
    assert err[1].startswith("  what was recorded before is kept in ") and len(err) == 2, done.stderr
    attempt = _check_stopped_run(out, why="No space left on device")
    assert 0 < EpisodeReader(attempt).episode.steps < 16  # stopped part way through the demo's 16 steps
    assert f"error · {EpisodeReader(attempt).episode.steps} steps" in done.stdout
    report = cli.invoke(app, ["report", str(out), "--json"])
    assert report.exit_code == 0 and json.loads(report.stdout)["episodes"][0]["status"] == "error"


def test_a_disk_too_full_to_mark_the_end_says_what_it_could_not_write(tmp_path, monkeypatch):
    out = tmp_path / "runs"
    monkeypatch.setenv("GUILENS_CONFIG_FILE", os.devnull)
    with FullDisk(tmp_path, budget=120_000).installed(monkeypatch):  # no room for a reserve
        done = CliRunner().invoke(app, ["run", "demo", "--headless", "--out", str(out)])
    assert done.exit_code == 1
    err = done.stderr.splitlines()
    assert err[0].startswith("error: the run stopped: ") and "No space left on device" in err[0]
    unmarked = [line for line in err if line.startswith("  not marked as ended: ")]
    assert {Path(line.split(": ")[1]).name for line in unmarked} == {"episode.json", "run.json"}, done.stderr
    assert temporaries(out) == []
    reader = EpisodeReader(_attempt(out))  # still the record of its start, and every step it wrote
    assert reader.episode.status == "running" and reader.episode.steps == len(reader.steps)


@MOUNTS
def test_a_real_full_disk_stops_the_run_cleanly(tmp_path):
    disk, kept = tmp_path / "disk", tmp_path / "kept"
    disk.mkdir()
    script = (f"mount -t tmpfs -o size=1200k tmpfs {disk} && "
              f"{' '.join(GUILENS)} run demo --headless --out {disk}/runs; echo rc=$? >&2; cp -a {disk}/. {kept}")
    done = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script], capture_output=True,
                          text=True, env=guilens_env(), cwd=ROOT, timeout=180)
    assert done.stderr.strip().endswith("rc=1"), done.stderr
    assert_one_error_line(done.stderr, "error: the run stopped: ", f"{disk}/runs/",
                          "cannot write: No space left on device")
    attempt = _check_stopped_run(kept / "runs", why="No space left on device")
    assert EpisodeReader(attempt).episode.steps > 0


def test_a_file_size_limit_stops_the_run_and_names_the_file(tmp_path):
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (60_000, 60_000))  # a screen is bigger; the records are not

    done = subprocess.run([*GUILENS, "run", "demo", "--headless", "--out", str(tmp_path / "runs")],
                          capture_output=True, text=True, env=guilens_env(), cwd=ROOT, preexec_fn=limit, timeout=180)
    assert done.returncode == 1, done.stderr
    assert_one_error_line(done.stderr, "error: the run stopped: ", "screens/0000.png: cannot write: File too large",
                          "ulimit -f")
    _check_stopped_run(tmp_path / "runs", why="File too large")


def test_an_unwritable_attempt_folder_stops_the_run_before_its_first_step(tmp_path, monkeypatch):
    """The run directory is made, then the task's folder cannot be: one line, exit 1, run.json marked."""
    from guilens import recorder

    real_mkdir = Path.mkdir

    def refuse(self: Path, *args: object, **kw: object) -> None:
        if self.name == "screens":
            raise PermissionError(13, "Permission denied", str(self))
        real_mkdir(self, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setenv("GUILENS_CONFIG_FILE", os.devnull)
    monkeypatch.setattr(recorder.Path, "mkdir", refuse)
    done = CliRunner().invoke(app, ["run", "demo", "--headless", "--out", str(tmp_path / "runs")])
    assert done.exit_code == 1 and "Traceback" not in done.output
    assert done.stderr.startswith("error: the run stopped: ") and "screens: cannot write: Permission denied" in done.stderr
    meta = json.loads((_run_dir(tmp_path / "runs") / "run.json").read_text())
    assert meta["status"] == "error" and "Permission denied" in meta["warnings"][0]
