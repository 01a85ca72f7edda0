"""Reaching a cluster from the driver: the address, what devices it declares, opening them.

`ray.init` is a poor first contact: a head that is not there costs two minutes
of C++ log lines and a `SystemExit`, a malformed address a `ValueError` about
parsing. So the address is checked here first (`parse_address`), the head's
port is knocked on with a plain TCP connect (`probe`, a few seconds), and only
then is Ray asked; whatever it still raises becomes one `ClusterError` line.
"""

from __future__ import annotations

import contextlib
import io
import logging
import re
import socket
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from guilens.cluster import ClusterError, require_ray
from guilens.cluster.resources import declared_devices

if TYPE_CHECKING:
    from guilens.cluster.host import RayHost
    from guilens.device.hosted import HostedDevice

PROBE_TIMEOUT_S = 5.0
_ADDRESS = re.compile(r"^(?P<scheme>ray://)?(?P<host>\[[0-9A-Fa-f:]+\]|[A-Za-z0-9_.-]+):(?P<port>\d{1,5})$")


@dataclass(frozen=True)
class Address:
    text: str
    host: str
    port: int
    client: bool
    """A `ray://` address: Ray Client (the driver is outside the cluster's network)."""


def parse_address(text: str) -> Address:
    """`HOST:PORT` (the head's GCS port, 6379 by default) or `ray://HOST:PORT` (Ray Client, 10001);
    `ClusterError` naming the value otherwise."""
    m = _ADDRESS.match(text.strip())
    port = int(m.group("port")) if m else 0
    if m is None or not 0 < port < 65536:
        raise ClusterError(f"--cluster {text!r}: give the head's HOST:PORT (e.g. 10.0.0.5:6379) "
                           "or ray://HOST:PORT (Ray Client, e.g. ray://10.0.0.5:10001)")
    return Address(text.strip(), m.group("host").strip("[]"), port, bool(m.group("scheme")))


def probe(addr: Address, timeout: float = PROBE_TIMEOUT_S) -> None:
    """A TCP connect to the head: `ClusterError` (exit 1) at once when nothing listens there."""
    try:
        with socket.create_connection((addr.host, addr.port), timeout=timeout):
            pass
    except OSError as err:
        why = "timed out" if isinstance(err, TimeoutError) else (err.strerror or str(err))
        raise ClusterError(f"--cluster {addr.text}: no Ray head answers there ({why}); start one with "
                           "`guilens cluster node --sims N` (no --address) or check the address", code=1) from None


class Cluster:
    """The driver's connection: `connect`, `choose`, `open`, and `close` (which ends the actors and
    disconnects). Used as a context manager by `guilens run --cluster`."""

    def __init__(self, address: str) -> None:
        self.address = parse_address(address)
        self.hosts: list[RayHost] = []
        self.resources: dict[str, float] = {}

    def connect(self) -> Cluster:
        require_ray()
        probe(self.address)
        import ray

        quiet = io.StringIO()
        try:
            with contextlib.redirect_stderr(quiet):
                ray.init(address=self.address.text, logging_level=logging.ERROR, log_to_driver=False,
                         configure_logging=True)
            self.resources = {k: float(v) for k, v in ray.cluster_resources().items()}
            _quiet_cluster_news()
        except (Exception, SystemExit) as err:
            with contextlib.suppress(Exception):
                ray.shutdown()
            text = str(err).strip().splitlines()
            raise ClusterError(f"--cluster {self.address.text}: Ray could not connect: "
                               f"{text[0] if text else type(err).__name__}", code=1) from None
        return self

    @property
    def declared(self) -> list[str]:
        """The device specs the cluster's nodes declare (`guilens.cluster.resources`)."""
        return declared_devices(self.resources)

    def choose(self, wanted: list[str] | None, *, one: bool = False, sims_only: bool = False) -> list[str]:
        """The devices to run on: each `-d` given (it must be declared, as many times as asked),
        else every declared device (only the sims for a scenario made for the sim); only the first
        when `one` (a sequence keeps its phone)."""
        have = self.declared
        if not have:
            raise ClusterError(f"--cluster {self.address.text}: the cluster declares no devices; start its nodes "
                               "with `guilens cluster node --sims N` or `--adb SERIAL` "
                               "(resources guilens_sim, guilens_adb_<serial>)")
        if not wanted:
            fit = [d for d in have if d == "sim"] if sims_only else have
            if not fit:
                raise ClusterError(f"--cluster {self.address.text}: the scenario runs on the simulated phone and "
                                   f"the cluster declares no sims ({_summary(have)}); start a node with "
                                   "`guilens cluster node --sims N`")
            return fit[:1] if one else fit
        pool, chosen = list(have), []
        for spec in wanted:  # `-d adb` (on one machine: the only attached device) takes a declared adb device
            pick = next((s for s in pool if s.startswith("adb:")), None) if spec == "adb" else (
                spec if spec in pool else None)
            if pick is None:
                n = sum(1 for s in have if s == spec or (spec == "adb" and s.startswith("adb:")))
                raise ClusterError(f"--device {spec}: the cluster declares {n or 'no'} such device"
                                   f"{'s' if n != 1 else ''} ({_summary(have)}), fewer than asked")
            pool.remove(pick)
            chosen.append(pick)
        return chosen[:1] if one else chosen

    def open(self, specs: list[str], options: dict[str, Any] | None = None) -> list[HostedDevice]:
        """An actor per spec on the nodes that hold them, each wrapped as a device."""
        from guilens.cluster.host import open_hosts
        from guilens.device.hosted import HostedDevice

        self.hosts = open_hosts(specs, options)
        try:
            return [HostedDevice(h) for h in self.hosts]
        except BaseException:
            self._close_hosts()
            raise

    def _close_hosts(self) -> None:
        for h in self.hosts:
            h.close()
        self.hosts = []

    def close(self) -> None:
        self._close_hosts()
        with contextlib.suppress(Exception):
            import ray

            ray.shutdown()

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _quiet_cluster_news() -> None:
    """Keep Ray's cluster news (a node died, with its state dump) off standard output.

    Ray's driver prints what the cluster reports (`listen_error_messages`, pid `raylet`) to
    `sys.stdout`, where the headless printer writes and `guilens run --json` keeps its JSON alone.
    The run records a device lost that way itself (run.json's warnings, the task's `lost`), so those
    messages go to the `ray` logger instead, at INFO (silent unless the logging is turned up). This
    wraps a private Ray function: if a Ray release renames it, nothing breaks, the news prints again.
    """
    from ray._private import worker

    original = getattr(worker, "print_to_stdstream", None)
    if original is None or getattr(original, "_guilens", False):
        return

    def print_to_stdstream(data: dict[str, Any], ignore_prefix: bool) -> None:
        if data.get("pid") == "raylet":
            for line in data.get("lines") or []:
                logging.getLogger("ray").info("cluster: %s", str(line).splitlines()[0] if line else "")
            return
        original(data, ignore_prefix)

    print_to_stdstream._guilens = True  # type: ignore[attr-defined]
    worker.print_to_stdstream = print_to_stdstream


def _summary(specs: list[str]) -> str:
    sims = specs.count("sim")
    adb = [s for s in specs if s != "sim"]
    parts = ([f"{sims} sim{'s' if sims != 1 else ''}"] if sims else []) + adb
    return ", ".join(parts) or "nothing"

