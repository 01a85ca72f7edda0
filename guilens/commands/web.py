"""`guilens web [COMMAND ...]`: guilens in a browser, through textual-serve.

textual-serve serves a page whose terminal (xterm.js) talks over a websocket to a
server that starts one subprocess per browser tab, here `python -m guilens COMMAND ...`
with the interpreter that is running now (not whatever `guilens` is first on PATH),
and selects Textual's web driver for it through `TEXTUAL_DRIVER`. That variable is
also how a guilens process knows it is being served (`probe.under_web_driver`): stdin
and stdout are then pipes, yet there is a screen to draw on, one that draws no images
(the launcher then picks half cells with the UI tree's text beside them).

The server itself is textual-serve's (run by `guilens.screens.web_server`, since only
`guilens/screens/` imports the Textual stack); this module adds what a lab needs around it:
loopback by default and a loud warning otherwise (there is no login, and whoever
reaches the port can drive the phone, answer as the user and read every recorded
episode), a check of the served command's words before the port opens (an unknown
command or option is one `error:` line here, not a browser tab that never starts),
one-line errors for a port that is taken or an address that cannot be bound, and a
shutdown that does not wait on open tabs.

What the served command itself rejects (an unknown scenario, a missing episode) is
only found when a tab starts it: textual-serve then logs "Application failed to
start" with guilens' `error:` line, and the tab stays on its start page.
"""

from __future__ import annotations

import errno
import ipaddress
import shlex
import socket
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

import typer

from guilens.screens.graphics.probe import FULL_RESOLUTION

WEB_DRIVER = "textual.drivers.web_driver:WebDriver"
"""What textual-serve (and textual-web) put in TEXTUAL_DRIVER for the processes they serve."""

TUI_COMMANDS = ("demo", "run", "replay", "runs")
"""The commands that open the TUI; with none, `guilens` opens the home screen."""

def _fail(message: str, code: int = 2) -> NoReturn:
    typer.secho(f"error: {message}", err=True, fg="red")
    raise typer.Exit(code)


def served_command(args: Sequence[str]) -> str:
    """The shell command textual-serve runs per browser tab. It starts it through /bin/sh;
    `exec` makes guilens the process textual-serve holds, not a shell waiting on it."""
    return "exec " + shlex.join([sys.executable, "-m", "guilens", *args])


def is_loopback(host: str) -> bool:
    """True when every address `host` names is a loopback one (so only this machine can connect)."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except socket.gaierror as err:
        _fail(f"--host {host!r}: cannot resolve it ({err.strerror})")
    return bool(infos) and all(ipaddress.ip_address(str(info[4][0]).split("%")[0]).is_loopback for info in infos)


def public_url(host: str, port: int) -> str:
    """The address a browser opens. A wildcard bind has no address of its own: use the machine's name."""
    name = host.strip("[]")
    if name in ("", "0.0.0.0", "::"):
        name = socket.getfqdn()
    if ":" in name:
        name = f"[{name}]"
    return f"http://{name}:{port}"


def check_port(host: str, port: int) -> None:
    """Bind the address once, as aiohttp will (SO_REUSEADDR), to turn a taken port into one clear line.

    aiohttp would report it too, but only after textual-serve has printed that it is
    serving, and as a traceback through its event loop.
    """
    if not 1 <= port <= 65535:
        _fail(f"--port {port}: choose a port from 1 to 65535")
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as err:
        _fail(f"--host {host!r}: cannot resolve it ({err.strerror})")
    for family, kind, proto, _, address in infos:
        with socket.socket(family, kind, proto) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind(address)
            except OSError as err:
                _fail(bind_error(host, port, err))


def bind_error(host: str, port: int, err: OSError) -> str:
    if err.errno == errno.EADDRINUSE:
        return f"port {port} on {host} is already in use (another guilens web?); choose another with --port"
    if err.errno == errno.EACCES:
        return f"port {port} on {host}: permission denied (ports below 1024 need root); choose another with --port"
    if err.errno == errno.EADDRNOTAVAIL:
        return f"--host {host}: not an address of this machine"
    return f"cannot listen on {host}:{port}: {err.strerror or err}"


def check_served(ctx: typer.Context, args: Sequence[str]) -> None:
    """Parse `guilens ARGS` as the child will, without running it: unknown commands and bad options fail here."""
    root = ctx.find_root()
    group: Any = root.command
    name = args[0] if args else None
    graphics = _graphics_renderer(args)
    if graphics:
        _fail(f"guilens web: --renderer {graphics} draws terminal graphics, which a browser's terminal does not "
              "show; use auto, halfcell or text")
    try:
        if name is None or name.startswith("-"):  # the home screen, with guilens' own options if any
            group.make_context(root.info_name or "guilens", list(args)).close()
            return
        command = group.get_command(root, name)
        if command is None:
            _fail(f"guilens web: no command {name!r}; it serves {', '.join(TUI_COMMANDS)}, or the home screen")
        if name not in TUI_COMMANDS:
            _fail(f"guilens web: `guilens {name}` does not open the TUI; it serves {', '.join(TUI_COMMANDS)}, "
                  "or the home screen")
        if "--headless" in args[1:]:
            _fail(f"guilens web: `guilens {name} --headless` prints lines instead of opening the TUI; drop --headless")
        command.make_context(name, list(args[1:]), parent=root).close()
    except typer.TyperException as err:  # click's UsageError and friends
        _fail(f"guilens web: `{shlex.join(['guilens', *args])}`: {err.format_message()}")


def _graphics_renderer(args: Sequence[str]) -> str | None:
    """The graphics renderer `args` ask for with `--renderer X` or `--renderer=X`, if any."""
    for i, arg in enumerate(args):
        value = args[i + 1] if arg == "--renderer" and i + 1 < len(args) else arg.partition("--renderer=")[2]
        if value.strip().lower() in FULL_RESOLUTION:
            return value
    return None


def serve(command: str, *, title: str, host: str, port: int, url: str) -> None:
    """Run the web server (guilens.screens.web_server) until Ctrl+C; a bind that fails is one line."""
    from guilens.screens.web_server import serve_forever

    def ready() -> None:
        typer.echo(f"serving `{title}` at {url}")
        typer.echo("open it in a browser (each tab runs its own session); Ctrl+C stops the server")

    try:
        serve_forever(command, title=title, host=host, port=port, url=url, on_ready=ready)
    except OSError as err:  # lost a race for the port after check_port
        _fail(bind_error(host, port, err))


def register(app: typer.Typer) -> None:
    @app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True,
                                   "allow_interspersed_args": False})
    def web(
        ctx: typer.Context,
        command: list[str] = typer.Argument(
            None, metavar="COMMAND",
            help="What to serve: demo, run ..., replay ..., runs ... (default: the home screen). "
                 "Passed to guilens untouched; put web's own options before it.",
        ),
        host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on. Keep it loopback: "
                                 "whoever reaches it can drive the phone and read the episodes."),
        port: int = typer.Option(8000, "--port", "-p", help="Port to listen on."),
        url: str = typer.Option(None, "--public-url", help="The address browsers use, if not http://HOST:PORT "
                                "(behind a proxy or an SSH tunnel to another port)."),
    ) -> None:
        """Serve guilens in a browser (textual-serve): `guilens web demo` and open the printed URL."""
        args = list(command or [])
        check_served(ctx, args)
        if not is_loopback(host):
            typer.secho(f"warning: serving on {host}, which is not loopback: anyone who can reach this machine "
                        f"on port {port} can drive the phone, answer as the user and read every recorded "
                        "episode; there is no login. Prefer the default 127.0.0.1 and an SSH tunnel.",
                        err=True, fg="yellow")
        check_port(host, port)
        serve(served_command(args), title=shlex.join(["guilens", *args]), host=host, port=port,
              url=url or public_url(host, port))
