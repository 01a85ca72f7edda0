"""`guilens devices` and `guilens sim serve-adb`."""

from __future__ import annotations

import ipaddress
import json
import socket
from pathlib import Path
from typing import Any

import typer

sim_app = typer.Typer(help="The built-in simulated phone.", no_args_is_help=True)


def _load_setup(path: Path | None) -> dict[str, Any] | None:
    """A sim setup from a YAML/JSON file: the mapping itself, or a task's `setup` in a one-task file."""
    from guilens.cli import UserError

    if path is None:
        return None
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise UserError(f"cannot read setup file {path}: {err.strerror}") from None
    try:
        if path.suffix == ".json":
            data = json.loads(text)
        else:
            import yaml

            data = yaml.safe_load(text)
    except (ValueError, Exception) as err:
        raise UserError(f"setup file {path} is not valid {'JSON' if path.suffix == '.json' else 'YAML'}: {err}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise UserError(f"setup file {path} must hold a mapping, not {type(data).__name__}")
    if "setup" in data and isinstance(data["setup"], dict):
        data = data["setup"]
    try:
        from guilens.device.sim.setup import validate_setup

        problems = validate_setup(data)
    except ImportError:
        problems = []
    if problems:
        raise UserError(f"setup file {path}: " + "; ".join(problems))
    return data


def _parse_size(size: str) -> tuple[int, int]:
    from guilens.cli import UserError

    w, sep, h = size.lower().partition("x")
    if not sep or not w.isdigit() or not h.isdigit():
        raise UserError(f"--size {size!r} is not WIDTHxHEIGHT, like 1080x2400")
    return int(w), int(h)


def _addresses(host: str) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    """The addresses `host` (a literal or a name) binds to; empty if it does not resolve."""
    try:
        return [ipaddress.ip_address(host.strip("[]"))]
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except OSError:
        return []
    return [ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos]


def _this_hosts_address() -> str | None:
    """The address other machines reach this one at (the one the default route leaves from), if any.

    A UDP `connect` only picks a route and sends nothing, so this works offline too (it then fails).
    """
    for family, probe in ((socket.AF_INET, "192.0.2.1"), (socket.AF_INET6, "2001:db8::1")):
        try:
            with socket.socket(family, socket.SOCK_DGRAM) as s:
                s.connect((probe, 9))
                address = ipaddress.ip_address(str(s.getsockname()[0]).split("%", 1)[0])
        except OSError:
            continue
        if not address.is_loopback and not address.is_unspecified:
            return str(address)
    return None


def _hostport(address: str, port: int) -> str:
    return f"[{address}]:{port}" if ":" in address else f"{address}:{port}"


def bind_advice(host: str, port: int) -> tuple[str | None, str]:
    """(a warning for a bind other machines can reach, or None; the `adb connect` line to print).

    A wildcard bind (0.0.0.0, ::) is not an address anyone can connect to: the hint names loopback
    and, if there is one, this machine's own address.
    """
    addresses = _addresses(host)
    if addresses and all(a.is_loopback for a in addresses):
        return None, f"connect with:  adb connect {_hostport(host, port)}   (Ctrl-C stops)"
    warning = (
        f"warning: listening on {_hostport(host, port)} exposes the simulated phone to the network with no "
        "authentication: anyone who can reach this port can drive it (use --host 127.0.0.1 to keep it local)"
    )
    if addresses and all(a.is_unspecified for a in addresses):
        local = "::1" if all(a.version == 6 for a in addresses) else "127.0.0.1"
        own = _this_hosts_address()
        there = f"; from other machines: adb connect {_hostport(own, port)}" if own else ""
        return warning, f"connect with:  adb connect {_hostport(local, port)}{there}   (Ctrl-C stops)"
    return warning, f"connect with:  adb connect {_hostport(host, port)}   (Ctrl-C stops)"


@sim_app.command("serve-adb")
def serve_adb(
    port: int = typer.Option(5599, help="TCP port (outside the 5555-5585 range the adb server scans for emulators)."),
    host: str = typer.Option("127.0.0.1", help="Address to listen on; keep it on loopback."),
    setup: Path | None = typer.Option(None, "--setup", help="YAML/JSON file with the sim's initial state."),
    size: str = typer.Option("1080x2400", help="Screen size in pixels, WIDTHxHEIGHT."),
    adb_keyboard: bool = typer.Option(True, help="Pretend the ADB keyboard is installed (non-ASCII typing)."),
    screencap_png: Path | None = typer.Option(None, hidden=True, help="Debug: serve this PNG for `screencap -p`."),
) -> None:
    """Serve the simulated phone over the ADB protocol, for `adb connect 127.0.0.1:PORT` and adb-based tools."""
    import asyncio

    from guilens.cli import UserError
    from guilens.device.sim import SimDevice
    from guilens.device.sim.adbd import AdbBridge

    width, height = _parse_size(size)
    try:
        device = SimDevice(width=width, height=height, setup=_load_setup(setup))
    except ValueError as err:
        raise UserError(str(err)) from None
    bridge = AdbBridge(device, host=host, port=port, adb_keyboard=adb_keyboard)
    if screencap_png is not None:
        bridge.screencap_override = screencap_png.read_bytes()

    async def main() -> None:
        try:
            await bridge.listen()
        except OSError as err:
            raise UserError(f"cannot listen on {host}:{port}: {err.strerror or err}") from None
        warning, hint = bind_advice(host, bridge.port)
        typer.echo(
            f"guilens sim: serving the simulated phone ({width}x{height}) over ADB on "
            f"{_hostport(host, bridge.port)}"
        )
        if warning:
            typer.secho(warning, fg="yellow", err=True)
        typer.echo(hint)
        await bridge.serve_forever()

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        typer.echo("stopped")
    finally:
        bridge.stop()


def register(app: typer.Typer) -> None:
    app.add_typer(sim_app, name="sim")

    @app.command()
    def devices(as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table.")) -> None:
        """List the phones guilens can drive: the built-in `sim` and every adb device."""
        from guilens.device.adb_server import list_devices
        from guilens.device.base import DeviceError

        rows: list[dict[str, str]] = [
            {"device": "sim", "serial": "sim", "model": "guilens simulated phone (built in)", "state": "ready"}
        ]
        note = ""
        try:
            for d in list_devices():
                rows.append(
                    {
                        "device": f"adb:{d['serial']}",
                        "serial": d["serial"],
                        "model": d.get("model", "") or d.get("product", "") or d.get("device", ""),
                        "state": d["state"],
                    }
                )
        except DeviceError as err:
            note = f"adb: {err}"
        except Exception as err:  # the adb server refused or crashed: still list the sim
            note = f"adb: cannot list devices: {err}"
        if as_json:
            typer.echo(json.dumps({"devices": rows, "adb_error": note or None}, indent=2))
            return
        width = max(len(r["device"]) for r in rows)
        mwidth = max(len(r["model"]) for r in rows)
        for r in rows:
            typer.echo(f"{r['device']:<{width}}  {r['model']:<{mwidth}}  {r['state']}")
        if note:
            typer.secho(note, fg="yellow", err=True)
        elif len(rows) == 1:
            typer.echo("(no adb devices attached; `adb connect HOST:PORT` adds a network device)")
