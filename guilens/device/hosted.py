"""A device that lives somewhere else: `DeviceHost` (where it lives) and `HostedDevice` (what the run holds).

Two sims run as threads of one process share one GIL, so a second sim made the
memory pack slower, not faster (issue 14). The fix moves the *device*, not the
runner: the step loop, pause, single step, take-over, `ask_user`, observers and
the reconnection wait stay exactly as they are, and keep calling a `Device`.
That device is a `HostedDevice`, which forwards every call to a `DeviceHost`:
a child process (`guilens.device.process_host.ProcessHost`) or a Ray actor.

The host protocol is deliberately one method wide, so a new place to run a
device is one small class:

- `call(method, *args, **kwargs)` runs `getattr(device, method)(*args, **kwargs)`
  where the device lives and returns the result. The device's own `DeviceError`
  subclasses come back unchanged (with `fix` and `performed`), so the runner's
  handling of a phone that went away is the same as in-process. When the host
  itself is gone (the child died, the actor died) it raises `DeviceLost`: a dead
  process does not come back, so the run does not wait for it.
- `close()` closes the device and releases the host; calling it twice is harmless.

The far side of every host answers with `serve(device, method, args, kwargs)`,
which adds two conventions to `getattr(...)()`:
- `DESCRIBE` returns what the near side must know without a round trip per read
  (the device's `name`, `size` and its public methods), so `HostedDevice` offers
  exactly the optional methods the device has (`load_setup`, `alive`, ...: the
  runner probes them with `getattr`);
- `ACT_OBSERVE` acts, then observes and reads the state, in one request (an
  `ActResult`). A step asks the phone to act, then what it shows, then its state:
  three round trips, and each one, in a parent whose other threads hold the GIL,
  waits up to a switch interval (5 ms) to run again once its answer is in: on the
  memory pack with two sims, 25 ms an `observe` against 10 ms of the child's own
  (measured on the shared 2-core dev machine). Every host gets this by answering
  with `serve`.
  A `HostedDevice` made with `prefetch=True` (a device that changes only when
  acted on: the sim) asks this once and serves the `observe` and `state` that
  follow from it; any other call in between drops what it holds.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from guilens.actions import Action
    from guilens.device.base import Observation

DESCRIBE = "__describe__"
"""The method name `serve` answers with a `DeviceInfo` instead of calling the device."""
ACT_OBSERVE = "__act_observe__"
"""The method name `serve` answers with an `ActResult`: act, then observe and read the state."""

_PROTOCOL_METHODS = frozenset({
    "observe", "act", "list_apps", "set_clock", "clock", "snapshot", "restore", "reset", "state", "close",
})


@dataclass(frozen=True)
class DeviceInfo:
    """What the near side caches about a hosted device: it never changes while the device lives."""

    name: str
    size: tuple[int, int]
    methods: frozenset[str]
    """Public callables of the device (protocol methods and extras such as `load_setup`, `alive`)."""
    kind: str = ""
    """The device's class, for messages (`SimDevice`)."""


@dataclass
class ActResult:
    """What `ACT_OBSERVE` returns: the action's description, then the screen and state after it
    (None where observing or reading failed: the plain call that follows then raises the error)."""

    description: str
    observation: Observation | None = None
    state: dict[str, Any] | None = None
    has_state: bool = False


def describe(device: Any) -> DeviceInfo:
    """`DESCRIBE`'s answer. Attributes are read statically: describing runs no property."""
    methods = frozenset(
        n for n in dir(device)
        if not n.startswith("_") and callable(inspect.getattr_static(device, n, None))
    )
    return DeviceInfo(name=str(getattr(device, "name", "device")), size=tuple(device.size),
                      methods=methods, kind=type(device).__name__)


def serve(device: Any, method: str, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None) -> Any:
    """One request on the side where the device lives: what every host runs for `call`."""
    if method == DESCRIBE:
        return describe(device)
    if method == ACT_OBSERVE:
        out = ActResult(str(device.act(*args, **(kwargs or {}))))
        try:
            out.observation = device.observe()
            out.state, out.has_state = device.state(), True
        except Exception:  # served again by the plain call, which raises it where it is asked
            pass
        return out
    if method.startswith("_"):
        raise AttributeError(f"{type(device).__name__}.{method} is private and cannot be called through a host")
    return getattr(device, method)(*args, **(kwargs or {}))


@runtime_checkable
class DeviceHost(Protocol):
    """Where a device lives, reached by method name (see the module docstring for the contract)."""

    def call(self, method: str, /, *args: Any, **kwargs: Any) -> Any: ...

    def close(self) -> None: ...


class HostedDevice:
    """A `Device` whose calls run on a `DeviceHost`; to the runner it is the device itself.

    `name` and `size` are read once (`DESCRIBE`), so a label, a record or a resize
    costs no round trip. Optional methods the hosted device has (`load_setup`,
    `alive`, `state_screen`, ...) are forwarded too; one it lacks is an
    `AttributeError` here, as it would be on the device itself, so `getattr(device,
    "load_setup", None)` probes behave the same hosted or not.
    """

    def __init__(self, host: DeviceHost, *, prefetch: bool = False) -> None:
        self.host = host
        self.prefetch = prefetch
        """The device changes only when acted on: an action's reply brings the screen and state after it."""
        self._next_obs: Observation | None = None
        self._next_state: tuple[dict[str, Any] | None] | None = None
        info = host.call(DESCRIBE)
        if not isinstance(info, DeviceInfo):
            raise TypeError(f"{type(host).__name__} answered {DESCRIBE} with {type(info).__name__}, not DeviceInfo")
        self.info = info
        self.name: str = info.name
        self._closed = False

    def __repr__(self) -> str:
        return f"HostedDevice({self.info.kind or self.name} on {self.host!r})"

    @property
    def size(self) -> tuple[int, int]:
        return self.info.size

    # -- the Device protocol ---------------------------------------------------------------------
    def _call(self, method: str, *args: Any) -> Any:
        """A call the prefetched screen and state may not outlive (anything but observe and state)."""
        self._next_obs = self._next_state = None
        return self.host.call(method, *args)

    def observe(self) -> Observation:
        obs, self._next_obs = self._next_obs, None
        if obs is not None:
            return obs
        return self._call("observe")

    def state(self) -> dict[str, Any] | None:
        held, self._next_state = self._next_state, None
        if held is not None:
            return held[0]
        return self._call("state")

    def act(self, action: Action) -> str:
        if not self.prefetch:
            return str(self._call("act", action))
        out = self._call(ACT_OBSERVE, action)
        self._next_obs = out.observation
        self._next_state = (out.state,) if out.has_state else None
        return str(out.description)

    def list_apps(self) -> list[str]:
        return list(self._call("list_apps"))

    def set_clock(self, when: datetime) -> None:
        self._call("set_clock", when)

    def clock(self) -> datetime:
        return self._call("clock")

    def snapshot(self) -> Any:
        return self._call("snapshot")

    def restore(self, snap: Any) -> None:
        self._call("restore", snap)

    def reset(self, steps: list[str] | None = None) -> None:
        self._call("reset", steps)

    def close(self) -> None:
        """Close the device where it lives and release the host (a child process ends)."""
        if self._closed:
            return
        self._closed = True
        self.host.close()

    # -- the device's extras -----------------------------------------------------------------------
    def __getattr__(self, attr: str) -> Any:
        # Only reached for names not defined above. `info` is checked through __dict__ so an
        # object half made (no `info` yet, e.g. while unpickling) does not recurse.
        info = self.__dict__.get("info")
        if info is None or attr.startswith("_") or attr in _PROTOCOL_METHODS or attr not in info.methods:
            raise AttributeError(f"{type(self).__name__} for {info.kind if info else 'a device'} has no {attr!r}")

        def forward(*args: Any, **kwargs: Any) -> Any:
            self._next_obs = self._next_state = None
            return self.host.call(attr, *args, **kwargs)

        forward.__name__ = attr  # the runner names a wait after the call that hit it
        return forward
