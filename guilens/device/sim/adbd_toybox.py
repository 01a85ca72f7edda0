"""The toybox commands adb tools expect on a phone: `cp`, `mv`, `touch`, `mkdir`, `which`, and the
text filters (`grep`, `head`, `tail`, `wc`) agents pipe `dumpsys` through.

UI-automation libraries prepare their dump file with `cp /dev/null F` or
`touch F` before `uiautomator dump F && cat F`, and check for a binary with
`which`. These work on the sim's in-memory files (adbd_sync.VirtualFiles) with
toybox's messages and exit codes, since tools branch on both.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from guilens.device.sim.adbd_shell import Command, ShellResult, each_path, fail, ok
from guilens.device.sim.adbd_sync import VirtualFiles, normpath


class ToyboxCommands:
    """`known()` lists the command names the shell has, for `which`."""

    def __init__(self, files: VirtualFiles, known: Callable[[], Iterable[str]]) -> None:
        self.files = files
        self.known = known

    def commands(self) -> dict[str, Command]:
        return {
            "cp": lambda a, i: self._copy(a, move=False),
            "mv": lambda a, i: self._copy(a, move=True),
            "touch": self.touch,
            "mkdir": self.mkdir,
            "which": self.which,
            "grep": self._grep,
            "head": lambda a, i: self._head_tail(a, i, head=True),
            "tail": lambda a, i: self._head_tail(a, i, head=False),
            "wc": self._wc,
        }

    def _copy(self, args: list[str], *, move: bool) -> ShellResult:
        name = "mv" if move else "cp"
        paths = [a for a in args if not (a.startswith("-") and len(a) > 1)]
        if len(paths) < 2:
            return fail(f"{name}: Needs 2 arguments")
        *sources, target = paths
        into_dir = self.files.is_dir(target)
        if len(sources) > 1 and not into_dir:
            return fail(f"{name}: '{target}' not directory")

        def one(source: str) -> str | None:
            data = self.files.read(source)
            if data is None:
                return f"{source}: " + ("Is a directory" if self.files.is_dir(source) else "No such file or directory")
            dest = normpath(target) + "/" + normpath(source).rsplit("/", 1)[-1] if into_dir else target
            self.files.write(dest, data)
            if move:
                self.files.remove(source)
            return None

        return each_path(name, sources, one)

    def touch(self, args: list[str], stdin: bytes) -> ShellResult:
        paths = [a for a in args if not a.startswith("-")]
        if not paths:
            return fail("touch: Needs 1 argument")
        return each_path("touch", paths, self.files.touch)

    def mkdir(self, args: list[str], stdin: bytes) -> ShellResult:
        parents = any(a.startswith("-") and "p" in a for a in args)
        paths = [a for a in args if not a.startswith("-")]
        if not paths:
            return fail("mkdir: Needs 1 argument")

        def one(path: str) -> str | None:
            if self.files.is_dir(path):
                return None if parents else f"'{path}': File exists"
            self.files.mkdir(path)
            return None

        return each_path("mkdir", paths, one)

    def which(self, args: list[str], stdin: bytes) -> ShellResult:
        """The path of each command the shell has; exit 1 if any is missing, as toybox does."""
        names = [a for a in args if not a.startswith("-")]
        known = set(self.known())
        out: list[str] = []
        code = 0 if names else 1
        for name in names:
            path = name if "/" in name else f"/system/bin/{name}"
            if path.startswith("/system/bin/") and path.removeprefix("/system/bin/") in known:
                out.append(path)
            else:
                code = 1
        return ShellResult("".join(f"{o}\n" for o in out).encode(), b"", code)

    def _grep(self, args: list[str], stdin: bytes) -> ShellResult:
        flags = ""
        rest: list[str] = []
        for a in args:
            if a.startswith("-") and len(a) > 1 and not rest:
                flags += a[1:]
            else:
                rest.append(a)
        if not rest:
            return fail("usage: grep [-civE] PATTERN [FILE...]", 2)
        pattern, paths = rest[0], rest[1:]
        data = stdin if not paths else b"".join(self.files.read(p) or b"" for p in paths)
        try:
            regex = re.compile(pattern if "F" not in flags else re.escape(pattern), re.I if "i" in flags else 0)
        except re.error:
            regex = re.compile(re.escape(pattern), re.I if "i" in flags else 0)
        lines = data.decode("utf-8", "replace").splitlines()
        hits = [ln for ln in lines if bool(regex.search(ln)) != ("v" in flags)]
        if "c" in flags:
            return ShellResult(f"{len(hits)}\n".encode(), b"", 0 if hits else 1)
        return ShellResult("".join(f"{h}\n" for h in hits).encode(), b"", 0 if hits else 1)

    def _head_tail(self, args: list[str], stdin: bytes, *, head: bool) -> ShellResult:
        count = 10
        paths: list[str] = []
        it = iter(args)
        for a in it:
            if a == "-n":
                count = int(next(it, "10"))
            elif a.startswith("-") and a[1:].isdigit():
                count = int(a[1:])
            elif a.startswith("-n") and a[2:].isdigit():
                count = int(a[2:])
            else:
                paths.append(a)
        data = stdin if not paths else b"".join(self.files.read(p) or b"" for p in paths)
        lines = data.splitlines(keepends=True)
        picked = lines[:count] if head else lines[-count:] if count else []
        return ok(b"".join(picked))

    def _wc(self, args: list[str], stdin: bytes) -> ShellResult:
        lines = stdin.count(b"\n")
        if "-l" in args:
            return ok(f"{lines}\n")
        return ok(f"{lines} {len(stdin.split())} {len(stdin)}\n")
