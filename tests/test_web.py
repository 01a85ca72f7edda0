"""`guilens web`: the real server as a subprocess, a real browser session, and its errors.

The browser test loads `guilens web demo` in headless Chromium, driven through the
DevTools protocol (a websocket; aiohttp comes with textual-serve), and reads the
page's screenshots back with tesseract: the run screen must be there, and the
phone's own words (the UI tree's labels) must be legible. The session test opens
textual-serve's websocket itself, as the page does, and checks that closing it
ends the guilens process behind it, and that Ctrl+C stops the server.

Every process a test starts runs in its own process group, killed at teardown
whatever happened. Needs the Debian packages `chromium` and `tesseract-ocr`.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import pytest

CHROMIUM = next((p for p in (shutil.which("chromium"), shutil.which("chromium-browser"), "/usr/bin/chromium")
                 if p and os.access(p, os.X_OK)), None)
TESSERACT = shutil.which("tesseract")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def guilens(*args: str, cwd: Path, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "guilens", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, check=False, env=child_env(cwd))


def child_env(where: Path) -> dict[str, str]:
    return {**os.environ, "GUILENS_CONFIG_FILE": str(where / "none.toml"), "GUILENS_CACHE_DIR": str(where / "cache"),
            "COLUMNS": "200"}


def stop_group(proc: subprocess.Popen[Any], first: int = signal.SIGINT, grace: float = 10.0) -> None:
    """Signal the process group `proc` leads, then kill whatever is left of it."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, first)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(grace)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)  # the group outlives its leader while a session child lives
    proc.wait(5)


def children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            found += [int(c) for c in (task / "children").read_text().split()]
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@dataclass
class Server:
    proc: subprocess.Popen[str]
    port: int
    log: Path
    out: Path
    errors: Path = field(init=False)

    def __post_init__(self) -> None:
        self.errors = self.log.with_suffix(".err")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def output(self) -> str:
        return self.log.read_text() + self.errors.read_text()

    def wait_listening(self, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"guilens web exited ({self.proc.returncode}):\n{self.output()}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return
            time.sleep(0.1)
        raise AssertionError(f"guilens web did not listen on {self.port} within {timeout:g} s:\n{self.output()}")


@contextlib.contextmanager
def serve(tmp_path: Path, *args: str, host: str | None = None) -> Iterator[Server]:
    port = free_port()
    out = tmp_path / "runs"
    log = tmp_path / f"web-{port}.log"
    command = [sys.executable, "-m", "guilens", "web", "--port", str(port), *(["--host", host] if host else []),
               *args]
    with open(log, "w") as stdout, open(log.with_suffix(".err"), "w") as stderr:
        proc = subprocess.Popen(command, cwd=tmp_path, stdout=stdout, stderr=stderr, stdin=subprocess.DEVNULL,
                                env=child_env(tmp_path), text=True, start_new_session=True)
    server = Server(proc, port, log, out)
    try:
        server.wait_listening()
        yield server
    finally:
        stop_group(proc)


class Chromium:
    """Headless Chromium with the DevTools protocol on a port of its own choosing."""

    def __init__(self, url: str, profile: Path) -> None:
        self.profile = profile
        self.proc = subprocess.Popen(
            [CHROMIUM or "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={profile}", "--window-size=1600,1000", "--remote-debugging-port=0", url],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        self.page = self._page_socket()

    def _page_socket(self, timeout: float = 30.0) -> str:
        active = self.profile / "DevToolsActivePort"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"chromium exited with status {self.proc.returncode}")
            port = active.read_text().split()[0] if active.exists() and active.read_text().strip() else None
            if port:
                with contextlib.suppress(OSError, ValueError):
                    pages = json.loads(self._get(f"http://127.0.0.1:{port}/json/list"))
                    for page in pages:
                        if page.get("type") == "page":
                            return str(page["webSocketDebuggerUrl"])
            time.sleep(0.1)
        raise AssertionError("chromium offered no DevTools page")

    @staticmethod
    def _get(url: str) -> str:
        from urllib.request import urlopen

        with urlopen(url, timeout=5) as r:
            return str(r.read().decode())

    def call(self, *calls: tuple[str, dict[str, Any]]) -> list[dict[str, Any]]:
        """Send DevTools commands in order on one connection; their results."""

        async def run() -> list[dict[str, Any]]:
            results = []
            async with aiohttp.ClientSession() as s, s.ws_connect(self.page, max_msg_size=0) as ws:
                for n, (method, params) in enumerate(calls, 1):
                    await ws.send_json({"id": n, "method": method, "params": params})
                    async for msg in ws:
                        reply = json.loads(msg.data)
                        if reply.get("id") == n:
                            if "error" in reply:
                                raise AssertionError(f"{method}: {reply['error']}")
                            results.append(reply.get("result", {}))
                            break
            return results

        return asyncio.run(asyncio.wait_for(run(), 30))

    def screenshot(self, path: Path) -> Path:
        (shot,) = self.call(("Page.captureScreenshot", {"format": "png"}))
        path.write_bytes(base64.b64decode(shot["data"]))
        return path

    def key(self, key: str, code: int) -> None:
        """Press a key in the page's terminal (xterm.js reads keys from its helper textarea)."""
        event = {"key": key, "code": key, "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code}
        focus = "document.querySelector('.xterm-helper-textarea').focus()"
        self.call(("Runtime.evaluate", {"expression": focus}),
                  ("Input.dispatchKeyEvent", {"type": "keyDown", **event}),
                  ("Input.dispatchKeyEvent", {"type": "keyUp", **event}))

    def close(self) -> None:
        stop_group(self.proc, signal.SIGTERM, grace=5)


def ocr(png: Path) -> str:
    done = subprocess.run([TESSERACT or "tesseract", str(png), "-"], capture_output=True, text=True, timeout=60,
                          check=False)
    return done.stdout


def words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z-]{3,}", text)}


def phone_labels(ui_xml: Path) -> set[str]:
    """The words of the UI tree's visible text labels (what the text view draws)."""
    found: set[str] = set()
    for node in ET.parse(ui_xml).iter("node"):
        found |= words(node.get("text") or "")
    return found


def wait_for_screen(browser: Chromium, png: Path, wanted: set[str], timeout: float) -> tuple[Path, str]:
    """Screenshots (to `png`) until OCR reads every word in `wanted`; the last one's text."""
    deadline = time.monotonic() + timeout
    while True:
        browser.screenshot(png)
        text = ocr(png)
        if wanted <= words(text) or time.monotonic() > deadline:
            return png, text
        time.sleep(1.0)


needs_browser = pytest.mark.skipif(CHROMIUM is None or TESSERACT is None,
                                   reason="needs the Debian packages chromium and tesseract-ocr")


@pytest.mark.slow
@needs_browser
def test_the_demo_runs_in_a_browser_and_its_phone_can_be_read(tmp_path: Path) -> None:
    from guilens.scenarios.loader import load_builtin

    demo = next(s for s in load_builtin() if s.id == "demo")
    task_id = demo.tasks[0].id if getattr(demo, "tasks", None) else "demo"
    # The phone's first screen, as the device describes it: the sim is deterministic, so a headless
    # run of the same demo records the very UI tree the browser shows while the first question waits.
    done = guilens("demo", "--headless", "--out", str(tmp_path / "reference"), cwd=tmp_path, timeout=180)
    assert done.returncode == 0, done.stderr
    uis = sorted(tmp_path.glob("reference/*/*/attempt-1/ui/0000.xml"))
    assert uis, f"the headless demo recorded no UI tree under {tmp_path / 'reference'}"
    with serve(tmp_path, "demo", "--out", str(tmp_path / "runs")) as server:
        browser = Chromium(server.url, tmp_path / "chromium")
        try:
            # The run screen, held by the agent's first question (the demo's task is ambiguous).
            run_screen = {"trace", "milestones", "memory", "agent", "asks"} | words(task_id)
            png, text = wait_for_screen(browser, tmp_path / "run-screen.png", run_screen, timeout=90)
            assert run_screen <= words(text), f"no run screen in {png}; OCR read:\n{text}\n{server.output()}"

            # Put the question off (Esc): the run waits, and nothing covers the phone.
            browser.key("Escape", 27)
            labels = phone_labels(uis[0]) - run_screen
            assert len(labels) >= 5, f"too few labels on the phone to judge: {labels}"
            png, text = wait_for_screen(browser, tmp_path / "phone.png", labels, timeout=30)
            read = labels & words(text)
            assert len(read) >= 0.8 * len(labels), (
                f"OCR of {png} read {len(read)} of the phone's {len(labels)} label words; "
                f"missing {sorted(labels - read)}; OCR read:\n{text}")
        finally:
            browser.close()


async def open_session(port: int) -> tuple[aiohttp.ClientSession, aiohttp.ClientWebSocketResponse, bytes]:
    """Open a session as the page does, and read until the run screen is drawn."""
    http = aiohttp.ClientSession()
    ws = await http.ws_connect(f"ws://127.0.0.1:{port}/ws?width=160&height=48")
    got = b""
    deadline = time.monotonic() + 60
    while b"milestones" not in got and time.monotonic() < deadline:
        with contextlib.suppress(asyncio.TimeoutError):
            msg = await ws.receive(timeout=1)
            if msg.type == aiohttp.WSMsgType.BINARY:
                got += msg.data
            elif msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
                break
    return http, ws, got


async def read_until_closed(ws: aiohttp.ClientWebSocketResponse) -> None:
    async for _ in ws:
        pass


def wait_gone(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    return not alive(pid)


@pytest.mark.slow
def test_closing_the_page_ends_its_session_and_ctrl_c_stops_the_server(tmp_path: Path) -> None:
    with serve(tmp_path, "demo", "--out", str(tmp_path / "runs")) as server:

        async def scenario() -> None:
            # A page opens a session: one guilens process, this interpreter, the run screen drawn.
            http, ws, drawn = await open_session(server.port)
            assert b"milestones" in drawn, f"the session drew no run screen:\n{server.output()}"
            pids = children(server.proc.pid)
            assert len(pids) == 1, f"expected one guilens process for the session, found {pids}"
            cmdline = Path(f"/proc/{pids[0]}/cmdline").read_bytes().split(b"\0")
            assert cmdline[:3] == [os.fsencode(sys.executable), b"-m", b"guilens"], cmdline
            # The page goes away (its websocket closes): textual-serve asks the app to quit.
            await ws.close()
            await http.close()
            assert await asyncio.to_thread(wait_gone, pids[0], 15), "the session outlived its page by 15 s"

            # Another page is open when the server gets Ctrl+C: both end.
            http, ws, drawn = await open_session(server.port)
            assert b"milestones" in drawn, server.output()
            (pid,) = children(server.proc.pid)
            reading = asyncio.create_task(read_until_closed(ws))  # as a page does: it answers the close
            server.proc.send_signal(signal.SIGINT)
            try:
                code = await asyncio.to_thread(server.proc.wait, 10)
            finally:
                reading.cancel()
                await ws.close()
                await http.close()
            assert code == 0, server.output()
            assert await asyncio.to_thread(wait_gone, pid, 5), "a session outlived the server"

        asyncio.run(scenario())


def test_the_default_serves_on_loopback_and_prints_the_url(tmp_path: Path) -> None:
    served = ["run", "memory:portfolio-value", "--agent", "oracle"]
    with serve(tmp_path, *served) as server:
        from urllib.request import urlopen

        with urlopen(server.url, timeout=10) as page:  # the page's title is the command served, untouched
            assert page.status == 200 and " ".join(["guilens", *served]) in page.read().decode()
        deadline = time.monotonic() + 10
        while server.url.rstrip("/") not in server.output() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert f"at http://127.0.0.1:{server.port}" in server.output()
        assert "warning" not in server.output().lower()


def test_a_non_loopback_host_is_warned_about(tmp_path: Path) -> None:
    with serve(tmp_path, "demo", host="0.0.0.0") as server:
        deadline = time.monotonic() + 10
        while "warning" not in server.errors.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        warning = server.errors.read_text()
        assert "warning: serving on 0.0.0.0, which is not loopback" in warning
        assert "anyone who can reach this machine" in warning and "drive the phone" in warning


def test_a_port_in_use_is_one_clear_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = guilens("web", "--port", str(port), "demo", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        f"error: port {port} on 127.0.0.1 is already in use (another guilens web?); choose another with --port"]


@pytest.mark.parametrize(("args", "says"), [
    (["nosuch"], "no command 'nosuch'"),
    (["version"], "`guilens version` does not open the TUI"),
    (["run"], "`guilens run`: Missing argument"),
    (["demo", "--bogus"], "`guilens demo --bogus`: No such option: --bogus"),
    (["demo", "--headless"], "drop --headless"),
    (["--port", "0", "demo"], "--port 0: choose a port from 1 to 65535"),
    (["demo", "--renderer", "sixel"], "--renderer sixel draws terminal graphics"),
    (["replay", "x", "--renderer=tgp"], "--renderer tgp draws terminal graphics"),
])
def test_a_bad_command_is_one_clear_line(tmp_path: Path, args: list[str], says: str) -> None:
    done = guilens("web", *args, cwd=tmp_path)
    assert done.returncode == 2, done
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and says in lines[0], done.stderr
    assert "Traceback" not in done.stderr


def test_arguments_after_the_command_pass_through_untouched() -> None:
    from guilens.commands.web import served_command
    from guilens.screens.graphics.probe import under_web_driver

    args = ["run", "memory:portfolio-value", "--agent", "oracle", "--port", "it's"]
    assert served_command(args) == "exec " + " ".join(
        [shlex.quote(sys.executable), "-m", "guilens", "run", "memory:portfolio-value", "--agent", "oracle", "--port",
         "'it'\"'\"'s'"])
    assert under_web_driver({"TEXTUAL_DRIVER": "textual.drivers.web_driver:WebDriver"})
    assert not under_web_driver({}) and not under_web_driver({"TEXTUAL_DRIVER": "textual.drivers.linux_driver:LinuxDriver"})
