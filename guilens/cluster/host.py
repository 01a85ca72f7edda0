"""`RayHost`: a device held by a Ray actor on the node that has it, reached as a `DeviceHost`.

The actor (`DeviceActor`) opens its device where it runs (a `SimDevice`, or an
`AdbDevice` for a serial the node's adb server sees) and answers `call` with
`guilens.device.hosted.serve`, the same far side as a child-process host; its
results and errors cross the network as `guilens.cluster.wire` packs them.

Placement is by resource (`guilens.cluster.resources`): the actor asks for one
unit of `guilens_sim` or of `guilens_adb_<serial>`, and no CPU, so a node's CPUs
stay free for Ray's own work and a sim is never refused for want of a CPU slot
(its rendering is a few milliseconds a step). `max_restarts=0`: a device whose
actor died has lost its state (the screen, the app data, the half-done task),
so a restarted one would be a different phone; the run re-runs the attempt on
another device instead (`guilens.run.engine`), and every call on the dead actor
is `DeviceLost` at once, not a wait.

An actor's calls run one at a time (Ray's default `max_concurrency=1`), as a
device expects.
"""

from __future__ import annotations

import contextlib
import os
import socket
from typing import Any

from guilens.cluster import ClusterError
from guilens.cluster.resources import resource_for
from guilens.cluster.wire import pack_error, pack_result, unpack_result
from guilens.device.base import DeviceLost

READY_TIMEOUT_S = 60.0
"""How long an actor may take to be placed and open its device: a node starting a Python worker
needs a few seconds; longer means no node has the device free (another run holds it)."""
CLOSE_TIMEOUT_S = 10.0


class DeviceActor:
    """The far side: one device on one node. Made a Ray actor by `_actor_class` (kept a plain class
    here, so this module imports without Ray)."""

    def __init__(self, spec: str, options: dict[str, Any]) -> None:
        self.spec = spec
        self.device: Any = None
        self.error: tuple[str, Any] | None = None
        try:  # kept, not raised: an actor whose constructor raises dies, and the reason is lost in Ray's text
            from guilens.device import open_device

            self.device = open_device(spec, **options)
        except BaseException as err:
            self.error = pack_error(err)

    def where(self) -> dict[str, Any]:
        """Where the device lives: the actor's process and node (tests kill it by `pid`)."""
        import ray

        return {"pid": os.getpid(), "host": socket.gethostname(), "node": ray.get_runtime_context().get_node_id()}

    def call(self, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[str, Any]:
        from guilens.device.hosted import serve

        if self.error is not None:
            return self.error
        try:
            return pack_result(serve(self.device, method, args, kwargs))
        except BaseException as err:
            return pack_error(err)


_remote: Any = None


def _actor_class() -> Any:
    global _remote
    if _remote is None:
        import ray

        _remote = ray.remote(DeviceActor)
    return _remote


def _lost_errors() -> tuple[type[BaseException], ...]:
    """Ray's ways of saying the actor, its worker process or its node is gone."""
    from ray import exceptions as rx

    names = ("RayActorError", "ActorUnavailableError", "WorkerCrashedError", "NodeDiedError",
             "ObjectLostError", "OwnerDiedError", "LocalRayletDiedError", "RaySystemError")
    return tuple(getattr(rx, n) for n in names if isinstance(getattr(rx, n, None), type))


class RayHost:
    """A `DeviceHost` whose device is a Ray actor. Made by `open_hosts`; `wait_ready` before use."""

    def __init__(self, spec: str, options: dict[str, Any] | None = None) -> None:
        self.spec = spec
        self.resource = resource_for(spec)
        self.actor = _actor_class().options(
            resources={self.resource: 1}, num_cpus=0, max_restarts=0, max_task_retries=0,
        ).remote(spec, dict(options or {}))
        self.place: dict[str, Any] = {}
        """Where the actor runs (`DeviceActor.where`), once ready."""
        self._closed = False
        self._lost: DeviceLost | None = None

    def __repr__(self) -> str:
        at = f" on {self.place.get('host')}" if self.place else ""
        return f"RayHost({self.spec}{at})"

    def wait_ready(self, timeout: float = READY_TIMEOUT_S) -> None:
        """Wait until the actor is placed and answers; `ClusterError` if no node gives it its device in time."""
        import ray

        try:
            self.place = ray.get(self.actor.where.remote(), timeout=timeout)
        except ray.exceptions.GetTimeoutError:
            raise ClusterError(
                f"no node gave a free {self.resource} within {timeout:g} s (another run may hold the "
                "cluster's devices; `ray status` shows what is in use)", code=1) from None
        except _lost_errors() as err:
            raise ClusterError(f"the actor for {self.spec} died as it started: {_first_line(err)}", code=1) from None

    def call(self, method: str, /, *args: Any, **kwargs: Any) -> Any:
        import ray

        if self._lost is not None:
            raise DeviceLost(str(self._lost.args[0]))
        try:
            kind, payload = ray.get(self.actor.call.remote(method, args, kwargs))
        except _lost_errors() as err:
            where = self.place.get("host", "its node")
            self._lost = DeviceLost(f"{self.spec} on {where} is gone: its Ray actor died "
                                    f"({type(err).__name__})", performed=None)
            raise DeviceLost(str(self._lost.args[0]), performed=None) from None
        return unpack_result(kind, payload)

    def close(self) -> None:
        """Close the device on its node and end the actor; harmless twice, and on a dead actor."""
        if self._closed:
            return
        self._closed = True
        import ray

        with contextlib.suppress(Exception):  # closing a device that is already gone is not news
            if self._lost is None:
                ray.get(self.actor.call.remote("close", (), {}), timeout=CLOSE_TIMEOUT_S)
        with contextlib.suppress(Exception):
            ray.kill(self.actor)


def _first_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return text[0][:200] if text else type(err).__name__


def open_hosts(specs: list[str], options: dict[str, Any] | None = None,
               timeout: float = READY_TIMEOUT_S) -> list[RayHost]:
    """An actor per device spec, all placed at once; on any failure the ones made are ended and the
    error raised (`ClusterError`, or the device's own `DeviceError` when it cannot be opened)."""
    hosts: list[RayHost] = []
    try:
        for spec in specs:
            hosts.append(RayHost(spec, options if spec == "sim" else None))
        for h in hosts:
            h.wait_ready(timeout)
    except BaseException:
        for h in hosts:
            h.close()
        raise
    return hosts
