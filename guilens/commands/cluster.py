"""`guilens cluster node` and `guilens cluster status`: a lab's hosts as one Ray cluster of devices.

`node` runs `ray start` with the resources that declare the devices a host
holds (`guilens.cluster.resources`), so nobody writes the JSON by hand; with
`--print` it only prints the command (to put in a service file). `status` asks
a cluster which devices it declares, as `guilens run --cluster` will see them.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import NoReturn

import typer

cluster_app = typer.Typer(help="Run on a Ray cluster: declare a host's devices, see what a cluster holds.",
                          no_args_is_help=True)


def _fail(message: str, code: int = 2) -> NoReturn:
    typer.secho(f"error: {message}", err=True, fg="red")
    raise typer.Exit(code)


def _ray_executable() -> str | None:
    """The `ray` of this Python (its venv) first, so a node runs the Ray guilens imports."""
    beside = Path(sys.executable).parent / "ray"
    if beside.is_file():
        return str(beside)
    return shutil.which("ray")


@cluster_app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def node(
    ctx: typer.Context,
    sims: int = typer.Option(0, "--sims", min=0, max=256, help="Simulated phones this host runs."),
    adb: list[str] = typer.Option(None, "--adb", metavar="SERIAL",
                                  help="An adb device attached to this host (`adb devices`); repeat for each."),
    address: str = typer.Option(None, "--address", metavar="HOST:PORT",
                                help="The head to join; without it this host starts the head."),
    print_only: bool = typer.Option(False, "--print", help="Print the `ray start` command instead of running it."),
) -> None:
    """Start Ray on this host, declaring its devices; options after `--` go to `ray start` as they are
    (e.g. `-- --num-cpus 4 --port 6379`)."""
    from guilens.cluster import INSTALL
    from guilens.cluster.resources import node_command, shell_line

    serials = [s.strip() for s in adb or []]
    if any(not s for s in serials):
        _fail("--adb is empty: give a serial as `adb devices` lists it")
    if len(set(serials)) != len(serials):
        _fail("--adb: a serial is given twice")
    if sims == 0 and not serials and address is not None:
        _fail("a node joining a cluster needs devices: give --sims N or --adb SERIAL")
    ray = _ray_executable()
    cmd = node_command(sims, serials, address=address, ray=ray or "ray", extra=list(ctx.args))
    if print_only:
        typer.echo(shell_line(cmd))
        return
    if ray is None:
        _fail(f"`ray` is not installed here: {INSTALL}")
    try:
        done = subprocess.run(cmd, check=False)
    except OSError as err:
        _fail(f"cannot run {cmd[0]}: {err.strerror or err}", 1)
    raise typer.Exit(0 if done.returncode == 0 else 1)


@cluster_app.command()
def status(address: str = typer.Argument(..., help="The head's HOST:PORT or ray://HOST:PORT.")) -> None:
    """The devices a cluster's nodes declare (what `guilens run --cluster` runs on)."""
    from guilens.cluster import ClusterError
    from guilens.cluster.connect import Cluster

    try:
        with Cluster(address).connect() as cluster:
            declared = cluster.declared
    except ClusterError as err:
        _fail(str(err), err.code)
    sims = declared.count("sim")
    typer.echo(f"{address}: {sims} sim{'s' if sims != 1 else ''}")
    for spec in declared:
        if spec != "sim":
            typer.echo(f"  {spec}")


def register(app: typer.Typer) -> None:
    app.add_typer(cluster_app, name="cluster")
