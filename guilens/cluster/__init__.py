"""Runs over a Ray cluster: the devices live on the cluster's nodes, the run stays on the driver.

Issue 14, "Beyond one machine". The runner, the agents, the simulated user and
the step loop run where `guilens run --cluster ADDRESS` was typed (the driver),
so pause, single step, take-over, `ask_user`, the headless printer and the TUI
work as on one machine and every episode is recorded in the driver's run
directory. Only the *devices* move: each one is a Ray actor on the node that
holds it (`guilens.cluster.host.RayHost`, a `DeviceHost`), reached through
`guilens.device.hosted.HostedDevice` like a sim in a child process.

Scheduling is Ray's, not ours: a node declares the devices it holds as custom
resources when it starts (`guilens cluster node`, `guilens.cluster.resources`),
and an actor asks for one unit of its device's resource, so Ray places it on a
node with that device free. A task takes the next free device of the run as in
any batch (`guilens.run.engine`); a node that dies takes its devices' actors
with it, and the engine re-runs the attempt it cut on another device.

Ray is an optional extra (`pip install 'guilens[cluster]'`); nothing here
imports it at module level, so `guilens --help` stays fast and a run without
`--cluster` never loads it.
"""

from __future__ import annotations

INSTALL = "pip install 'guilens[cluster]'"
"""What installs Ray the way guilens needs it (with Ray Client, for `ray://` addresses)."""


class ClusterError(Exception):
    """A cluster run that cannot start, in one line. `code` is the exit status: 2 for a mistake on the
    command line (a bad address, no such devices declared), 1 for the environment (a head that does
    not answer, devices all taken)."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def require_ray() -> None:
    """`ClusterError` (exit 2) saying how to install Ray when it is not importable."""
    try:
        import ray  # noqa: F401
    except ImportError:
        raise ClusterError(f"--cluster needs Ray, which is not installed: {INSTALL}") from None


__all__ = ["INSTALL", "ClusterError", "require_ray"]
