"""The app state behind the screens of an attempt: `state/NNNN.json`, for the rules judge.

The live checks read the device's app state after every action while a state
milestone is still to be reached; the judge, replaying an episode later, needs the
same state at the same screens, or it can only credit a state milestone at the final
screen (and MSR comes out wrong). So the state the loop fetched for screen i is also
written to `state/000i.json`, and step i's line names it (`"state": "state/000i.json"`).
Screen numbering is the recorder's: state i goes with `screens/000i.png`, the screen
the agent saw before action i; the final screen's state is `final_state.json`.

Exactly the states the live checks read are recorded, so a replay reaches every
milestone at the step the run did, and recording costs no device call: the state is
fetched at most once per observation (a step whose action left the phone alone, an
`ask_user` or a rejected action, reuses it, and its line names the earlier file), and
the JSON is encoded and written off the step loop's thread, re-encoding only the apps
whose state changed. In a run that thread is the recorder's writer, when it has no line
to write (`Recorder.later`): no thread of its own to start and stop every attempt, and
none more to share the interpreter's lock with the loop and the PNG encoders. A device
with no app state (a real phone: `state()` is None) is asked once and never again; its
steps name no state.

Unlike a screen, a state file may be missing when its step line is on disk (a writer
killed mid-step); readers take a missing file as "no state recorded there".
"""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

from guilens.scenarios.spec_checks import ElementCheck, ScreenTextCheck, StateCheck, iter_checks
from guilens.storage import StorageError, reason, write_atomic

STATE_DIR = "state"


def check_reads(check: Any) -> set[str]:
    """What a milestone check reads: `ui` (screen text, elements) and/or `state` (the sim's app
    state), so the loop fetches the state only while a check still waiting needs it."""
    out: set[str] = set()
    for c in iter_checks(check):
        if isinstance(c, StateCheck):
            out.add("state")
        elif isinstance(c, ScreenTextCheck | ElementCheck):
            out.add("ui")
    return out


def state_path(index: int) -> str:
    """The step line's `state` value for screen `index` (relative to the attempt directory)."""
    return f"{STATE_DIR}/{index:04d}.json"


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), default=str)


class StateLog:
    """The app state of each observation, fetched at most once, and recorded per step. One per attempt."""

    def __init__(self, directory: Path, fetch: Callable[[], dict[str, Any] | None],
                 submit: Callable[[Callable[[], None]], None] | None = None) -> None:
        self.dir = Path(directory)
        self._fetch = fetch
        self.submit = submit
        """Runs a write on a thread that keeps their order (the recorder's `later`); None: a thread of
        the log's own. Whoever runs them waits for them before `error` is read."""
        self.available = True
        """False once the device has said it has no app state."""
        self._obs: object = None
        self._state: dict[str, Any] | None = None
        self._path: str | None = None
        self._pool: ThreadPoolExecutor | None = None
        self._made = False
        self._apps: dict[str, tuple[Any, str]] = {}
        """Per app, its last state and that state's JSON (the writer thread's own)."""
        self.error: str | None = None
        """The first write that failed, if one did (recording then stops; the attempt goes on)."""

    def fetch(self, obs: object) -> dict[str, Any] | None:
        """The app state behind observation `obs`: asked of the device once per observation."""
        if obs is not self._obs:
            state = self._fetch() if self.available else None  # may raise: then nothing is cached
            self._obs, self._path, self._state = obs, None, state
            if state is None:
                self.available = False
        return self._state

    def cached(self, obs: object) -> dict[str, Any] | None:
        """The state already fetched for `obs`, without asking the device."""
        return self._state if obs is self._obs else None

    def record(self, index: int, obs: object) -> str | None:
        """Record the state fetched for `obs` as screen `index`'s; the path for the step line, or
        None when none was fetched for it (no check needed it, or the device has none)."""
        if obs is not self._obs or self._state is None or self.error is not None:
            return None
        if self._path is None:  # else the phone is unchanged since an earlier step, whose file serves
            rel = state_path(index)
            if not self._made:
                try:
                    (self.dir / STATE_DIR).mkdir(parents=True, exist_ok=True)
                except OSError as err:
                    self.error = f"could not make {STATE_DIR}/: {reason(err)}"
                    return None
                self._made = True
            if self.submit is not None:
                self.submit(partial(self._write, self._state, rel))
            else:
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="state")
                self._pool.submit(self._write, self._state, rel)
            self._path = rel
        return self._path

    def _encode(self, state: dict[str, Any]) -> str:
        """Compact JSON; an app whose state did not change since the last file reuses its encoding
        (the sim's state is mostly app data, and one action changes one app at most). Unchanged is
        compared, except where the state says so itself: a hosted sim's apps carried over from the
        state before are that state's very objects (`KeptApps.kept`, `guilens.device.state_crossing`);
        any other object seen before may have been changed in place, so it is encoded again."""
        apps = state.get("apps")
        if not isinstance(apps, dict) or not apps:
            return _dumps(state)
        kept: frozenset[str] = getattr(apps, "kept", frozenset())
        parts = []
        for name, value in apps.items():
            known = self._apps.get(name)
            if known is None or (known[0] is not value and known[0] != value) or (
                    known[0] is value and name not in kept):
                known = self._apps[name] = (value, _dumps(value))
            parts.append(f"{_dumps(str(name))}:{known[1]}")
        head = _dumps({k: v for k, v in state.items() if k != "apps"})
        return f"{head[:-1]}{',' if len(head) > 2 else ''}\"apps\":{{{','.join(parts)}}}}}"

    def _write(self, state: dict[str, Any], rel: str) -> None:
        try:
            write_atomic(self.dir / rel, self._encode(state))  # a failed write leaves no temporary file
        except StorageError as err:
            if self.error is None:
                self.error = f"could not write {rel}: {err.why}"
        except (TypeError, ValueError) as err:
            if self.error is None:
                self.error = f"could not write {rel}: {err}"

    def close(self) -> str | None:
        """Wait for the pending writes on the log's own thread; return the first error so far, if any
        (writes through `submit` are waited for by its owner, and may add one). Safe to call twice.

        Lets go of the last observation (its screen is 8 MB): a finished attempt can outlive its
        end in a reference cycle, and should not hold a screen meanwhile."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
        self._obs, self._state, self._path = None, None, None
        return self.error
