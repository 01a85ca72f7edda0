"""The simulated phone's `/system/bin/sh`: enough shell for what adb tools send.

Tools do not send bare commands. adbutils sends `rm -f X; uiautomator dump X &&
echo success`, the adb CLI joins its arguments with spaces and leaves quoting to
the device shell, and agents pipe `dumpsys window | grep mCurrentFocus`. So
this is a small POSIX-style interpreter: quoting (single, double, backslash),
`;`, `&&`, `||`, pipes, `>`/`>>`/`2>`/`2>&1` redirections and comments, with no
variable expansion (a `$` stays literal). The shell's own builtins live here,
toybox's file and text commands in `adbd_toybox.py`, and everything that
touches the phone in `adbd_commands.py`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from guilens.device.sim.adbd_sync import VirtualFiles


@dataclass
class ShellResult:
    stdout: bytes = b""
    stderr: bytes = b""
    code: int = 0
    exited: bool = False  # `exit` ran: stop the rest of the command line


def ok(out: str | bytes = b"") -> ShellResult:
    return ShellResult(out.encode() if isinstance(out, str) else out, b"", 0)


def fail(message: str, code: int = 1) -> ShellResult:
    return ShellResult(b"", (message.rstrip("\n") + "\n").encode(), code)


def each_path(name: str, paths: Iterable[str], act: Callable[[str], str | None]) -> ShellResult:
    """`act` on every path, as toybox does: a problem it returns or an OSError it raises goes to stderr as
    `NAME: problem`, the other paths still go, and the exit code is 1 if any had a problem."""
    err, code = bytearray(), 0
    for path in paths:
        try:
            problem = act(path)
        except OSError as exc:
            problem = str(exc)
        if problem is not None:
            err += f"{name}: {problem}\n".encode()
            code = 1
    return ShellResult(b"", bytes(err), code)


class ShellSyntaxError(ValueError):
    pass


@dataclass(frozen=True)
class Op:
    """An unquoted operator token (`;`, `&&`, `|`, `>`, `2>&1`, ...)."""

    text: str


_OPERATORS = ("2>&1", "&>", "2>>", "2>", ">>", "&&", "||", ">&", ";", "|", "&", ">", "<")


def tokenize(line: str) -> list[str | Op]:
    """Split a command line into words and operators, honouring sh quoting."""
    tokens: list[str | Op] = []
    word: list[str] = []
    in_word = False
    i, n = 0, len(line)

    def flush() -> None:
        nonlocal in_word
        if in_word:
            tokens.append("".join(word))
        word.clear()
        in_word = False

    while i < n:
        c = line[i]
        if c in " \t\r\n":
            flush()
            i += 1
        elif c == "#" and not in_word:
            break
        elif c == "'":
            end = line.find("'", i + 1)
            if end < 0:
                raise ShellSyntaxError("unterminated quoted string")
            word.append(line[i + 1 : end])
            in_word = True
            i = end + 1
        elif c == '"':
            i += 1
            in_word = True
            while True:
                if i >= n:
                    raise ShellSyntaxError("unterminated quoted string")
                d = line[i]
                if d == '"':
                    i += 1
                    break
                if d == "\\" and i + 1 < n and line[i + 1] in '$`"\\\n':
                    if line[i + 1] != "\n":
                        word.append(line[i + 1])
                    i += 2
                    continue
                word.append(d)
                i += 1
        elif c == "\\":
            if i + 1 < n and line[i + 1] != "\n":
                word.append(line[i + 1])
                in_word = True
            i += 2
        elif c in ";&|<>" or (c == "2" and not in_word and line.startswith(("2>", "2>>"), i)):
            flush()
            op = next(o for o in _OPERATORS if line.startswith(o, i))
            tokens.append(Op(op))
            i += len(op)
        else:
            word.append(c)
            in_word = True
            i += 1
    flush()
    return tokens


Command = Callable[[list[str], bytes], ShellResult]


class SimShell:
    """Runs command lines against one device; `call` is how it reaches the device's thread."""

    def __init__(
        self,
        device: Any,
        call: Callable[..., Any],
        *,
        adb_keyboard: bool = True,
        bridge: Any = None,
    ) -> None:
        from guilens.device.sim.adbd_commands import PhoneCommands
        from guilens.device.sim.adbd_toybox import ToyboxCommands

        self.files = VirtualFiles()
        self.phone = PhoneCommands(device, call, self.files, adb_keyboard=adb_keyboard, bridge=bridge)
        self._local = threading.local()  # the cancel event of the command line running on this thread
        self.commands: dict[str, Command] = {
            "echo": self._echo,
            "cat": self._cat,
            "rm": self._rm,
            "ls": self._ls,
            "true": lambda a, i: ok(),
            "false": lambda a, i: ShellResult(code=1),
            "exit": self._exit,
            "sleep": self._sleep,
            "id": lambda a, i: ok("uid=0(root) gid=0(root) groups=0(root) context=u:r:su:s0\n"),
            "whoami": lambda a, i: ok("root\n"),
            "su": self._su,
            "sh": self._sh,
            **ToyboxCommands(self.files, lambda: self.commands).commands(),
            **self.phone.commands(),
        }

    def run(self, line: str, stdin: bytes = b"", cancel: threading.Event | None = None) -> ShellResult:
        """Run a command line; `cancel`, once set (the stream closed), cuts a `sleep` short."""
        if cancel is None:
            return self._run(line, stdin)
        outer = getattr(self._local, "cancel", None)
        self._local.cancel = cancel
        try:
            return self._run(line, stdin)
        finally:
            self._local.cancel = outer

    def _run(self, line: str, stdin: bytes) -> ShellResult:
        try:
            tokens = tokenize(line)
        except ShellSyntaxError as problem:
            return fail(f"/system/bin/sh: syntax error: {problem}", 2)
        out, err = bytearray(), bytearray()
        code = 0
        exited = False
        connector = ";"
        start = 0
        for i in range(len(tokens) + 1):
            tok = tokens[i] if i < len(tokens) else Op(";")
            if not (isinstance(tok, Op) and tok.text in (";", "&&", "||", "&")):
                continue
            part = tokens[start:i]
            start = i + 1
            skip = (connector == "&&" and code != 0) or (connector == "||" and code == 0)
            connector = tok.text
            if not part or skip:
                continue
            result = self._pipeline(part, stdin)
            out += result.stdout
            err += result.stderr
            code = result.code
            if result.exited:
                exited = True
                break
        return ShellResult(bytes(out), bytes(err), code, exited)

    def _pipeline(self, tokens: list[str | Op], stdin: bytes) -> ShellResult:
        stages: list[list[str | Op]] = [[]]
        for tok in tokens:
            if tok == Op("|"):
                stages.append([])
            else:
                stages[-1].append(tok)
        data = stdin
        err = bytearray()
        result = ShellResult()
        for stage in stages:
            result = self._simple(stage, data)
            err += result.stderr
            data = result.stdout
            if result.exited:
                break
        return ShellResult(data, bytes(err), result.code, result.exited)

    def _simple(self, tokens: list[str | Op], stdin: bytes) -> ShellResult:
        words: list[str] = []
        out_file: tuple[str, bool] | None = None
        err_file: tuple[str, bool] | None = None
        merge_err = False
        out_to_err = False
        it = iter(tokens)
        for tok in it:
            if isinstance(tok, str):
                words.append(tok)
                continue
            if tok.text == "2>&1":
                merge_err = True
                continue
            target = next(it, None)
            if not isinstance(target, str):
                return fail(f"/system/bin/sh: syntax error: missing file after {tok.text}", 2)
            if tok.text in (">", ">>", ">&", "&>"):
                if tok.text == ">&" and target in ("1", "2"):
                    out_to_err = target == "2"
                    continue
                out_file = (target, tok.text == ">>")
                if tok.text == "&>":
                    merge_err = True
            elif tok.text in ("2>", "2>>"):
                err_file = (target, tok.text == "2>>")
            elif tok.text == "<":
                content = self.files.read(target)
                if content is None:
                    return fail(f"/system/bin/sh: can't open '{target}': No such file or directory")
                stdin = content
        if not words:
            return ShellResult()
        name = words[0].rsplit("/", 1)[-1]
        command = self.commands.get(name)
        if command is None:
            result = fail(f"/system/bin/sh: {words[0]}: not found", 127)
        else:
            try:
                result = command(words[1:], stdin)
            except Exception as exc:  # a command's bug shows up as its error, not a dead stream
                result = fail(f"{name}: {type(exc).__name__}: {exc}")
        if merge_err:
            result = ShellResult(result.stdout + result.stderr, b"", result.code, result.exited)
        if out_to_err:
            result = ShellResult(b"", result.stderr + result.stdout, result.code, result.exited)
        if err_file is not None:
            problem = self._write(err_file, result.stderr)
            result = ShellResult(result.stdout, problem, result.code or (1 if problem else 0), result.exited)
        if out_file is not None:
            problem = self._write(out_file, result.stdout)
            result = ShellResult(b"", result.stderr + problem, result.code or (1 if problem else 0), result.exited)
        return result

    def _write(self, target: tuple[str, bool], data: bytes) -> bytes:
        """Redirect into a file; the shell's error line if it cannot be written."""
        path, append = target
        try:
            self.files.write(path, data, append)
        except OSError as err:
            return f"/system/bin/sh: {err}\n".encode()
        return b""

    # -- builtins --------------------------------------------------------------------------------

    def _echo(self, args: list[str], stdin: bytes) -> ShellResult:
        newline = True
        while args and args[0] in ("-n", "-e", "-ne", "-en"):
            newline = newline and "n" not in args[0]
            args = args[1:]
        return ok(" ".join(args) + ("\n" if newline else ""))

    def _cat(self, args: list[str], stdin: bytes) -> ShellResult:
        if not args or args == ["-"]:
            return ok(stdin)
        out, err, code = bytearray(), bytearray(), 0
        for path in args:
            content = self.files.read(path)
            if content is None:
                what = "Is a directory" if self.files.is_dir(path) else "No such file or directory"
                err += f"cat: {path}: {what}\n".encode()
                code = 1
            else:
                out += content
        return ShellResult(bytes(out), bytes(err), code)

    def _rm(self, args: list[str], stdin: bytes) -> ShellResult:
        force = any(a.startswith("-") and "f" in a for a in args)
        paths = [a for a in args if not a.startswith("-")]
        return each_path(
            "rm", paths, lambda p: None if self.files.remove(p) or force else f"{p}: No such file or directory"
        )

    def _ls(self, args: list[str], stdin: bytes) -> ShellResult:
        paths = [a for a in args if not a.startswith("-")] or ["/sdcard"]
        out, err, code = [], [], 0
        for path in paths:
            if self.files.read(path) is not None:
                out.append(path)
            elif self.files.is_dir(path):
                out.extend(self.files.listdir(path))
            else:
                err.append(f"ls: {path}: No such file or directory")
                code = 1
        return ShellResult(
            "".join(f"{o}\n" for o in out).encode(), "".join(f"{e}\n" for e in err).encode(), code
        )

    def _exit(self, args: list[str], stdin: bytes) -> ShellResult:
        try:
            code = int(args[0]) & 0xFF if args else 0
        except ValueError:
            return fail(f"/system/bin/sh: exit: {args[0]}: bad number", 2)
        return ShellResult(code=code, exited=True)

    def _sleep(self, args: list[str], stdin: bytes) -> ShellResult:
        try:
            seconds = float(args[0].rstrip("s")) if args else 0.0
        except ValueError:
            return fail(f"sleep: invalid number '{args[0]}'")
        cancel: threading.Event | None = getattr(self._local, "cancel", None)
        if cancel is None:
            time.sleep(min(seconds, 600.0))
        elif cancel.wait(min(seconds, 600.0)):
            return ShellResult(code=129)  # the stream closed: as a sleep killed by SIGHUP
        return ok()

    def _su(self, args: list[str], stdin: bytes) -> ShellResult:
        """We already are root; `su [USER] [-c] CMD...` just runs CMD."""
        rest = list(args)
        if rest and (rest[0].isdigit() or rest[0] == "root"):
            rest = rest[1:]
        if rest and rest[0] == "-c":
            rest = rest[1:]
        if not rest:
            return ok()
        return self.run(" ".join(_quote(a) for a in rest) if len(rest) > 1 else rest[0], stdin)

    def _sh(self, args: list[str], stdin: bytes) -> ShellResult:
        if args[:1] == ["-c"] and len(args) >= 2:
            return self.run(args[1], stdin)
        if not args:
            return self.run(stdin.decode("utf-8", "replace"))
        return fail("sh: only `sh -c COMMAND` is supported on the simulated phone", 2)


def _quote(word: str) -> str:
    if word and all(c.isalnum() or c in "@%+=:,./-_" for c in word):
        return word
    return "'" + word.replace("'", "'\\''") + "'"
