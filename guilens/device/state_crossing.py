"""The sim's app state across a device process's pipe: only the apps that changed since the last state.

A hosted sim sends its app state with every step's reply (`ACT_OBSERVE`): the
memory pack's checks read it on 359 of 383 steps. The state is mostly app data
(17.5 kB pickled: `messages`, `maps`, `contacts`, `search`), and one action
changes one app at most, so the whole of it crossed to be unpickled again in
the run's process, whose single interpreter lock both devices' loops share.
Measured over the 357 step replies of a two-sim memory-pack run: 17.5 kB and
0.38 ms to unpickle each state whole, 0.7 kB and 0.01 ms for what changed,
for 0.05 ms of comparing in the device's process.

So the far side (`StateSender`, in the child) compares each app's state with
the one it sent last, and sends the apps that differ, the order of all of them
and the rest of the state (a few small fields) whole. The near side
(`StateReceiver`, in the parent) puts the state together again from the apps
it got last. It can only do that from the very state the far side compared
against, so each request says which state the near side holds (`have`: the
number of the last one it put together), and the far side sends a whole state
whenever that is not the one it sent last: a reply lost on the way (a call cut
short) costs one whole state, never a wrong one.

Apps carried over are the same objects as in the state before, and the app
dict says which (`KeptApps.kept`): the run's state log reuses its JSON for
those without comparing them (`guilens.run.statelog`). States are read-only to
their readers (the checks query them, the log encodes them); an app's value is
shared by every state it is kept in.

Hand-written: no library diffs nested JSON for a pickled pipe cheaper than
comparing eleven dicts with `==`, and the dicts are what both ends use.
"""

from __future__ import annotations

from typing import Any

_WHOLE = "whole"
_DELTA = "delta"


class KeptApps(dict[str, Any]):
    """A state's `apps`, naming those whose value is the very object of the previous state's, unchanged."""

    kept: frozenset[str] = frozenset()


class StateSender:
    """The far side: the states it sends, whole or as the apps that changed since the last one."""

    def __init__(self) -> None:
        self.seq = 0
        """The number of the last state sent (0: none yet)."""
        self._last: dict[str, Any] | None = None

    def pack(self, state: Any, have: int | None) -> tuple[Any, ...]:
        """`state` for the wire, given the number of the state the near side holds (None: none)."""
        self.seq += 1
        apps = state.get("apps") if isinstance(state, dict) else None
        last, self._last = self._last, (state if isinstance(apps, dict) else None)
        if last is None or have != self.seq - 1 or not isinstance(apps, dict):
            return (_WHOLE, self.seq, state)
        before = last["apps"]
        changed = {name: value for name, value in apps.items() if name not in before or before[name] != value}
        head = {k: (None if k == "apps" else v) for k, v in state.items()}  # `apps` keeps its place
        return (_DELTA, self.seq, head, tuple(apps), changed)


class StateReceiver:
    """The near side: states put together from what crossed, and the number of the last one (`have`)."""

    def __init__(self) -> None:
        self.have: int | None = None
        self._apps: dict[str, Any] = {}

    def unpack(self, packed: tuple[Any, ...]) -> Any:
        kind, seq = packed[0], packed[1]
        if kind == _WHOLE:
            state = packed[2]
            apps = state.get("apps") if isinstance(state, dict) else None
            self._apps = dict(apps) if isinstance(apps, dict) else {}
            self.have = seq
            return state
        _, _, head, order, changed = packed
        apps = KeptApps()
        for name in order:
            apps[name] = changed[name] if name in changed else self._apps[name]
        apps.kept = frozenset(name for name in order if name not in changed)
        self._apps = dict(apps)
        self.have = seq
        head["apps"] = apps
        return head
