"""The device protocol: what the runner, agents, checks and screens may ask of a phone.

The simulated phone and a real adb device look the same from above: the same
observation, the same UI-tree format, the same actions.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any, Protocol, runtime_checkable

from PIL import Image

from guilens.actions import Action
from guilens.band_history import BandHistory
from guilens.device.uitree import UINode, parse_ui_xml


class DeviceError(RuntimeError):
    """A device problem a person can fix; `fix` says how."""

    def __init__(self, message: str, fix: str = "") -> None:
        super().__init__(message)
        self.fix = fix

    def __str__(self) -> str:
        base = super().__str__()
        return f"{base} ({self.fix})" if self.fix else base


class DeviceNotFound(DeviceError):
    pass


class DeviceOffline(DeviceError):
    pass


class DeviceUnauthorized(DeviceError):
    pass


class DeviceDisconnected(DeviceError):
    """The device went away mid-run; the runner waits for it rather than failing the episode.

    `performed` says whether the request may have reached the phone: False when it
    certainly did not (the stream never opened: repeating it is safe), None when
    nobody can tell (the stream was cut midway: a tap may or may not have happened).
    """

    def __init__(self, message: str, fix: str = "", *, performed: bool | None = None) -> None:
        super().__init__(message, fix)
        self.performed = performed


class DeviceLost(DeviceDisconnected):
    """A disconnected device that did not come back within the run's wait (`disconnect_wait_s`)."""


class UnsupportedAction(DeviceError):
    pass


@dataclass
class Observation:
    """One look at the device: what the agent sees and what checks read."""

    screenshot: Image.Image
    ui_xml: str | None
    app: str
    clock: datetime
    size: tuple[int, int]
    extra: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def ui(self) -> UINode | None:
        return parse_ui_xml(self.ui_xml) if self.ui_xml else None

    def known_ui(self, tree: UINode) -> Observation:
        """Hand over the tree `ui_xml` was written from, so `ui` costs no parse: the sim builds its tree
        and writes the XML from it, and parsing that XML back was 6% of the step loop on the memory
        pack (the checks and the agents read `ui` every step). The tree must be exactly what parsing
        `ui_xml` gives, since the judge parses the recorded XML later (tests hold the sim to it), and
        nobody may change it: observations of one unchanged screen share it. Returns `self`."""
        self.__dict__["ui"] = tree
        return self

    @property
    def known_tree(self) -> UINode | None:
        """The parsed tree if it is known already (handed over, or read once), else None; never parses."""
        tree: UINode | None = self.__dict__.get("ui")
        return tree

    def with_screenshot(self, screenshot: Image.Image | None) -> Observation:
        """A copy showing `screenshot` (None: the pixels travel apart), keeping what this one knows:
        `dataclasses.replace` would call `__init__` and leave the parsed tree behind."""
        out = copy.copy(self)
        out.screenshot = screenshot  # type: ignore[assignment]
        return out

    def __getstate__(self) -> dict[str, Any]:
        """Pickled with the parsed tree when it is known: a crossing (a device process, a Ray actor)
        carries the tree beside its XML, since pickling and unpickling it (0.35 ms for a 60-node sim
        screen) costs the far side less than parsing the XML again (0.9 ms), and the far side reads
        `ui` every step (the agents, the anomaly check, the milestone checks). An observation whose
        tree was never parsed crosses as its XML, and the far side parses it if it reads `ui`."""
        return dict(self.__dict__)


@runtime_checkable
class Device(Protocol):
    """A phone guilens can drive. `name` is what episodes record (`sim`, `adb:SERIAL`).

    A device that can go away mid-run raises `DeviceDisconnected` and may offer
    `alive() -> bool` (not part of the protocol: the sim never goes away), which a
    waiting run polls to go on by itself once the phone answers again; without it
    only a person's resume ends the wait (`guilens.run.reconnect`).
    """

    name: str

    @property
    def size(self) -> tuple[int, int]: ...

    def observe(self) -> Observation: ...

    def act(self, action: Action) -> str:
        """Perform a resolved action (pixels, not element targets); return what happened, in a few words."""
        ...

    def list_apps(self) -> list[str]: ...

    def set_clock(self, when: datetime) -> None: ...

    def clock(self) -> datetime: ...

    def snapshot(self) -> Any:
        """An opaque state to `restore`; `None` where the device cannot snapshot."""
        ...

    def restore(self, snap: Any) -> None: ...

    def reset(self, steps: list[str] | None = None) -> None:
        """Back to a clean state: the sim restores its initial snapshot, adb runs `steps` (shell commands)."""
        ...

    def state(self) -> dict[str, Any] | None:
        """App state as JSON for rule checks (sim); `None` where the device cannot tell."""
        ...

    def close(self) -> None: ...


def readonly_view(img: Image.Image) -> Image.Image:
    """The cached screen as a copy-on-write view: no 8 MB copy per observation, and a caller that
    draws on it (ImageDraw, paste, putpixel) gets its own copy instead of changing the next frame."""
    try:
        view = img._new(img.im)
        view.readonly = 1
        BandHistory.share(img, view)  # the same pixels: what was drawn over them still holds
        return view
    except AttributeError:  # pragma: no cover - a Pillow without the private hook
        return img.copy()

