"""Faults for the fault-injection tests: agents that kill or break their own run, a disk that fills,
and real `guilens` processes to kill.

The agents are real plug-ins (`--agent tests.fault_helpers:KillAt`), loaded the way a user's own
agent is; a subprocess finds them through `PYTHONPATH` (`guilens_env`).
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from guilens.agents.base import AgentStep, StepInput
from guilens.agents.oracle import OracleAgent

ROOT = Path(__file__).resolve().parent.parent
GUILENS = [sys.executable, "-m", "guilens"]
STEP_LINE = re.compile(r"^ {2,}(?:(\S+:\S+) )?\s*(\d+) ")
"""A headless step line: `    7 tap ...` (a batch names the task first)."""


class KillAt(OracleAgent):
    """The oracle, until the process kills itself with SIGKILL while deciding step `GUILENS_KILL_AT` (0-based)."""

    name = "killat"

    def step(self, inp: StepInput) -> AgentStep:
        if inp.index == int(os.environ.get("GUILENS_KILL_AT", "3")):
            os.kill(os.getpid(), signal.SIGKILL)
        return super().step(inp)


class Crashing(OracleAgent):
    """The oracle with a bug: it raises on its third step (the episode ends `error`)."""

    name = "crashing"

    def step(self, inp: StepInput) -> AgentStep:
        if inp.index == 2:
            raise RuntimeError("the agent's own bug")
        return super().step(inp)


def guilens_env(**extra: str) -> dict[str, str]:
    """The environment for a `guilens` subprocess: this checkout's tests importable, no config file, no key."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GUILENS_") and k != "ANTHROPIC_API_KEY"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    env["GUILENS_CONFIG_FILE"] = os.devnull
    env.update(extra)
    return env


def guilens(*args: str, **kw: Any) -> subprocess.CompletedProcess[str]:
    """Run the real `guilens` command; capture its output."""
    kw.setdefault("env", guilens_env())
    kw.setdefault("timeout", 180)
    return subprocess.run([*GUILENS, *args], capture_output=True, text=True, cwd=kw.pop("cwd", ROOT), **kw)


def printed_steps(stdout: str) -> dict[str, int]:
    """Per attempt (`scenario:task`), the highest step number the headless printer showed (numbered from 1)."""
    out: dict[str, int] = {}
    current = None
    for line in stdout.splitlines():
        if line.startswith("▶ "):
            current = line[2:].split(" ", 1)[0]
            out.setdefault(current, 0)
            continue
        m = STEP_LINE.match(line)
        if m and current is not None and not line.lstrip().startswith(("■", "▶")):
            task = m.group(1) or current
            out[task] = max(out.get(task, 0), int(m.group(2)))
    return out


def assert_one_error_line(stderr: str, *needles: str) -> None:
    """A failure said as it should be: one `error:` line first, naming what it must, no traceback."""
    assert "Traceback" not in stderr, stderr
    first = stderr.strip().splitlines()[0] if stderr.strip() else ""
    assert first.startswith("error: "), stderr
    for needle in needles:
        assert needle in first, (needle, stderr)


def temporaries(root: Path) -> list[Path]:
    return sorted(root.rglob(".*.tmp"))


class FullDisk:
    """A disk with `budget` bytes left under `root`, in process: guilens' file writes there fail with
    ENOSPC once it is spent, after writing what fit (as a real full disk does), and so does making a
    file there. Writes elsewhere pass through. `giveback` bytes come back when a file under `root`
    is removed, as the reserve's blocks do."""

    def __init__(self, root: Path, budget: int) -> None:
        self.root = str(root.resolve())
        self.budget = budget
        self.failures = 0

    def _under(self, path: str | os.PathLike[str] | int) -> bool:
        if isinstance(path, int):
            try:
                path = os.readlink(f"/proc/self/fd/{path}")
            except OSError:
                return False
        return os.path.abspath(os.fspath(path)).startswith(self.root + os.sep)

    def _spend(self, n: int) -> int:
        took = max(0, min(n, self.budget))
        self.budget -= took
        return took

    def _full(self, path: str) -> OSError:
        self.failures += 1
        return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    @contextmanager
    def installed(self, monkeypatch: pytest.MonkeyPatch) -> Iterator[FullDisk]:
        import builtins

        import guilens.recorder
        import guilens.storage

        real_open, real_write, real_unlink = builtins.open, os.write, os.unlink
        disk = self

        class Limited:
            def __init__(self, f: Any, path: str) -> None:
                self._f, self._path = f, path

            def write(self, data: bytes) -> int:
                took = disk._spend(len(data))
                if took:
                    self._f.write(data[:took])
                if took < len(data):
                    raise disk._full(self._path)
                return took

            def __enter__(self) -> Limited:
                return self

            def __exit__(self, *exc: object) -> None:
                self._f.close()

            def __getattr__(self, name: str) -> Any:
                return getattr(self._f, name)

        def fake_open(file: Any, mode: str = "r", *args: Any, **kw: Any) -> Any:
            f = real_open(file, mode, *args, **kw)
            if any(c in mode for c in "wax") and disk._under(file):
                return Limited(f, os.fspath(file))
            return f

        def fake_write(fd: int, data: Any) -> int:
            if not disk._under(fd):
                return real_write(fd, data)
            took = disk._spend(len(data))
            if took == 0:
                raise disk._full(str(fd))
            return real_write(fd, bytes(data[:took]))

        def fake_unlink(path: Any, *args: Any, **kw: Any) -> None:
            if disk._under(path) and os.path.basename(os.fspath(path)) == ".guilens-reserve":
                disk.budget += os.path.getsize(path)
            real_unlink(path, *args, **kw)

        monkeypatch.setattr(guilens.storage, "open", fake_open, raising=False)
        monkeypatch.setattr(guilens.recorder.os, "write", fake_write)
        monkeypatch.setattr(guilens.storage.os, "unlink", fake_unlink)
        monkeypatch.setattr(guilens.storage.os, "posix_fallocate", no_fallocate)  # the reserve is written, and spends
        yield self


def no_fallocate(fd: int, offset: int, size: int) -> None:
    raise OSError(errno.EOPNOTSUPP, os.strerror(errno.EOPNOTSUPP))


def can_unshare_mounts() -> bool:
    """Whether this machine lets us mount (a tmpfs, a read-only bind) in a private mount namespace."""
    if not shutil.which("unshare") or sys.platform != "linux":
        return False
    probe = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c",
                            "mount -t tmpfs -o size=64k tmpfs /mnt 2>/dev/null || "
                            "mount -t tmpfs -o size=64k tmpfs /tmp"],
                           capture_output=True, timeout=30)
    return probe.returncode == 0


def chattr_immutable(path: Path, on: bool) -> bool:
    """`chattr +i` / `-i`; False where the tool or the file system does not have it."""
    if not shutil.which("chattr"):
        return False
    done = subprocess.run(["chattr", "+i" if on else "-i", str(path)], capture_output=True)
    return done.returncode == 0
